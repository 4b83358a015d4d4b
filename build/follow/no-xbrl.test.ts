// A periodic report without XBRL, on the whole shared mirror (whose Walmart submissions hold every filing since 1994):
// the follower confirms it on the submissions alone, where one with XBRL waits for company facts (follow-writers.test.ts).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStorage } from "../../storage/open.ts";
import { describeMirror, MIRROR } from "../../test/_edgar.ts";
import { startReplay, type EdgarReplay } from "../../test/_edgar-replay.ts";
import { followInProcess, replaySource } from "../../test/_follower.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { removeDir } from "../../test/_s3.ts";
import { readPublished } from "../publish/snapshot.ts";
import { runBuild } from "../pipeline/run.ts";

// Walmart's 10-Q for the quarter to 2009-04-30, filed 2009-06-05: isXBRL 0 in its submissions, so no company facts.
const WMT_2009_10Q = "0000104169-09-000008";

describeMirror("the follower and a periodic report without XBRL", () => {
  let replay: EdgarReplay | undefined;
  let dir = "";
  // Made here, not in the describe body, which runs even when the mirror is absent and the tests are skipped.
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "follow-no-xbrl-"));
  });
  afterAll(async () => {
    await replay?.close();
    removeDir(dir);
  });

  it("confirms it as soon as the submissions list it: company facts will never show it, so it does not wait for them", async () => {
    replay = await startReplay(MIRROR.dir, [104169], 0, [WMT_2009_10Q]);
    const storage = openStorage(dir);
    await runBuild({ source: replaySource(replay), storage, log: memoryLogger(), tickers: ["WMT"], workers: 0, lookbackDays: 30 });
    // Company facts lag far behind: a report with XBRL would wait (confirmWithinMs, 15 minutes by default).
    replay.setFactsDelay(600_000);
    const follower = followInProcess(replay, storage);
    replay.accept(WMT_2009_10Q);
    await expect.poll(async () => (await readPublished(storage))!.manifest.follow?.published_filings, { timeout: 30_000, interval: 200 }).toBe(1);
    expect((await readPublished(storage))!.manifest.follow?.unconfirmed).toEqual([]);
    expect((await readPublished(storage))!.manifest.tickers.WMT!.followed).toMatchObject({ accession: WMT_2009_10Q, form: "10-Q" });
    await follower.stop();
  }, 90_000);
});
