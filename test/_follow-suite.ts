// The follower's end-to-end suites (build/follow/follow*.test.ts), on real filings: a loopback EDGAR
// (test/_edgar-replay.ts) holding back the newest filings of five companies of the fixtures, stores built from it, and
// the follower as operators run it (`node build/commands/cli.ts follow`) — on a folder, and on S3 behind the
// conditional-write stand-in. Call useFollowerSuite inside the suite's describe: it registers the hooks.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "unstorage";
import { afterAll, afterEach, beforeAll } from "vitest";
import { runBuild, type BuildOptions } from "../build/pipeline/run.ts";
import { readPublished } from "../build/publish/snapshot.ts";
import { readText } from "../storage/json.ts";
import { documentKeyOf } from "../storage/layout.ts";
import { openStorage } from "../storage/open.ts";
import { makeOverlayMirror } from "./_edgar.ts";
import { startReplay, type EdgarReplay } from "./_edgar-replay.ts";
import { replaySource, spawnFollower, stopInProcessFollowers, type FollowerProcess } from "./_follower.ts";
import { memoryLogger } from "./_logger.ts";
import { removeDir } from "./_s3.ts";
import { useConditionalS3 } from "./_s3-suite.ts";

// AAPL, WMT, HD, Under Armour (UA and UAA), JNJ (its company facts are the test overlay's synthetic ones).
export const COMPANIES: Record<number, string> = { 320193: "AAPL", 104169: "WMT", 354950: "HD", 1336917: "UA", 200406: "JNJ" };
export const TICKERS = ["AAPL", "WMT", "HD", "UA", "UAA", "JNJ"];
// JNJ's Form 4 filed 2026-04 (one derivative grant row; its XML is in the fixtures), held back to be accepted.
export const JNJ_FORM4 = "0000200406-26-000108";
// Walmart's 10-Q for the quarter to 2026-04-30 (EDGAR accepted it on 2026-05-29; the replay, again, while a test runs).
export const WMT_10Q = "0000104169-26-000102";
// JNJ's 10-Q of 2026-04-22, inline XBRL: the overlay's synthetic company facts never show its accession, as EDGAR's
// never show one from a filing whose XBRL holds no company-wide us-gaap facts (a 10-K/A adding only Part III).
export const JNJ_10Q = "0000200406-26-000087";
// The covered company whose CIK is the highest: a gap's sweep of the submissions ends with it (Under Armour).
export const LAST_CIK = 1336917;
// The follower's intervals for tests: a poll every 100 ms, a lease that a dead follower loses in 3 s.
export const FAST = { FOLLOW_LEASE_TTL_MS: "3000", FOLLOW_RENEW_MS: "500", FOLLOW_GAP_RETRY_MS: "300", FOLLOW_PRUNE_MS: "1000" };

/** The suite's hooks (S3, the overlay mirror, every replay, store and follower process cleaned up) and its helpers. */
export function useFollowerSuite() {
  let root: string;
  // Stopped after the followers and replays below (hooks after the tests run in reverse order).
  const suite = useConditionalS3();
  const dirs: string[] = [];
  const replays: EdgarReplay[] = [];
  const children: FollowerProcess[] = [];
  beforeAll(() => void (root = makeOverlayMirror()));
  afterEach(stopInProcessFollowers);
  afterAll(async () => {
    for (const c of children) c.child.kill("SIGKILL");
    for (const r of replays) await r.close();
    [root, ...dirs].forEach(removeDir);
  });

  /**
   * A replaying EDGAR holding back the newest `hold` filings (and JNJ's Form 4, Walmart's 10-Q and the `also`), and a
   * store built from it (by a build that began at `builtAt`, by default now).
   */
  async function setup(hold: number, options: { location?: string; also?: string[]; builtAt?: Date; tickers?: string[]; predecessors?: BuildOptions["predecessors"] } = {}) {
    const replay = await startReplay(root, Object.keys(COMPANIES).map(Number), hold, [JNJ_FORM4, WMT_10Q, ...(options.also ?? [])]);
    replays.push(replay);
    const where = options.location ?? mkdtempSync(join(tmpdir(), "follow-"));
    if (!options.location) dirs.push(where);
    const storage = openStorage(where, suite.conditional.env);
    const { builtAt, predecessors } = options;
    const tickers = options.tickers ?? TICKERS;
    await runBuild({ source: replaySource(replay), storage, log: memoryLogger(), tickers, workers: 0, ...(builtAt ? { now: () => builtAt } : {}), ...(predecessors ? { predecessors } : {}) });
    return { replay, location: where, storage };
  }

  /** A replay and a store built from it by a build that began an hour ago. */
  async function builtAnHourAgo() {
    // Half a second into its second: a filing accepted later in that second is one the build may not have seen.
    const builtAt = new Date(Math.floor((Date.now() - 3_600_000) / 1000) * 1000 + 500);
    const made = await setup(40, { builtAt });
    return { ...made, builtAt };
  }

  /** The accepted filings no published filings document lists yet (each under its company's ticker). */
  async function unpublished(replay: EdgarReplay, storage: Storage): Promise<string[]> {
    const manifest = (await readPublished(storage))!.manifest;
    const docs = new Map<string, string>();
    const missing: string[] = [];
    for (const accession of replay.accepted.keys()) {
      const key = documentKeyOf(manifest, COMPANIES[replay.filing(accession).cik]!, "filings");
      if (!docs.has(key)) docs.set(key, (await readText(storage, key)) ?? "");
      if (!docs.get(key)!.includes(`"accession_number":"${accession}"`)) missing.push(accession);
    }
    return missing;
  }

  /** Accepts the next `n` held filings, `gapMs` apart. */
  async function accept(replay: EdgarReplay, n: number, gapMs = 50): Promise<string[]> {
    const out: string[] = [];
    for (const filing of replay.held().slice(0, n)) {
      replay.accept(filing.accession);
      out.push(filing.accession);
      if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
    }
    return out;
  }


  /** `dataset follow` as operators start it, over the replay and a store (`env` added to its environment). */
  const cli = (replay: EdgarReplay, location: string, extra: string[] = [], env: Record<string, string> = {}) => {
    const child = spawnFollower(["--source", replay.url, "--data", location, "--poll-ms", "100", ...extra], { ...suite.conditional.env, ...FAST, ...env });
    children.push(child);
    return child;
  };


  return { suite, setup, builtAnHourAgo, unpublished, accept, cli, children };
}
