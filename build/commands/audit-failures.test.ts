import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, EDGAR_DIR, makeOverlayMirror } from "../../test/_edgar.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { removeDir } from "../../test/_s3.ts";
import { runBuild, type BuildSummary } from "../pipeline/run.ts";
import { createDirSource } from "../sources/dir.ts";
import { auditSnapshot } from "./audit.ts";
import { main } from "./cli.ts";

// A company that failed (issue 39) keeps its previous documents, which are then stale: `dataset audit` names it as a
// finding — the file, the reason the manifest records, since when its documents are stale — and exits 1, and so does
// the scheduled workflow's audit step. Real company facts, spoiled between two builds the way a cut download or a
// changed EDGAR shape would: Apple's truncated, Home Depot's with a share count as a string.

const ROOT = join(import.meta.dirname, "..", "..");
const FIRST = () => new Date("2026-07-01T12:00:00.000Z");
const SECOND = () => new Date("2026-07-01T13:00:00.000Z");
const AAPL_FACTS = "api/xbrl/companyfacts/CIK0000320193.json";
const HD_FACTS = "api/xbrl/companyfacts/CIK0000354950.json";

describeEdgar("dataset audit: a company that failed in the published build", () => {
  let overlay: string;
  let data: string;
  const mirrors: string[] = [];
  let first: BuildSummary;
  let second: BuildSummary;
  const build = (now: () => Date) => {
    const mirror = makeOverlayMirror(overlay);
    mirrors.push(mirror);
    return runBuild({ source: createDirSource(mirror), storage: openStorage(data), log: memoryLogger(), tickers: ["AAPL", "HD", "MRVL"], now, lookbackDays: 90, workers: 0 });
  };
  const spoil = (file: string, change: (text: string) => string) => {
    mkdirSync(dirname(join(overlay, file)), { recursive: true });
    writeFileSync(join(overlay, file), change(readFileSync(join(EDGAR_DIR, file), "utf8")));
  };

  beforeAll(async () => {
    overlay = mkdtempSync(join(tmpdir(), "audit-failures-overlay-"));
    cpSync(join(ROOT, "test", "fixtures", "overlay"), overlay, { recursive: true });
    data = mkdtempSync(join(tmpdir(), "audit-failures-"));
    first = await build(FIRST);
    spoil(AAPL_FACTS, (text) => text.slice(0, Math.floor(text.length / 2)));
    spoil(HD_FACTS, (text) => text.replace(/("EntityCommonStockSharesOutstanding":\{.*?"val":)(\d+)/, '$1"$2"'));
    second = await build(SECOND);
  }, 120_000);
  afterAll(() => [overlay, data, ...mirrors].forEach(removeDir));

  it("each failed company is a finding naming the file, the reason and since when its documents are stale", async () => {
    expect(first).toMatchObject({ covered: 3, failed: 0 });
    expect(second).toMatchObject({ covered: 1, failed: 2, kept_previous: 2 });
    const report = await auditSnapshot(openStorage(data));
    expect(report.failed).toEqual(["AAPL", "HD"]);
    const stale = `; its documents are stale since 2026-07-01T12:00:00\\.000Z, kept from ${first.build_id}$`;
    expect(report.findings).toEqual([
      expect.stringMatching(new RegExp(`^AAPL: failed: CIK 320193, ${AAPL_FACTS}: not valid JSON \\(\\d+ bytes, starts .*\\): unterminated object or array at offset \\d+${stale}`)),
      expect.stringMatching(new RegExp(`^HD: failed: CIK 354950, ${HD_FACTS}: dei:EntityCommonStockSharesOutstanding: .*expected number, received string${stale}`)),
    ]);
    // A failure is not also a warning; MRVL, rebuilt, is named nowhere.
    expect(report.warnings.filter((w) => /^(AAPL|HD): not rebuilt/.test(w))).toEqual([]);
    expect([...report.findings, ...report.warnings].some((line) => line.startsWith("MRVL"))).toBe(false);
  });

  it("`dataset audit` exits 1 on them, with or without --strict, and says how many failed", async () => {
    for (const flags of [[], ["--strict"]]) {
      const out: string[] = [];
      const log = vi.spyOn(console, "log").mockImplementation((...a) => void out.push(a.join(" ")));
      const code = await main(["audit", "--data", data, ...flags], { LOG_LEVEL: "error" }).finally(() => log.mockRestore());
      expect(code).toBe(1);
      expect(out.filter((l) => /^FINDING (AAPL|HD): failed: /.test(l))).toHaveLength(2);
      expect(out.at(-1)).toMatch(/^audit \S+: 3 tickers, 3 covered, 2 failed \(AAPL, HD\), \d+ findings/);
    }
  });

  it("the scheduled workflow's audit step fails on them", async () => {
    const workflow = parse(readFileSync(join(ROOT, ".github", "workflows", "build.yml"), "utf8")) as { jobs: Record<string, { steps: { run?: string }[] }> };
    const step = Object.values(workflow.jobs).flatMap((job) => job.steps).find((s) => s.run?.includes("dataset -- audit"))!;
    // The step as written, its store a folder here: `npm run dataset --` is `node build/commands/cli.ts`.
    const args = step.run!.trim().replace(/^npm run dataset -- /, "").split(/\s+/).map((a) => (a === '"$DATA_URL"' ? data : a));
    const run = promisify(execFile)(process.execPath, ["build/commands/cli.ts", ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "error" } });
    await expect(run).rejects.toMatchObject({ code: 1, stdout: expect.stringMatching(/^FINDING AAPL: failed: CIK 320193, api\/xbrl\/companyfacts\/CIK0000320193\.json: not valid JSON/m) });
  });
});
