// A build's metrics as operators get them (issue 42): `dataset build` with METRICS_FILE writes the run's summary as a
// node exporter textfile — what it published, built and read — and, when the build fails, says so in the same file.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { describeEdgar, makeOverlayMirror } from "../../test/_edgar.ts";
import { parseSamples, total } from "../../test/_metrics.ts";
import { removeDir } from "../../test/_s3.ts";
import { main } from "../commands/cli.ts";
import { recordBuild } from "./run-metrics.ts";

describeEdgar("a build's metrics file", () => {
  let mirror: string;
  let dir: string;
  beforeAll(() => {
    mirror = makeOverlayMirror();
    dir = mkdtempSync(join(tmpdir(), "build-metrics-"));
  });
  afterAll(() => [mirror, dir].forEach(removeDir));

  it("holds the run's counts, exactly as its summary, once the build has published", async () => {
    // The textfile collector's folder, as node exporter reads it (--collector.textfile.directory).
    mkdirSync(join(dir, "textfile"));
    const file = join(dir, "textfile", "fds_build.prom");
    const out: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...a) => void out.push(a.join(" ")));
    let code: number;
    try {
      code = await main(["build", "--source", `dir:${mirror}`, "--out", join(dir, "data"), "--tickers", "AAPL,JNJ,MSFT", "--lookback-days", "400", "--workers", "0"], {
        LOG_LEVEL: "error",
        METRICS_FILE: file,
      });
    } finally {
      log.mockRestore();
    }
    expect(code).toBe(0);
    const { summary } = JSON.parse(out.find((line) => line.startsWith('{"summary"'))!) as { summary: Record<string, number> & { build_id: string; pruned: string[]; not_covered: Record<string, number> } };
    const text = readFileSync(file, "utf8");
    expect(readdirSync(join(dir, "textfile"))).toEqual(["fds_build.prom"]); // no temporary left beside it
    expect(text).toContain("# TYPE fds_build_tickers gauge");
    const samples = parseSamples(text);
    expect(total(samples, "fds_build_success")).toBe(1);
    expect(samples.find((s) => s.name === "fds_build_info")?.labels).toEqual({ build_id: summary.build_id });
    for (const name of ["tickers", "covered", "failed", "kept_previous", "carried_forward", "documents_written", "documents_unchanged", "kept_newer", "form4_fetched", "form4_index_days"]) {
      expect(total(samples, `fds_build_${name}`), name).toBe(summary[name]);
    }
    expect(total(samples, "fds_build_tickers")).toBe(3);
    expect(total(samples, "fds_build_documents_written")).toBeGreaterThan(0);
    expect(total(samples, "fds_build_edgar_requests")).toBe(summary.requests);
    expect(total(samples, "fds_build_duration_seconds")).toBe(summary.seconds);
    expect(total(samples, "fds_build_pruned_snapshots")).toBe(summary.pruned.length);
    for (const [reason, count] of Object.entries(summary.not_covered)) expect(total(samples, "fds_build_not_covered", { reason })).toBe(count);
    expect(Date.now() / 1000 - total(samples, "fds_build_last_run_timestamp_seconds")).toBeLessThan(60);
  });

  it("says a build failed, and when, keeping the build's own error", async () => {
    const file = join(dir, "failed.prom");
    const failure = new Error("nothing could be built");
    await expect(recordBuild(file, Promise.reject(failure), () => new Date("2026-07-01T12:00:00Z"))).rejects.toBe(failure);
    const samples = parseSamples(readFileSync(file, "utf8"));
    expect(total(samples, "fds_build_success")).toBe(0);
    expect(total(samples, "fds_build_last_run_timestamp_seconds")).toBe(Date.parse("2026-07-01T12:00:00Z") / 1000);
    expect(samples.some((s) => s.name === "fds_build_tickers")).toBe(false);
  });

  it("writes nothing when no file is asked for", async () => {
    const before = readdirSync(dir);
    await recordBuild(null, Promise.reject(new Error("x"))).catch(() => {});
    expect(readdirSync(dir)).toEqual(before);
  });
});
