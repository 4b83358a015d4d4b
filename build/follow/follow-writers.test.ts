// The follower end to end (issue 19), on real filings (test/_follow-suite.ts), beside what else writes and reads:
// periodic reports confirmed against company facts, two followers and the writer lease, a build at the same time,
// readers polling every snapshot, EDGAR's request budget shared with a build. Its first half is follow.test.ts.
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { readText } from "../../storage/json.ts";
import { documentKeyOf } from "../../storage/layout.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { startArrivalClock } from "../../test/_arrival-clock.ts";
import { FAST, JNJ_10Q, JNJ_FORM4, TICKERS, useFollowerSuite, WMT_10Q } from "../../test/_follow-suite.ts";
import { followInProcess, replaySource, spawnFollower } from "../../test/_follower.ts";
import { testGateway } from "../../test/_gateway.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { readPublished } from "../publish/snapshot.ts";
import { runBuild } from "../pipeline/run.ts";
import { createHttpSource } from "../sources/http.ts";
import { TokenBucket } from "../sources/rate-limit.ts";
import type { Source } from "../sources/source.ts";

describeEdgar("the follower beside company facts, other writers and EDGAR's budget", () => {
  const { suite, setup, unpublished, accept, cli, children } = useFollowerSuite();

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

    // JNJ's 10-Q, retried until the bound, is recorded unconfirmed for the next build. The first retry is due 2 s after
    // the first attempt, and a bound of 5 s leaves that attempt room on a loaded CI machine (a 1.5 s bound did not).
    const jnjBefore = factsRead("0000200406");
    const follower = followInProcess(replay, storage, { confirmWithinMs: 5_000 });
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
  }, 150_000);

  it("a predecessor's filings (build/predecessors.ts) rebuild the company whose history it holds, and its own, confirmed from the predecessor's files", async () => {
    // MSFT's CIK as a new holding company's (its submissions in the fixtures, no company facts), Walmart's its
    // predecessor; JNJ also made AAPL's. Walmart and JNJ stay companies of their own too.
    const predecessors = new Map([
      [789019, [{ cik: 104169, why: "test" }]],
      [320193, [{ cik: 200406, why: "test" }]],
    ]);
    const { replay, storage } = await setup(10, { tickers: [...TICKERS, "MSFT"], predecessors });
    const manifest = async () => (await readPublished(storage))!.manifest;
    expect((await manifest()).tickers.MSFT).toMatchObject({ covered: true });
    const follower = followInProcess(replay, storage, { predecessors });
    replay.accept(JNJ_FORM4);
    replay.accept(WMT_10Q);
    const doc = async (ticker: string, kind: "filings" | "insiders" | "earnings") => (await readText(storage, documentKeyOf(await manifest(), ticker, kind)))!;
    // Walmart's 10-Q: in MSFT's filings and, through Walmart's company facts, its earnings; and in Walmart's own.
    for (const ticker of ["MSFT", "WMT"]) {
      await expect.poll(() => doc(ticker, "earnings"), { timeout: 30_000, interval: 200 }).toContain(`"source_accession":"${WMT_10Q}"`);
      expect(await doc(ticker, "filings")).toContain(`"accession_number":"${WMT_10Q}"`);
    }
    // JNJ's Form 4: in AAPL's insiders and filings, and in JNJ's own.
    for (const ticker of ["AAPL", "JNJ"]) {
      await expect.poll(() => doc(ticker, "insiders"), { timeout: 30_000, interval: 200 }).toContain(`"source_accession":"${JNJ_FORM4}"`);
      expect(await doc(ticker, "filings")).toContain(`"accession_number":"${JNJ_FORM4}"`);
    }
    // Fetched from JNJ's folder, where it is: not recorded missing under AAPL's.
    expect((await manifest()).tickers.AAPL!.form4).toMatchObject({ missing: expect.not.arrayContaining([JNJ_FORM4]) });
    // Confirmed for every company: found in the predecessors' submissions and company facts, none left waiting.
    await expect.poll(async () => (await manifest()).follow?.published_filings, { timeout: 10_000 }).toBe(2);
    expect((await manifest()).follow?.unconfirmed).toEqual([]);
    await follower.stop();
  }, 120_000);

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
    // A build paced at 50 requests a second, filings arriving meanwhile. Its companies' submissions wait until the
    // follower has published those filings: the companies it began reading are older than the follower's documents,
    // however slow the machine (a build that raced ahead of a loaded follower kept nothing, and the test failed).
    const slow = createHttpSource({ base: replay.url, bucket: new TokenBucket(50), backoffMs: 5 });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const gated: Source = {
      ...slow,
      getText: async (path) => {
        if (path.startsWith("submissions/")) await released;
        return slow.getText(path);
      },
    };
    const build = runBuild({ source: gated, storage, log: memoryLogger(), tickers: TICKERS, workers: 0, leaseWaitMs: 30_000 });
    await new Promise((r) => setTimeout(r, 500));
    await accept(replay, 6, 100);
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    release();
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
    // A burst spread over five seconds, read while the follower publishes and prunes; on a loaded machine it may make
    // only a few large publishes, so more filings follow one at a time, each awaited, until the reader has seen six.
    await accept(replay, 50, 100);
    await expect.poll(() => unpublished(replay, storage), { timeout: 60_000, interval: 300 }).toEqual([]);
    while (seen.size <= 5) {
      await accept(replay, 1, 0);
      await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 100 }).toEqual([]);
      const current = (await readPublished(storage))!.pointer.build_id;
      await expect.poll(() => seen.has(current), { timeout: 30_000, interval: 50 }).toBe(true);
    }
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
