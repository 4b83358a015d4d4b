// The follower end to end (issue 19), on real filings: a loopback EDGAR (test/_edgar-replay.ts) holds back the newest
// filings of five companies of the fixtures and accepts them while the follower runs — in this process, or as
// operators run it (`node build/commands/cli.ts follow`, killed and started again, two at once) — on a folder and on S3 behind
// the conditional-write stand-in. What is checked is what users get: paid answers that contain each filing, every
// published snapshot complete, no filing missed.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "unstorage";
import { afterAll, beforeAll, expect, it } from "vitest";
import { memoryLogger } from "../../test/_logger.ts";
import { documentKeyOf } from "../../storage/layout.ts";
import { readText } from "../../storage/json.ts";
import { readLease } from "../../storage/lease.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, makeOverlayMirror } from "../../test/_edgar.ts";
import { startArrivalClock } from "../../test/_arrival-clock.ts";
import { startReplay, type EdgarReplay } from "../../test/_edgar-replay.ts";
import { followInProcess, replaySource, spawnFollower, type FollowerProcess } from "../../test/_follower.ts";
import { testGateway } from "../../test/_gateway.ts";
import { removeDir } from "../../test/_s3.ts";
import { useConditionalS3 } from "../../test/_s3-suite.ts";
import { readPublished } from "../publish/snapshot.ts";
import { easternDate } from "./gaps.ts";
import { runBuild } from "../pipeline/run.ts";
import { createHttpSource } from "../sources/http.ts";
import { TokenBucket } from "../sources/rate-limit.ts";

// AAPL, WMT, HD, Under Armour (UA and UAA), JNJ (its company facts are the test overlay's synthetic ones).
const COMPANIES: Record<number, string> = { 320193: "AAPL", 104169: "WMT", 354950: "HD", 1336917: "UA", 200406: "JNJ" };
const TICKERS = ["AAPL", "WMT", "HD", "UA", "UAA", "JNJ"];
// JNJ's Form 4 filed 2026-04 (one derivative grant row; its XML is in the fixtures), held back to be accepted.
const JNJ_FORM4 = "0000200406-26-000108";
// Walmart's 10-Q for the quarter to 2026-04-30 (EDGAR accepted it on 2026-05-29; the replay, again, while a test runs).
const WMT_10Q = "0000104169-26-000102";
// JNJ's 10-Q of 2026-04-22, inline XBRL: the overlay's synthetic company facts never show its accession, as EDGAR's
// never show one from a filing whose XBRL holds no company-wide us-gaap facts (a 10-K/A adding only Part III).
const JNJ_10Q = "0000200406-26-000087";
// The covered company whose CIK is the highest: a gap's sweep of the submissions ends with it (Under Armour).
const LAST_CIK = 1336917;
// The follower's intervals for tests: a poll every 100 ms, a lease that a dead follower loses in 3 s.
const FAST = { FOLLOW_LEASE_TTL_MS: "3000", FOLLOW_RENEW_MS: "500", FOLLOW_GAP_RETRY_MS: "300", FOLLOW_PRUNE_MS: "1000" };

describeEdgar("the follower", () => {
  let root: string;
  // Stopped after the followers and replays below (hooks after the tests run in reverse order).
  const suite = useConditionalS3();
  const dirs: string[] = [];
  const replays: EdgarReplay[] = [];
  const children: FollowerProcess[] = [];
  beforeAll(() => void (root = makeOverlayMirror()));
  afterAll(async () => {
    for (const c of children) c.child.kill("SIGKILL");
    for (const r of replays) await r.close();
    [root, ...dirs].forEach(removeDir);
  });

  /**
   * A replaying EDGAR holding back the newest `hold` filings (and JNJ's Form 4, Walmart's 10-Q and the `also`), and a
   * store built from it (by a build that began at `builtAt`, by default now).
   */
  async function setup(hold: number, options: { location?: string; also?: string[]; builtAt?: Date } = {}) {
    const replay = await startReplay(root, Object.keys(COMPANIES).map(Number), hold, [JNJ_FORM4, WMT_10Q, ...(options.also ?? [])]);
    replays.push(replay);
    const where = options.location ?? mkdtempSync(join(tmpdir(), "follow-"));
    if (!options.location) dirs.push(where);
    const storage = openStorage(where, suite.conditional.env);
    const { builtAt } = options;
    await runBuild({ source: replaySource(replay), storage, log: memoryLogger(), tickers: TICKERS, workers: 0, ...(builtAt ? { now: () => builtAt } : {}) });
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

  it("publishes each filing it sees within seconds: paid answers contain it, with when it changed and when EDGAR accepted it", async () => {
    const { replay, location, storage } = await setup(30);
    const gw = testGateway(location);
    gw.snapshots.watch(100);
    const { key } = await gw.keys.create(null);
    const paid = async (path: string) => (await gw.get(path, { headers: { "x-api-key": key } })).json();
    // AAPL's earnings: in the gateway's memory before the follower publishes anything.
    expect((await paid("/earnings/summary?ticker=AAPL")).meta.cache).toBe("miss");
    const follower = followInProcess(replay, storage);
    const accepted = await accept(replay, 12);
    for (const accession of [WMT_10Q, JNJ_FORM4]) if (!replay.accepted.has(accession)) accepted.push(replay.accept(accession).accession);
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    // A filing may be in a document rebuilt for an earlier one before its own turn comes: each is counted once done.
    await expect.poll(async () => (await readPublished(storage))!.manifest.follow?.published_filings, { timeout: 10_000 }).toBe(accepted.length);

    // Walmart's 10-Q: in /filings/latest and, through company facts, in /earnings/summary (Q1 of fiscal 2027).
    await expect.poll(async () => (await paid("/filings/latest?ticker=WMT&form=10-Q&limit=1")).data[0]?.accession_number, { timeout: 10_000 }).toBe(WMT_10Q);
    const earnings = await paid("/earnings/summary?ticker=WMT&period=quarterly");
    expect(earnings.data[0]).toMatchObject({ fiscal_year: 2027, fiscal_quarter: "Q1", period_end: "2026-04-30", source_accession: WMT_10Q });
    // Its meta: the snapshot the follower published, when the document changed, the 10-Q's acceptance time (to the second).
    const acceptedAt = new Date(Math.floor(replay.accepted.get(WMT_10Q)!.getTime() / 1000) * 1000).toISOString();
    expect(earnings.meta).toMatchObject({ source_accession: WMT_10Q, accepted_at: acceptedAt, snapshot: expect.stringMatching(/Z-follow-/) });
    expect(Date.parse(earnings.meta.changed_at)).toBeGreaterThan(Date.now() - 120_000);
    // JNJ's Form 4 (one derivative grant row): fetched, parsed, in /insiders.
    const insiders = await paid("/insiders?ticker=JNJ");
    expect(insiders.data.filter((t: { source_accession: string }) => t.source_accession === JNJ_FORM4)).toHaveLength(1);
    // AAPL's earnings did not change: the same document, still in memory, served from a newer snapshot.
    const apple = await paid("/earnings/summary?ticker=AAPL");
    expect(apple.meta).toMatchObject({ cache: "hit", snapshot: gw.snapshots.held!.pointer.build_id });

    // /probe: the follower running, its last poll and lag; per ticker, the last filing it published and its lag.
    await gw.snapshots.refresh();
    const probe = (await (await gw.get("/probe")).json()).data;
    expect(probe.follower).toMatchObject({ state: "running", gaps: [], unconfirmed: 0 });
    expect(probe.follower.published_filings).toBe(accepted.length);
    const wmt = (await (await gw.get("/probe?ticker=WMT")).json()).data;
    expect(wmt.follower.last_update).toMatchObject({ accession: expect.stringMatching(/^\d{10}-\d{2}-\d{6}$/), lag_s: expect.any(Number) });
    expect(wmt.freshness).toMatchObject({ changed_at: expect.any(String), newest_accepted_at: expect.any(String) });

    const summary = await follower.stop();
    expect(summary.filings).toBe(accepted.length);
    await gw.snapshots.refresh();
    expect((await (await gw.get("/probe")).json()).data.follower.state).toBe("stopped");
    gw.close();
  }, 90_000);

  /** `dataset follow` as operators start it, over the replay and a store. */
  const cli = (replay: EdgarReplay, location: string, extra: string[] = []) => {
    const child = spawnFollower(["--source", replay.url, "--data", location, "--poll-ms", "100", ...extra], { ...suite.conditional.env, ...FAST });
    children.push(child);
    return child;
  };

  it("killed (SIGKILL) while filings arrive and started again, on S3: nothing is missed", async () => {
    const { replay, location, storage } = await setup(40, { location: `s3://${suite.s3.bucket}/follow-killed` });
    const first = cli(replay, location);
    await first.waitFor("follow_started");
    await accept(replay, 10, 30); // JNJ's Form 4 and Walmart's 10-Q first: the oldest held back
    await first.waitFor("follow_published");
    const arriving = accept(replay, 10, 30);
    await new Promise((r) => setTimeout(r, 120));
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    await arriving;
    await accept(replay, 10, 0); // while it is down
    // Started again at once: the killed process's lease, on this machine, is not waited out.
    const second = cli(replay, location);
    await second.waitFor("follow_started", () => true, 20_000);
    await expect.poll(() => unpublished(replay, storage), { timeout: 60_000, interval: 300 }).toEqual([]);
    const published = (await readPublished(storage))!;
    expect(published.manifest.follow).toMatchObject({ gaps: [], unconfirmed: [] });
    const insiders = (await readText(storage, documentKeyOf(published.manifest, "JNJ", "insiders")))!;
    expect(insiders).toContain(`"source_accession":"${JNJ_FORM4}"`);
    // Stopped gracefully: it publishes what it holds and releases the lease.
    second.child.kill("SIGTERM");
    expect((await second.exited).code).toBe(0);
    expect((await readLease(storage, "writer"))!.released).toBe(true);
  }, 120_000);

  it("down longer than the feed holds: the gap is recorded once, and what the submissions did not list yet is filled from the daily index once EDGAR publishes it", async () => {
    const { replay, location, storage } = await setup(40);
    const first = cli(replay, location);
    await first.waitFor("follow_started");
    // All in one second (the feed gives seconds): three published, then 25 while it is down, of which the feed's depth
    // cuts the second in two — the ones cut off were accepted in the very second the published position reaches into.
    const second = Math.floor(Date.now() / 1000) * 1000;
    for (const filing of replay.held().slice(0, 3)) replay.accept(filing.accession, new Date(second));
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    first.child.kill("SIGKILL");
    await first.exited;
    replay.setFeedDepth(10); // the feed now lists the newest 10 entries only
    // EDGAR's JSON lagging behind its feed: the restarted follower's read of the submissions finds none of them.
    replay.setSubmissionsDelay(600_000);
    const whileDown = replay.held().slice(0, 25).map((f) => replay.accept(f.accession, new Date(second + 1)).accession);
    const restarted = cli(replay, location);
    const gap = await restarted.waitFor("feed_gap");
    expect(await restarted.waitFor("gap_swept")).toMatchObject({ after: gap.after, before: gap.before, companies: 5, queued: 0 });
    replay.setSubmissionsDelay(0);
    // The feed's newest filings are published; the ones it no longer lists wait for the day's index, recorded as a gap.
    // Swept through the last covered company (UA's CIK): a follower started again would not read them again.
    await expect.poll(async () => (await readPublished(storage))!.manifest.follow?.gaps, { timeout: 30_000, interval: 200 }).toEqual([
      { after: gap.after, before: gap.before, days: gap.days, swept_through: LAST_CIK },
    ]);
    await expect.poll(async () => (await unpublished(replay, storage)).length, { timeout: 30_000, interval: 200 }).toBeLessThan(whileDown.length);
    const waiting = await unpublished(replay, storage);
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((a) => whileDown.includes(a))).toBe(true);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await unpublished(replay, storage)).toEqual(waiting); // not skipped: still waiting, not given up
    // Every poll since found the feed short of the published position's second: one gap, recorded once.
    expect(restarted.lines.filter((l) => l.event === "feed_gap")).toHaveLength(1);
    expect((await readPublished(storage))!.manifest.follow?.gaps).toHaveLength(1);
    for (const day of gap.days as string[]) replay.publishIndex(day);
    await restarted.waitFor("gap_filled");
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    await expect.poll(async () => (await readPublished(storage))!.manifest.follow?.gaps, { timeout: 10_000 }).toEqual([]);
    restarted.child.kill("SIGTERM");
    await restarted.exited;
  }, 120_000);

  it("killed while a 10-Q only the daily index named waits for its company facts: started again, it publishes it", async () => {
    const { replay, location, storage, builtAt } = await builtAnHourAgo();
    replay.setFeedDepth(10);
    // EDGAR's JSON lagging behind its feed: the gap's sweep of the submissions finds nothing, and Walmart's 10-Q, once
    // the daily index names it, waits for company facts that show it (the delays reach back past the build).
    replay.setSubmissionsDelay(7_200_000);
    replay.setFactsDelay(7_200_000);
    const since = replay.held().slice(0, 25).map((f, i) => replay.accept(f.accession, new Date(builtAt.getTime() + (i + 1) * 120_000)).accession);
    expect(since.slice(0, 2).sort()).toEqual([JNJ_FORM4, WMT_10Q].sort()); // the oldest: cut off by the feed's depth
    const first = cli(replay, location);
    const gap = await first.waitFor("feed_gap");
    await first.waitFor("gap_swept");
    replay.setSubmissionsDelay(0);
    for (const day of gap.days as string[]) replay.publishIndex(day);
    // Every filing is listed, JNJ's Form 4 in /insiders, the published position beyond the 10-Q (the feed's newer
    // filings are), but Walmart's earnings still lack it.
    const manifest = async () => (await readPublished(storage))!.manifest;
    const wmtEarnings = async () => (await readText(storage, documentKeyOf(await manifest(), "WMT", "earnings")))!;
    await expect.poll(() => unpublished(replay, storage), { timeout: 60_000, interval: 200 }).toEqual([]);
    await expect.poll(async () => readText(storage, documentKeyOf(await manifest(), "JNJ", "insiders")), { timeout: 30_000, interval: 200 }).toContain(`"source_accession":"${JNJ_FORM4}"`);
    expect(await wmtEarnings()).not.toContain(`"source_accession":"${WMT_10Q}"`);
    const published = (await manifest()).follow!;
    expect(published.through! > replay.accepted.get(WMT_10Q)!.toISOString()).toBe(true);
    // The index named it and the position has no acceptance time of it to hold: its day stays in the gap meanwhile.
    expect(published.gaps.map((g) => g.days)).toEqual([[easternDate(replay.accepted.get(WMT_10Q)!.getTime())]]);
    first.child.kill("SIGKILL");
    await first.exited;
    replay.setFactsDelay(0);
    const second = cli(replay, location);
    await expect.poll(wmtEarnings, { timeout: 60_000, interval: 300 }).toContain(`"source_accession":"${WMT_10Q}"`);
    await expect.poll(async () => (await manifest()).follow?.gaps, { timeout: 30_000, interval: 200 }).toEqual([]);
    second.child.kill("SIGTERM");
    await second.exited;
  }, 120_000);

  it("started for the first time after a build, with more filings since than the feed holds: reads back to the build, records the gap once, fills it from the submissions at once", async () => {
    // A build that began an hour ago, and 25 filings accepted since, two minutes apart: the feed lists the newest 10 entries.
    const { replay, storage, builtAt } = await builtAnHourAgo();
    expect((await readPublished(storage))!.manifest.follow).toBeUndefined();
    replay.setFeedDepth(10);
    // The first in the build's own second, after it began (the feed and submissions say only the second).
    const since = replay.held().slice(0, 25).map((f, i) => replay.accept(f.accession, new Date(builtAt.getTime() + (i === 0 ? 100 : i * 120_000))).accession);
    const follower = followInProcess(replay, storage);
    const logged = (event: string) => follower.lines.map((l) => JSON.parse(l)).filter((l) => l.event === event);
    // Filings the feed no longer lists, accepted after the build began and before its oldest entry: a gap from just
    // before the build's second on (the feed's positions are seconds).
    await expect.poll(() => logged("feed_gap"), { timeout: 30_000, interval: 100 }).toEqual([expect.objectContaining({ after: new Date(builtAt.getTime() - 501).toISOString() })]);
    const [gap] = logged("feed_gap");
    // Filled from the companies' submissions without waiting for the evening's daily index: nothing is missing — the
    // oldest, JNJ's Form 4 (in the build's own second) and Walmart's 10-Q, are in /insiders and /earnings/summary (no
    // later filing rebuilt those).
    expect(since.slice(0, 2).sort()).toEqual([JNJ_FORM4, WMT_10Q].sort());
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    const manifest = async () => (await readPublished(storage))!.manifest;
    await expect.poll(async () => readText(storage, documentKeyOf(await manifest(), "JNJ", "insiders")), { timeout: 30_000, interval: 200 }).toContain(`"source_accession":"${JNJ_FORM4}"`);
    await expect.poll(async () => readText(storage, documentKeyOf(await manifest(), "WMT", "earnings")), { timeout: 30_000, interval: 200 }).toContain(`"source_accession":"${WMT_10Q}"`);
    expect(logged("gap_swept")).toEqual([expect.objectContaining({ after: gap.after, before: gap.before, companies: 5 })]);
    expect(logged("gap_swept")[0].queued).toBeGreaterThan(0);
    // The gap stays recorded until the daily index, which names every company's filings, has been read too.
    expect((await readPublished(storage))!.manifest.follow?.gaps).toEqual([{ after: gap.after, before: gap.before, days: gap.days, swept_through: LAST_CIK }]);
    for (const day of gap.days as string[]) replay.publishIndex(day);
    await expect.poll(async () => (await readPublished(storage))!.manifest.follow?.gaps, { timeout: 10_000, interval: 200 }).toEqual([]);
    expect(logged("feed_gap")).toHaveLength(1);
    await follower.stop();
  }, 90_000);

  it("stopped in the middle of a gap's sweep: a follower started again reads on from the company the gap was swept through", async () => {
    const { replay, storage, builtAt } = await builtAnHourAgo();
    replay.setFeedDepth(10);
    replay.held().slice(0, 25).forEach((f, i) => replay.accept(f.accession, new Date(builtAt.getTime() + (i + 1) * 120_000)));
    // One company at a time; from the third CIK on (AAPL), each read of the submissions takes 3 s.
    const submissionsOf = /^submissions\/CIK(\d{10})\.json$/;
    replay.setFaults((path) => (Number(submissionsOf.exec(path)?.[1] ?? 0) >= 320193 ? { kind: "slow", ms: 3_000 } : undefined));
    const first = followInProcess(replay, storage, { concurrency: 1 });
    const swept = async () => (await readPublished(storage))!.manifest.follow?.gaps[0]?.swept_through ?? 0;
    // WMT (104169) and JNJ (200406) read, their filings from the gap published: the gap says so.
    await expect.poll(swept, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(200406);
    await first.stop(); // the read in flight when it stops is not taken for read
    replay.setFaults(undefined);
    const through = await swept();
    expect(through).toBeLessThan(LAST_CIK);
    const second = followInProcess(replay, storage);
    const logged = (event: string) => second.lines.map((l) => JSON.parse(l)).filter((l) => l.event === event);
    await expect.poll(() => logged("gap_swept"), { timeout: 30_000, interval: 100 }).toHaveLength(1);
    // The sweep read only the companies after it (their submissions may still be read to publish a filing the first
    // follower had queued from the feed).
    const left = Object.keys(COMPANIES).map(Number).filter((cik) => cik > through);
    expect(left.length).toBeLessThanOrEqual(3);
    expect(logged("gap_swept")[0]).toMatchObject({ companies: left.length });
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    await expect.poll(swept, { timeout: 10_000, interval: 100 }).toBe(LAST_CIK);
    await second.stop();
  }, 90_000);

  it("a busy feed while a 10-Q holds the published position back: reads that overlap the last one record no gap", async () => {
    const { replay, storage, builtAt } = await builtAnHourAgo();
    replay.setFeedDepth(10);
    replay.setFactsDelay(7_200_000); // Walmart's 10-Q is not confirmed while this runs: the published position stays before it
    const minute = (n: number) => new Date(builtAt.getTime() + n * 60_000);
    replay.accept(WMT_10Q, minute(1));
    const follower = followInProcess(replay, storage, { marginMs: 1_000 });
    const logged = (event: string) => follower.lines.map((l) => JSON.parse(l)).filter((l) => l.event === event);
    await expect.poll(() => logged("follow_published").length, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);
    // Two filings a minute apart between polls, until the feed's ten entries reach back no further than the last few.
    for (let n = 2; n < 24; n += 2) {
      for (const [k, filing] of replay.held().filter((f) => f.accession !== JNJ_FORM4).slice(0, 2).entries()) replay.accept(filing.accession, minute(n + k));
      const polls = logged("follow_published").length;
      await expect.poll(() => logged("follow_published").length, { timeout: 10_000, interval: 50 }).toBeGreaterThan(polls);
    }
    expect((await readPublished(storage))!.manifest.follow?.through! < minute(1).toISOString()).toBe(true); // held back all along
    expect(logged("feed_gap")).toEqual([]);
    await follower.stop();
  }, 90_000);

  it("a periodic report is confirmed against company facts: listed at once, its earnings once the facts show it, left to the next build if they never do", async () => {
    const { replay, location, storage } = await setup(20, { also: [JNJ_10Q] });
    const built = (await readPublished(storage))!.manifest;
    const published = async () => (await readPublished(storage))!.manifest;
    const doc = async (ticker: string, kind: "filings" | "earnings") => (await readText(storage, documentKeyOf(await published(), ticker, kind)))!;
    const factsRead = (cik: string) => replay.log.filter((e) => e.path === `api/xbrl/companyfacts/CIK${cik}.json`).length;
    // Company facts lagging the submissions, as SEC says they may at peak. JNJ's 10-Q: its accession never shows in them.
    replay.setFactsDelay(600_000);
    const first = followInProcess(replay, storage);
    replay.accept(WMT_10Q);
    // In /filings/latest at once; not in the earnings, so not confirmed.
    await expect.poll(() => doc("WMT", "filings"), { timeout: 30_000, interval: 100 }).toContain(`"accession_number":"${WMT_10Q}"`);
    expect(await doc("WMT", "earnings")).not.toContain(WMT_10Q);
    expect((await published()).follow).toMatchObject({ published_filings: 0, unconfirmed: [] });
    // The facts catch up: read again, the earnings have the quarter, the filing is confirmed.
    replay.setFactsDelay(0);
    await expect.poll(async () => (await published()).follow?.published_filings, { timeout: 20_000, interval: 200 }).toBe(1);
    expect(JSON.parse(await doc("WMT", "earnings")).data).toContainEqual(expect.objectContaining({ fiscal_year: 2027, fiscal_quarter: "Q1", source_accession: WMT_10Q }));
    // Its entry keeps every field the build wrote (financials_exceptions among them), made afresh.
    const wmt = (await published()).tickers.WMT!;
    expect(Object.keys(wmt)).toEqual(expect.arrayContaining(Object.keys(built.tickers.WMT!)));
    expect(wmt.financials_exceptions).toEqual(expect.objectContaining({ periods: expect.any(Number) }));
    await first.stop();

    // JNJ's 10-Q, retried until the bound (here 1.5 s), is recorded unconfirmed for the next build.
    const jnjBefore = factsRead("0000200406");
    const follower = followInProcess(replay, storage, { confirmWithinMs: 1_500 });
    replay.accept(JNJ_10Q);
    await expect.poll(async () => (await published()).follow?.unconfirmed, { timeout: 30_000, interval: 300 }).toEqual([
      expect.objectContaining({ accession: JNJ_10Q, cik: 200406, form: "10-Q", reason: "not yet in the company facts of CIK 200406" }),
    ]);
    expect(await doc("JNJ", "filings")).toContain(`"accession_number":"${JNJ_10Q}"`);
    const given = factsRead("0000200406");
    expect(given).toBeGreaterThan(jnjBefore + 1);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(factsRead("0000200406")).toBe(given); // given up: not retried for ever
    const gw = testGateway(location);
    await gw.snapshots.refresh();
    expect((await (await gw.get("/probe")).json()).data.follower).toMatchObject({ unconfirmed: 1 });
    gw.close();
    await follower.stop();
  }, 90_000);

  it("two followers at once: one holds the writer lease, the other exits saying who does; a standby takes over when the first dies", async () => {
    const { replay, location, storage } = await setup(20);
    const [a, b] = [cli(replay, location), cli(replay, location)];
    const loser = await Promise.race([a.exited.then(() => a), b.exited.then(() => b)]);
    const winner = loser === a ? b : a;
    expect((await loser.exited).code).toBe(1);
    expect(loser.text.join("\n")).toMatch(/the writer lease is held by follow-\S+ \(follow, pid \d+ on .*\).*\n.*run this one with --standby/);
    await winner.waitFor("follow_started");
    const standby = cli(replay, location, ["--standby"]);
    await standby.waitFor("follow_waiting_for_lease");
    await accept(replay, 3, 20);
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    winner.child.kill("SIGKILL");
    await standby.waitFor("follow_started", () => true, 20_000);
    await accept(replay, 5, 20);
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    standby.child.kill("SIGTERM");
    await standby.exited;
  }, 120_000);

  it("a build asks for the writer lease: the follower yields, the build keeps what the follower published meanwhile, the follower resumes", async () => {
    const { replay, storage } = await setup(40);
    const follower = followInProcess(replay, storage);
    await accept(replay, 4, 20);
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    // A build paced at 50 requests a second (its Form 4 look-back alone takes seconds), filings arriving meanwhile.
    const slow = createHttpSource({ base: replay.url, bucket: new TokenBucket(50), backoffMs: 5 });
    const build = runBuild({ source: slow, storage, log: memoryLogger(), tickers: TICKERS, workers: 0, leaseWaitMs: 30_000 });
    await new Promise((r) => setTimeout(r, 500));
    await accept(replay, 6, 100);
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    const summary = await build;
    // Tickers the follower published after the build began keep the follower's version.
    expect(summary.kept_newer).toBeGreaterThan(0);
    expect(follower.lines.some((l) => l.includes('"follow_yielding"'))).toBe(true);
    // It takes the lease back once the build has published (it looks every second).
    await expect.poll(() => follower.lines.some((l) => l.includes('"follow_resumed"')), { timeout: 30_000, interval: 200 }).toBe(true);
    await expect.poll(async () => (await readPublished(storage))!.manifest.builds?.[0]?.build_id).toBe(summary.build_id);
    expect(await unpublished(replay, storage)).toEqual([]);
    await accept(replay, 4, 20);
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    await follower.stop();
  }, 120_000);

  it("a build keeps, kind by kind, the documents the follower published after it read the company, and its own fresher ones", async () => {
    const { replay, storage } = await setup(20);
    // A follower of Forms 4 alone (--feed-types 4): Walmart's 10-Q, accepted now, is left to the next build.
    replay.accept(WMT_10Q);
    const form4 = replay.held().find((f) => f.cik === 104169 && f.form === "4")!;
    const follower = followInProcess(replay, storage, { feedTypes: ["4"] });
    replay.accept(form4.accession);
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    await follower.stop();
    const theirs = (await readPublished(storage))!.manifest.tickers.WMT!;
    expect(theirs.followed).toMatchObject({ accession: form4.accession });
    // A build that began an hour ago, as a full one does, read Walmart before the follower published its Form 4.
    const summary = await runBuild({ source: replaySource(replay), storage, log: memoryLogger(), tickers: TICKERS, workers: 0, now: () => new Date(Date.now() - 3_600_000) });
    expect(summary.kept_newer).toBe(1);
    const manifest = (await readPublished(storage))!.manifest;
    const wmt = manifest.tickers.WMT!;
    // The follower's filings document (the Form 4's XML is not in the fixtures: its insiders document did not change),
    // with its fields; the build's earnings and financials, which hold the 10-Q the follower never read facts for.
    expect(theirs.documents!.filings!.key).toMatch(/Z-follow-/);
    expect(wmt.documents!.filings).toEqual(theirs.documents!.filings);
    expect(wmt.documents!.earnings!.key).toMatch(new RegExp(`^snapshots/${summary.build_id}/`));
    expect(wmt).toMatchObject({ followed: theirs.followed, counts: { filings: theirs.counts.filings }, freshness: { newest_filing: theirs.freshness.newest_filing } });
    const earnings = JSON.parse((await readText(storage, documentKeyOf(manifest, "WMT", "earnings")))!);
    expect(earnings.data).toContainEqual(expect.objectContaining({ fiscal_year: 2027, fiscal_quarter: "Q1", source_accession: WMT_10Q }));
    expect(wmt.counts.earnings_periods).toBe(earnings.data.length);
    expect(wmt.counts.financials_periods).toBe(JSON.parse((await readText(storage, documentKeyOf(manifest, "WMT", "financials")))!).data.length);
    expect(wmt.freshness.newest_period_end).toBe("2026-04-30");
  }, 90_000);

  it("every snapshot it publishes is complete: a reader polling current.json always finds the manifest and each document it names", async () => {
    const { replay, storage } = await setup(60);
    const follower = followInProcess(replay, storage, { pruneEveryMs: 100 });
    let reading = true;
    const seen = new Set<string>();
    const problems: string[] = [];
    const reader = (async () => {
      while (reading) {
        const published = await readPublished(storage).catch((error: Error) => (problems.push(error.message), null));
        if (!published || seen.has(published.pointer.build_id)) continue;
        seen.add(published.pointer.build_id);
        for (const [ticker, entry] of Object.entries(published.manifest.tickers)) {
          if (!entry.covered) continue;
          for (const kind of ["filings", "earnings", "insiders"] as const) {
            const key = documentKeyOf(published.manifest, ticker, kind);
            if (!(await storage.hasItem(key))) problems.push(`${published.pointer.build_id}: ${ticker} ${kind} ${key} missing`);
          }
        }
      }
    })();
    // Spread over five seconds, so that even on a loaded machine they make many publishes, not a few large ones.
    await accept(replay, 50, 100);
    await expect.poll(() => unpublished(replay, storage), { timeout: 60_000, interval: 300 }).toEqual([]);
    reading = false;
    await reader;
    await follower.stop();
    expect(problems).toEqual([]);
    expect(seen.size).toBeGreaterThan(5);
  }, 120_000);

  it("a build and the follower at once keep EDGAR under 10 requests in any second, together", async () => {
    const { replay, location, storage } = await setup(40);
    // Both reach the replay through a clock of its own, as SEC's servers would count their requests.
    const clock = await startArrivalClock(replay.url);
    const follower = spawnFollower(["--source", clock.url, "--data", location, "--poll-ms", "100"], { ...suite.conditional.env, ...FAST });
    children.push(follower);
    await follower.waitFor("follow_started");
    const { spawn } = await import("node:child_process");
    const build = spawn(process.execPath, ["build/commands/cli.ts", "build", "--source", clock.url, "--out", location, "--tickers", TICKERS.join(","), "--lookback-days", "120", "--workers", "0"], {
      env: { ...process.env, LOG_LEVEL: "info" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const buildLog: string[] = [];
    build.stderr!.on("data", (chunk: Buffer) => buildLog.push(chunk.toString()));
    const built = new Promise<number | null>((resolve) => build.once("exit", resolve));
    await accept(replay, 15, 200);
    expect(await built).toBe(0);
    await expect.poll(() => unpublished(replay, storage), { timeout: 60_000, interval: 300 }).toEqual([]);
    const peak = await clock.maxPerSecond();
    expect(peak).toBeLessThanOrEqual(10);
    expect(peak).toBeGreaterThanOrEqual(6); // the clock saw them, and the budget was used, not starved
    // Each held to its whole slots of SEC's 10 while the other ran: the follower (weight 2) 7, the build 3.
    expect(buildLog.join("")).toMatch(/"event":"request_budget","role":"build","slots":3,"requests_per_s":2.5,"processes":2/);
    await follower.waitFor("request_budget", (l) => l.slots === 7 && l.processes === 2);
    follower.child.kill("SIGTERM");
    await follower.exited;
    await clock.close();
  }, 180_000);
});
