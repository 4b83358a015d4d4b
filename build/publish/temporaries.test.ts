import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { billingKey, buildingKey, documentKey, form4CacheKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, makeOverlayMirror } from "../../test/_edgar.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { removeDir } from "../../test/_s3.ts";
import { stalledWriter } from "../../test/_stalled.ts";
import { auditSnapshot } from "../commands/audit.ts";
import { runBuild } from "../pipeline/run.ts";
import { createDirSource } from "../sources/dir.ts";
import { TEMPORARY_SAFE_AGE_MS } from "./prune.ts";
import { newBuildId } from "./snapshot.ts";

// Temp files (issue 39): the folder store writes each key to a temp file and renames it into place, so a build killed
// mid-write leaves one that nothing used or removed. The next build removes those no live writer can still be
// renaming — older than TEMPORARY_SAFE_AGE_MS — and never one a concurrent writer (another build, a gateway) holds.

const TICKERS = ["AAPL", "WMT", "JNJ"];
const HOUR = 3_600_000;

describeEdgar("temp files left by killed writers", () => {
  let mirror: string;
  let dir: string;
  beforeAll(() => {
    mirror = makeOverlayMirror();
    dir = mkdtempSync(join(tmpdir(), "temporaries-"));
  });
  afterAll(() => [mirror, dir].forEach(removeDir));

  /** Every temp file in the store, as paths under it. */
  const temporaries = () => (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.[0-9a-f]{12}\.tmp$/.test(f)).sort();
  const build = (at: () => Date) => runBuild({ source: createDirSource(mirror), storage: openStorage(dir), log: memoryLogger(), tickers: TICKERS, now: at, lookbackDays: 90, workers: 0 });
  const killedBuild = (at: Date) =>
    new Promise<string | null>((resolve) => {
      const child = spawn(process.execPath, ["test/_build-killed.ts", dir, mirror, "renaming:/tickers/", at.toISOString(), TICKERS.join(",")], { stdio: "inherit" });
      child.once("exit", (_code, signal) => resolve(signal));
    });

  it("a concurrent writer's temp file, written and not yet renamed, is never removed: its writes end whole, while an old one is", async () => {
    // A build killed mid-write, its temp files aged past the bound (as if it was killed an hour and a half ago).
    expect(await killedBuild(new Date())).toBe("SIGKILL");
    const old = temporaries();
    expect(old.length).toBeGreaterThan(0);
    const ago = new Date(Date.now() - TEMPORARY_SAFE_AGE_MS - HOUR / 2);
    for (const file of old) utimesSync(join(dir, file), ago, ago);
    // Now writers are mid-write beside the build: another build's document and Form 4, a gateway's billing record.
    const running = newBuildId(new Date());
    await openStorage(dir).setItemRaw(buildingKey(running), new TextEncoder().encode("{}"));
    const keys = [documentKey(running, "AAPL", "filings"), form4CacheKey("0000320193-26-999999"), billingKey("events", "evt_stalled")];
    const writers = keys.map((key) => stalledWriter(dir, key));
    await Promise.all(writers.map((w) => w.inFlight));
    const inFlight = temporaries().filter((f) => !old.includes(f));
    expect(inFlight).toHaveLength(keys.length);

    await build(() => new Date());
    expect(temporaries().sort()).toEqual(inFlight.sort());
    for (const w of writers) w.release();
    expect(await Promise.all(writers.map((w) => w.done))).toEqual(keys.map(() => "written"));
    expect(temporaries()).toEqual([]);
  }, 120_000);

  it("a build killed mid-write leaves a temp file; the next scheduled build, 12 hours on, removes it (the killed build's folder still kept)", async () => {
    const start = Date.now();
    expect(await killedBuild(new Date(start))).toBe("SIGKILL");
    const document = temporaries().find((f) => /^snapshots\/[^/]+\/tickers\/[A-Z]+\/\w+\.json\.[0-9a-f]{12}\.tmp$/.test(f));
    expect(document).toBeDefined();
    const killed = document!.split("/")[1]!;

    const next = await build(() => new Date(start + 12 * HOUR));
    expect(temporaries()).toEqual([]);
    // Pruning keeps the killed build's folder for a week (it might still be running), not its temp files.
    expect(next.pruned).not.toContain(killed);
    expect(readdirSync(join(dir, "snapshots"))).toContain(killed);
    expect((await auditSnapshot(openStorage(dir))).findings).toEqual([]);
  }, 120_000);
});
