import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CurrentPointer, Manifest } from "../../schemas/snapshot.ts";
import { readJson, writeJson } from "../../storage/json.ts";
import { CURRENT_KEY, manifestKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, makeOverlayMirror } from "../../test/_edgar.ts";
import { removeDir } from "../../test/_s3.ts";
import { auditSnapshot } from "../commands/audit.ts";
import { main } from "../commands/cli.ts";
import { pruneStore, UNPUBLISHED_SAFE_AGE_MS } from "./prune.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { runBuild } from "../pipeline/run.ts";
import { createDirSource } from "../sources/dir.ts";

// Retention counts published snapshots only (issue 17): builds really killed (SIGKILL, in a child process) at
// several points leave folders that never count, and are removed only once older than any build could run. Since
// publishing is incremental (issue 19), a pruned snapshot loses its manifest, while documents a kept manifest still
// references stay where they were written.

const TICKERS = ["AAPL", "WMT", "JNJ"];
const HOUR = 3_600_000;

describeEdgar("retention after killed builds", () => {
  let mirror: string;
  let dir: string;
  beforeAll(() => {
    mirror = makeOverlayMirror();
    dir = mkdtempSync(join(tmpdir(), "retention-"));
  });
  afterAll(() => [mirror, dir].forEach(removeDir));

  const folders = async () => [...new Set((await openStorage(dir).getKeys("snapshots")).map((k) => k.split(":")[1]!))].sort();
  const manifests = async () => (await openStorage(dir).getKeys("snapshots")).filter((k) => k.endsWith(":manifest.json")).map((k) => k.split(":")[1]!).sort();
  const current = async () => (await readJson(openStorage(dir), CURRENT_KEY, CurrentPointer))!.build_id;
  const build = (at: Date, retention = 4) =>
    runBuild({ source: createDirSource(mirror), storage: openStorage(dir), log: memoryLogger(), tickers: TICKERS, now: () => at, retention, lookbackDays: 90, workers: 0 });
  const killedBuild = (when: string, at: Date) =>
    new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ["test/_build-killed.ts", dir, mirror, when, at.toISOString(), TICKERS.join(",")], { stdio: "inherit" });
      child.once("exit", (_code, signal) => resolve(signal === "SIGKILL" ? 9 : null));
    });

  it("builds killed among the documents and between manifest and current.json do not count: --retention 2 keeps the current and previous published snapshots", async () => {
    const start = Date.now() - 6 * HOUR; // before the CLI's own clock below
    const first = (await build(new Date(start))).build_id;
    const second = (await build(new Date(start + HOUR))).build_id;
    expect(await killedBuild("documents:1", new Date(start + 2 * HOUR))).toBe(9);
    expect(await killedBuild("documents:1", new Date(start + 3 * HOUR))).toBe(9);
    expect(await killedBuild("manifest", new Date(start + 4 * HOUR))).toBe(9);
    const leftovers = (await folders()).filter((id) => id !== first && id !== second);
    expect(leftovers).toHaveLength(3);
    expect(await current()).toBe(second); // no killed build moved current.json

    // A complete build through the CLI, as an operator runs it.
    const out: string[] = [];
    const log = console.log;
    console.log = (line: string) => void out.push(line);
    const code = await main(["build", "--source", `dir:${mirror}`, "--out", dir, "--tickers", TICKERS.join(","), "--retention", "2", "--workers", "0"], { LOG_LEVEL: "error" }).finally(() => (console.log = log));
    expect(code).toBe(0);
    const third = await current();
    // Current and previous published are kept, the oldest published one is pruned (its manifest: its documents are
    // still the current ones, unchanged since); the killed builds' folders are young (a build could still be
    // running), so they stay, and they did not push `second` out.
    expect(await manifests()).toEqual([second, third, leftovers[2]!].sort()); // the last killed build got as far as its manifest
    expect(await folders()).toEqual([first, second, ...leftovers, third].sort());
    expect((await readJson(openStorage(dir), manifestKey(third), Manifest))!.previous_build_id).toBe(second);
    expect(JSON.parse(out.at(-1)!).summary.pruned).toEqual([first]);
    expect((await auditSnapshot(openStorage(dir))).findings).toEqual([]);

    // A week later the leftovers are older than any build: removed, while retention still counts only published ones.
    const fourth = await build(new Date(Date.now() + UNPUBLISHED_SAFE_AGE_MS + HOUR), 2);
    expect(fourth.pruned).toEqual([second, ...leftovers].sort());
    expect(await manifests()).toEqual([third, fourth.build_id].sort());
    // The first build's documents are still what the current snapshot serves.
    expect(await folders()).toEqual([first, third, fourth.build_id].sort());
    expect((await auditSnapshot(openStorage(dir))).findings).toEqual([]);
  }, 120_000);

  it("manifests written before they named their predecessor still count as published, newest first", async () => {
    const storage = openStorage(join(dir, "legacy-store"));
    const manifest = (id: string, built_at: string): Manifest => ({ build_id: id, built_at, source: "dir:x", form4_since: "2024-07-01", requests: 0, tickers: {} });
    const legacy = ["20260101T000000Z-aaaaaa", "20260102T000000Z-bbbbbb", "20260103T000000Z-cccccc"];
    for (const [i, id] of legacy.entries()) await writeJson(storage, manifestKey(id), Manifest, manifest(id, `2026-01-0${i + 1}T00:00:00.000Z`));
    const current = "20260104T000000Z-dddddd";
    await writeJson(storage, manifestKey(current), Manifest, { ...manifest(current, "2026-01-04T00:00:00.000Z"), previous_build_id: legacy[2]! });
    await storage.setItemRaw("snapshots/20260103T120000Z-eeeeee/tickers/AAPL/filings.json", new TextEncoder().encode("{}")); // killed, young
    const head = (await readJson(storage, manifestKey(current), Manifest))!;
    expect((await pruneStore(storage, head, { retention: 3, now: new Date("2026-01-05T00:00:00.000Z") })).snapshots).toEqual([legacy[0]]);
    expect((await pruneStore(storage, head, { retention: 3, now: new Date("2026-02-05T00:00:00.000Z") })).snapshots).toEqual(["20260103T120000Z-eeeeee"]);
  });
});
