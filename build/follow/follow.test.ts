// The follower end to end (issue 19), on real filings (test/_follow-suite.ts): publishing what EDGAR accepts, killed and
// started again, and the gaps a feed that holds only its newest entries leaves — in this process, or as operators run
// it. What is checked is what users get: paid answers that contain each filing, no filing missed. Its other half,
// beside company facts, other writers and EDGAR's budget, is follow-writers.test.ts.
import { expect, it } from "vitest";
import { readText } from "../../storage/json.ts";
import { documentKeyOf } from "../../storage/layout.ts";
import { readLease } from "../../storage/lease.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { COMPANIES, JNJ_FORM4, LAST_CIK, useFollowerSuite, WMT_10Q } from "../../test/_follow-suite.ts";
import { followInProcess } from "../../test/_follower.ts";
import { testGateway } from "../../test/_gateway.ts";
import { readPublished } from "../publish/snapshot.ts";

describeEdgar("the follower: publishing, restarts and gaps", () => {
  const { suite, setup, builtAnHourAgo, unpublished, accept, cli } = useFollowerSuite();

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

  it("publishes a new 10-Q's segments with the rest of it: Apple's quarter to 2025-06-28 by segment (its regions), from its own XBRL", async () => {
    // Apple's 10-Q of 2025-08-01 (inline XBRL in the fixtures, cut to the facts /segments reads), held back, then accepted.
    const AAPL_10Q = "0000320193-25-000073";
    const { replay, location, storage } = await setup(0, { also: [AAPL_10Q] });
    const gw = testGateway(location);
    gw.snapshots.watch(100);
    const { key } = await gw.keys.create(null);
    const quarters = async () =>
      (await (await gw.get("/segments?ticker=AAPL&axis=business&period=quarterly&limit=50", { headers: { "x-api-key": key } })).json()).data as { source_accession: string; period_end: string }[];
    expect((await quarters()).some((r) => r.source_accession === AAPL_10Q)).toBe(false);
    const follower = followInProcess(replay, storage);
    replay.accept(AAPL_10Q);
    await expect.poll(async () => (await quarters()).find((r) => r.source_accession === AAPL_10Q)?.period_end, { timeout: 60_000, interval: 300 }).toBe("2025-06-28");
    await follower.stop();
    gw.close();
  }, 90_000);

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
    expect(published.gaps.map((g) => g.days)).toEqual([[replay.indexDay(WMT_10Q)]]);
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
    // The sweep's last companies may still be read after the first ones' filings are published.
    await expect.poll(() => logged("gap_swept"), { timeout: 30_000, interval: 100 }).toEqual([expect.objectContaining({ after: gap.after, before: gap.before, companies: 5 })]);
    expect(logged("gap_swept")[0].queued).toBeGreaterThan(0);
    // The gap stays recorded until the daily index, which names every company's filings, has been read too.
    await expect.poll(async () => (await readPublished(storage))!.manifest.follow?.gaps, { timeout: 10_000, interval: 100 }).toEqual([{ after: gap.after, before: gap.before, days: gap.days, swept_through: LAST_CIK }]);
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

});
