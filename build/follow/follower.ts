// `dataset follow`: a long-running writer that polls EDGAR's latest-filings feed every few seconds, rebuilds what each
// new filing changes for the companies of the published universe, and publishes incrementally (publish/) under the
// writer lease — which it yields to a build that asks for it. Where it stands in the feed is published with the
// documents, so a restart resumes there; a span the feed no longer covers is a gap, filled from the covered companies'
// submissions at once and from EDGAR's daily indexes once published (gaps.ts).
import pLimit from "p-limit";
import type { Storage } from "unstorage";
import type { Registry } from "prom-client";
import type { Logger } from "../../logging/log.ts";
import { countEvents } from "../../logging/metrics.ts";
import type { FeedGap, FollowedFiling, FollowerStatus, Manifest, ManifestTicker } from "../../schemas/snapshot.ts";
import { readText } from "../../storage/json.ts";
import { documentKeyOf, form4CacheKey, leaseWantedKey, snapshotPrefix } from "../../storage/layout.ts";
import { acquireLease, LeaseLostError, readLease, type Lease } from "../../storage/lease.ts";
import { openCompute, type Compute } from "../pipeline/compute.ts";
import { parseCompanyTickers, type TickerEntry } from "../parse/tickers.ts";
import { holderId, publish, WRITER_LEASE } from "../publish/publish.ts";
import { pruneStore } from "../publish/prune.ts";
import { companyCiks, PREDECESSORS, successors, type Predecessor } from "../predecessors.ts";
import { newBuildId, readPublished, refFreshness, refsOf, SnapshotWriter, type Published } from "../publish/snapshot.ts";
import { TICKERS_PATH } from "../sources/paths.ts";
import type { Source } from "../sources/source.ts";
import { filingsOf, readFeed, type FeedFiling } from "./feed.ts";
import { FollowMetrics } from "./metrics.ts";
import { easternDate, gapOf, indexFilings, readDay, submittedIn } from "./gaps.ts";
import { rebuild, scopeOf, widest, type Rebuilt, type Scope } from "./rebuild.ts";

/** How the follower runs; every interval has a default fit for live EDGAR. */
export interface FollowOptions {
  source: Source;
  storage: Storage;
  log: Logger;
  /** Feed polls: every `pollMs`, each of `feedTypes` ("" is every form), at most `maxPages` pages back. */
  pollMs?: number;
  feedTypes?: string[];
  maxPages?: number;
  /** Each poll reads back this far behind its published position too: a filing EDGAR lists late is still seen. */
  marginMs?: number;
  /** Companies rebuilt at once (requests are still paced by the source). */
  concurrency?: number;
  /** The writer lease: how long a renewal holds it, how often it is renewed (with the status /probe shows). */
  leaseTtlMs?: number;
  renewMs?: number;
  /** When another follower holds the lease: wait to take over when it stops (a standby), instead of exiting. */
  standby?: boolean;
  /**
   * How long a filing may take to appear in EDGAR's submissions (and a periodic report's XBRL in its company facts)
   * before it is recorded as unconfirmed, left to the next build.
   */
  confirmWithinMs?: number;
  gapRetryMs?: number;
  tickersEveryMs?: number;
  pruneEveryMs?: number;
  retention?: number;
  workers?: number;
  /** Earlier CIKs holding a company's history (default: build/predecessors.ts): their filings rebuild the company. */
  predecessors?: ReadonlyMap<number, readonly Predecessor[]>;
  /** Stops the follower: it publishes what it has, releases the lease and returns. */
  signal?: AbortSignal;
  now?: () => Date;
  /** Called after each publish (tests, the benchmark). */
  onPublish?: (event: { build_id: string; filings: string[]; documents_written: number }) => void;
  /** Where its metrics go (issue 42: `dataset follow` serves them on METRICS_PORT); its warn and error lines are counted too. */
  metrics?: Registry;
}

/** What a follower did, when it stops. */
export interface FollowSummary {
  polls: number;
  publishes: number;
  filings: number;
  documents_written: number;
  requests: number;
}

/** A filing waiting to be published: which of its companies still have to show it. */
interface Pending {
  filing: FeedFiling;
  /** CIKs of the universe it names, not yet confirmed (what their rebuild read shows it: rebuild.ts `waiting`). */
  ciks: Set<number>;
  attempts: number;
  dueAt: number;
}

/**
 * A gap being filled from submissions: the covered companies whose submissions are still to read (ascending CIKs), and
 * those read whose progress is not published yet, each with the filings its submissions listed in the gap.
 */
interface Sweep {
  gap: FeedGap;
  ciks: number[];
  companies: number;
  queued: number;
  read: { cik: number; accessions: string[] }[];
}

/** The lag of the filings published in the last hour, for the status. */
interface Lag {
  at: number;
  seconds: number;
}

const HOUR = 3_600_000;
/** The published position moves at least this often even when no document changed (a restart then reads less). */
const POSITION_EVERY_MS = 10 * 60_000;
/** Unconfirmed filings remembered in the manifest. */
const UNCONFIRMED_KEPT = 100;

/** Runs the follower until `signal` aborts; throws LeaseHeldError when another follower runs (unless `standby`). */
export async function follow(options: FollowOptions): Promise<FollowSummary> {
  const follower = new Follower(options);
  return follower.run();
}

class Follower {
  readonly #o: Required<Omit<FollowOptions, "signal" | "onPublish" | "metrics">> & Pick<FollowOptions, "signal" | "onPublish">;
  readonly #compute: Compute;
  readonly #metrics: FollowMetrics | null;
  #lease: Lease | null = null;
  #base!: Published;
  /** Every filing seen since the process started (accession → acceptance ms), trimmed to the last day. */
  readonly #seen = new Map<string, number>();
  readonly #queue = new Map<string, Pending>();
  /** The newest acceptance time the feed has shown. */
  #horizon: string | null = null;
  /** The end of the latest gap recorded: a span is recorded once, however many polls find the feed short of it. */
  #gapsThrough = "";
  /**
   * The filings a gap day's index queued, by day, while any is still queued: they have no acceptance time to hold the
   * published position back, so the day stays in its gap until they are done (a follower started again reads it again).
   */
  readonly #dayQueued = new Map<string, string[]>();
  readonly #sweeps: Sweep[] = [];
  readonly #lags: Lag[] = [];
  readonly #listed = new Map<string, Set<string>>();
  #status: FollowerStatus;
  readonly #summary: FollowSummary = { polls: 0, publishes: 0, filings: 0, documents_written: 0, requests: 0 };
  #next = { poll: 0, gaps: 0, tickers: 0, prune: 0, position: 0 };

  constructor(options: FollowOptions) {
    this.#o = {
      pollMs: 3_000,
      feedTypes: [""],
      maxPages: 10,
      marginMs: 120_000,
      concurrency: 4,
      leaseTtlMs: 60_000,
      renewMs: 20_000,
      standby: false,
      confirmWithinMs: 15 * 60_000,
      predecessors: PREDECESSORS,
      gapRetryMs: 10 * 60_000,
      tickersEveryMs: 15 * 60_000,
      pruneEveryMs: 10 * 60_000,
      retention: 4,
      workers: 0,
      now: () => new Date(),
      ...options,
      log: options.metrics ? { log: countEvents(options.metrics, options.log.log) } : options.log,
    };
    this.#compute = openCompute(this.#o.workers);
    const started = this.#o.now().toISOString();
    this.#status = { started_at: started, last_poll_at: null, last_publish_at: null, polls: 0, through: null, queued: 0, gaps: 0, lag_s: { filings: 0, p50: null, p99: null, max: null }, requests_per_s: 0 };
    this.#metrics = options.metrics
      ? new FollowMetrics(options.metrics, () => ({ status: this.#statusNow(), done: this.#summary, requests: this.#o.source.stats.requests }))
      : null;
  }

  async run(): Promise<FollowSummary> {
    const { log } = this.#o;
    try {
      await this.#acquire(false);
      // Gaps a follower before this one recorded: their sweeps of the submissions may not have finished.
      for (const gap of this.#follow.gaps) this.#sweepGap(gap);
      log.log("info", "follow_started", { holder: this.#lease!.record.holder, through: this.#follow.through, gaps: this.#follow.gaps.length, universe: Object.keys(this.#base.manifest.tickers).length });
      while (!this.#o.signal?.aborted) {
        if (await this.#lease!.wanted()) await this.#yield();
        const now = Date.now();
        if (now >= this.#next.poll) await this.#poll();
        if (now >= this.#next.gaps) await this.#fillGaps();
        if (now >= this.#next.tickers) await this.#newTickers();
        await this.#sweep();
        await this.#publish(await this.#process());
        if (Date.now() >= this.#next.prune) await this.#prune();
        await this.#sleep(Math.max(0, Math.min(this.#next.poll, this.#nextDue()) - Date.now()));
      }
      await this.#publish(await this.#process());
      return this.#summary;
    } catch (error) {
      if (error instanceof LeaseLostError) log.log("error", "follow_lease_lost", { error: error.message });
      throw error;
    } finally {
      await this.#lease?.release().catch(() => {});
      await this.#compute.close();
      this.#summary.requests = this.#o.source.stats.requests;
    }
  }

  get #follow(): NonNullable<Manifest["follow"]> {
    return this.#base.manifest.follow ?? { through: null, gaps: [], unconfirmed: [], published_filings: 0 };
  }

  /** Takes the writer lease (waiting when a build has it, or when a standby), then reads what is published now. */
  async #acquire(afterYield: boolean): Promise<void> {
    const waitMs = afterYield || this.#o.standby ? Number.MAX_SAFE_INTEGER : 0;
    this.#lease = await acquireLease(this.#o.storage, {
      name: WRITER_LEASE,
      holder: holderId("follow"),
      role: "follow",
      ttlMs: this.#o.leaseTtlMs,
      waitMs,
      pollMs: 1_000,
      onWait: (holder) => this.#o.log.log("info", "follow_waiting_for_lease", { holder: holder.holder, role: holder.role, expires_at: holder.expires_at }),
    });
    this.#lease.keepAlive(this.#o.renewMs, () => this.#statusNow());
    const published = await readPublished(this.#o.storage);
    if (!published) throw new Error("nothing is published in this store yet: run `npm run dataset -- build` first; the follower keeps a built snapshot fresh");
    this.#base = published;
    this.#listed.clear();
  }

  /** A build asked for the lease: publish what is done, release it, and take it back once the build has published. */
  async #yield(): Promise<void> {
    await this.#publish(await this.#process());
    this.#o.log.log("info", "follow_yielding", { to: "a build that asked for the writer lease" });
    const ours = this.#lease!.record.generation;
    await this.#lease!.release();
    // Until the one who asked has taken it (or has given up asking), not to take it straight back.
    const until = Date.now() + this.#o.leaseTtlMs;
    while (Date.now() < until && !this.#o.signal?.aborted) {
      const record = await readLease(this.#o.storage, WRITER_LEASE);
      if ((record && record.generation > ours) || !(await this.#o.storage.hasItem(leaseWantedKey(WRITER_LEASE)))) break;
      await this.#sleep(200);
    }
    await this.#acquire(true);
    this.#o.log.log("info", "follow_resumed", { snapshot: this.#base.pointer.build_id });
  }

  /**
   * Reads each feed back to the published position — before the follower has one, to the last build, which read every
   * company after it began — new filings join the queue; a span not reached is a gap.
   */
  async #poll(): Promise<void> {
    this.#next.poll = Date.now() + this.#o.pollMs;
    const lastBuild = this.#base.manifest.builds?.[0]?.built_at ?? this.#base.manifest.built_at;
    // The feed gives seconds: a build's time (milliseconds) is read as just before its second, as #through's positions
    // are, so that a filing accepted later in that very second is never taken for one the build saw.
    const buildPosition = new Date(Math.floor(Date.parse(lastBuild) / 1000) * 1000 - 1).toISOString();
    const position = this.#follow.through ?? buildPosition;
    const since = new Date(Date.parse(position) - this.#o.marginMs).toISOString();
    const seenAt = this.#o.now().toISOString();
    // Earlier polls read the feed up to its newest entry then: a later read that does not reach back leaves a gap only
    // from there (less the margin for filings EDGAR lists late), not from a published position held back meanwhile
    // (a 10-Q waiting for its company facts) — else each poll of a busy feed recorded, and swept, a gap it had read.
    const readBefore = this.#horizon === null ? "" : new Date(Date.parse(this.#horizon) - this.#o.marginMs).toISOString();
    for (const type of this.#o.feedTypes) {
      let read;
      try {
        read = await readFeed(this.#o.source, { type, since, maxPages: this.#o.maxPages });
      } catch (error) {
        this.#o.log.log("warn", "feed_unreadable", { type, error: (error as Error).message });
        continue;
      }
      for (const filing of filingsOf(read.entries, seenAt)) {
        if (filing.accepted_at! > (this.#horizon ?? "")) this.#horizon = filing.accepted_at;
        if (this.#seen.has(filing.accession)) continue;
        this.#seen.set(filing.accession, Date.parse(filing.accepted_at!));
        // Accepted by the published position (read again within the margin): published already.
        if (filing.accepted_at! <= position) continue;
        await this.#enqueue(filing, false);
      }
      // Not reached: the pages ran out, or the feed ended (EDGAR's holds a fixed number of entries). Either way a filing
      // accepted after the published position (or the last build's second, before which it read everything, the end
      // of a gap recorded already, or what earlier polls read) and before the oldest entry read — or in the oldest
      // entry's own second, which the feed may have cut in two (it gives seconds) — may never have been listed to this
      // follower.
      if (!read.reached && read.oldest !== null && read.oldest > position) {
        const after = [position, buildPosition, this.#gapsThrough, readBefore].reduce((a, b) => (b > a ? b : a));
        if (after < read.oldest) this.#addGap(gapOf(after, read.oldest));
      }
    }
    this.#trimSeen();
    this.#summary.polls++;
    this.#status.polls++;
    this.#status.last_poll_at = seenAt;
  }

  /**
   * Queues a filing for the companies of the universe it names; with `unlessDone` (a gap's filing, which the feed may
   * have shown), only for those where it is not done yet. Whether the queue holds a filing it did not hold before.
   */
  async #enqueue(filing: FeedFiling, unlessDone: boolean): Promise<boolean> {
    const ciks = new Set<number>();
    for (const party of filing.parties) {
      for (const cik of this.#companiesOf(party.cik)) {
        if (unlessDone && (await this.#done(this.#tickersOf(cik)[0]!, filing))) continue;
        ciks.add(cik);
      }
    }
    if (!ciks.size) return false;
    const pending = this.#queue.get(filing.accession);
    if (pending) for (const cik of ciks) pending.ciks.add(cik);
    else this.#queue.set(filing.accession, { filing, ciks, attempts: 0, dueAt: 0 });
    return !pending;
  }

  /** Changes the follower's published state (gaps, unconfirmed filings): published with the next publish. */
  #setFollow(change: Partial<NonNullable<Manifest["follow"]>>): void {
    this.#base.manifest.follow = { ...this.#follow, ...change };
    this.#stateChanged = true;
  }

  #stateChanged = false;

  #addGap(gap: FeedGap): void {
    this.#setFollow({ gaps: [...this.#follow.gaps, gap] });
    this.#sweepGap(gap);
    this.#next.gaps = 0;
    this.#o.log.log("warn", "feed_gap", { after: gap.after, before: gap.before, days: gap.days });
  }

  /**
   * Fills a gap from the submissions of every covered company and its predecessors, in CIK order: the daily indexes
   * come only in the evening.
   * A request per company (for 7,500, about half an hour at half the follower's share of SEC's budget), once per gap:
   * a follower started again reads on after the CIK the gap says was swept through.
   */
  #sweepGap(gap: FeedGap): void {
    if (gap.before > this.#gapsThrough) this.#gapsThrough = gap.before;
    const from = gap.swept_through ?? 0;
    // A covered company's predecessors too (build/predecessors.ts): their filings change its documents.
    const covered = Object.values(this.#base.manifest.tickers).filter((t) => t.covered);
    const all = covered.flatMap((t) => companyCiks(t.cik, this.#o.predecessors));
    const ciks = [...new Set(all)].filter((cik) => cik > from).sort((a, b) => a - b);
    if (ciks.length) this.#sweeps.push({ gap, ciks, companies: ciks.length, queued: 0, read: [] });
  }

  /**
   * Reads the submissions the sweeps have left, a few companies at once, for half a poll interval at most: the feed is
   * still polled, and new filings published, on time. A company whose submissions cannot be read is left to the
   * daily index; one whose read an abort cut short, to the next follower.
   */
  async #sweep(): Promise<void> {
    const until = Date.now() + this.#o.pollMs / 2;
    let sweep: Sweep | undefined;
    while ((sweep = this.#sweeps.find((s) => s.ciks.length)) && Date.now() < until && !this.#o.signal?.aborted) {
      const seenAt = this.#o.now().toISOString();
      const chunk = sweep.ciks.splice(0, this.#o.concurrency);
      const found = await Promise.all(
        chunk.map((cik) =>
          submittedIn(this.#o.source, cik, sweep!.gap, seenAt).catch((error: Error) => {
            this.#o.log.log("warn", "gap_submissions_unreadable", { cik, error: error.message });
            return [];
          }),
        ),
      );
      if (this.#o.signal?.aborted) return; // the chunk's reads, cut short, are not taken for read
      for (const [k, cik] of chunk.entries()) {
        for (const filing of found[k]!) if (await this.#enqueue(filing, true)) sweep.queued++;
        sweep.read.push({ cik, accessions: found[k]!.map((f) => f.accession) });
      }
      if (sweep.ciks.length) continue;
      this.#stateChanged = true; // its progress is published at once, not with the next filing
      this.#o.log.log("info", "gap_swept", { after: sweep.gap.after, before: sweep.gap.before, companies: sweep.companies, queued: sweep.queued });
    }
  }

  /**
   * The recorded gaps with how far their sweeps have come: through the last CIK read with none before it whose filings
   * from the gap are still queued. A sweep is forgotten once wholly published, or once its gap is filled.
   */
  #sweptGaps(): FeedGap[] {
    const sameGap = (a: FeedGap, b: FeedGap) => a.after === b.after && a.before === b.before;
    // Whether a CIK's read still has filings queued for a company (its own, or the one it is a predecessor of).
    const queued = (read: Sweep["read"][number]) => read.accessions.some((a) => this.#companiesOf(read.cik).some((c) => this.#queue.get(a)?.ciks.has(c)));
    const gaps = this.#follow.gaps.map((gap) => {
      const sweep = this.#sweeps.find((s) => sameGap(s.gap, gap));
      let through: number | undefined;
      while (sweep?.read.length && !queued(sweep.read[0]!)) through = sweep.read.shift()!.cik;
      return through === undefined ? gap : { ...gap, swept_through: through };
    });
    const open = (s: Sweep) => (s.ciks.length || s.read.length) && gaps.some((g) => sameGap(g, s.gap));
    this.#sweeps.splice(0, this.#sweeps.length, ...this.#sweeps.filter(open));
    return gaps;
  }

  /**
   * Reads the daily indexes a gap needs, as EDGAR publishes them; a day read is done once the filings it queued are,
   * the gap once every day is.
   */
  async #fillGaps(): Promise<void> {
    this.#next.gaps = Date.now() + this.#o.gapRetryMs;
    const gaps = this.#follow.gaps;
    // A day no gap names any more (its gap ended otherwise) has nothing to hold.
    for (const day of this.#dayQueued.keys()) if (!gaps.some((g) => g.days.includes(day))) this.#dayQueued.delete(day);
    if (!gaps.length) return;
    const today = easternDate(Date.now());
    const left: FeedGap[] = [];
    for (const gap of gaps) {
      const days: string[] = [];
      for (const day of gap.days) {
        const queuedFrom = this.#dayQueued.get(day);
        if (queuedFrom) {
          if (queuedFrom.some((accession) => this.#queue.has(accession))) days.push(day);
          else this.#dayQueued.delete(day);
          continue;
        }
        let index;
        try {
          index = await readDay(this.#o.source, day, today);
        } catch (error) {
          this.#o.log.log("warn", "daily_index_unreadable", { day, error: (error as Error).message });
          days.push(day);
          continue;
        }
        if (index === "pending") days.push(day);
        if (typeof index !== "object") continue;
        const seenAt = this.#o.now().toISOString();
        const queued: string[] = [];
        for (const filing of indexFilings(index.rows, (cik) => this.#companiesOf(cik).length > 0, seenAt)) {
          if (!this.#queue.has(filing.accession) && (await this.#enqueue(filing, true))) queued.push(filing.accession);
        }
        if (queued.length) {
          this.#dayQueued.set(day, queued);
          days.push(day);
        }
        this.#o.log.log("info", "gap_day_read", { day, rows: index.rows.length, queued: queued.length });
      }
      if (days.length) left.push({ ...gap, days });
      else this.#o.log.log("info", "gap_filled", { after: gap.after, before: gap.before });
    }
    if (left.length !== gaps.length || left.some((g, i) => g.days.length !== gaps[i]!.days.length)) this.#setFollow({ gaps: left });
    this.#status.gaps = left.length;
  }

  /**
   * Companies newly listed in company_tickers.json since the follower started (a smaller universe a build published on
   * purpose stays as it is; the next build adds what was listed before): built whole and added to the universe.
   */
  async #newTickers(): Promise<void> {
    this.#next.tickers = Date.now() + this.#o.tickersEveryMs;
    let listed: Map<string, TickerEntry>;
    try {
      listed = parseCompanyTickers(await this.#o.source.getText(TICKERS_PATH)).byTicker;
    } catch (error) {
      this.#o.log.log("warn", "tickers_unreadable", { error: (error as Error).message });
      return;
    }
    const known = this.#listedTickers;
    this.#listedTickers = new Set(listed.keys());
    if (!known) return;
    const fresh = [...listed.values()].filter((t) => !known.has(t.ticker) && !Object.hasOwn(this.#base.manifest.tickers, t.ticker));
    if (!fresh.length) return;
    this.#o.log.log("info", "new_tickers", { tickers: fresh.map((t) => t.ticker).slice(0, 50), count: fresh.length });
    for (const t of fresh) this.#added.set(t.ticker, t);
  }

  /** The tickers company_tickers.json listed at the last look (null before the first). */
  #listedTickers: Set<string> | null = null;
  /** New listings waiting for their first build (ticker → entry). */
  readonly #added = new Map<string, TickerEntry>();

  /** Rebuilds every company with a due filing (and new listings); returns what to publish. */
  async #process(): Promise<Batch> {
    const now = Date.now();
    const byCik = new Map<number, { scope: Scope; filings: Pending[] }>();
    for (const pending of this.#queue.values()) {
      if (pending.dueAt > now) continue;
      for (const cik of pending.ciks) {
        const work = byCik.get(cik) ?? { scope: "filings" as Scope, filings: [] };
        work.scope = widest(work.scope, scopeOf(pending.filing.form));
        work.filings.push(pending);
        byCik.set(cik, work);
      }
    }
    const added = new Map<number, TickerEntry[]>();
    for (const entry of this.#added.values()) added.set(entry.cik, [...(added.get(entry.cik) ?? []), entry]);
    for (const cik of added.keys()) byCik.set(cik, { scope: "all", filings: byCik.get(cik)?.filings ?? [] });
    this.#added.clear();
    const batch: Batch = { id: newBuildId(this.#o.now(), "follow"), companies: [], filings: [] };
    if (!byCik.size) return batch;

    const writer = new SnapshotWriter(this.#o.storage, batch.id, this.#base.manifest);
    const limit = pLimit(this.#o.concurrency);
    await Promise.all(
      [...byCik].map(([cik, work]) =>
        limit(async () => {
          const tickers = added.get(cik)?.map((t) => t.ticker) ?? this.#tickersOf(cik);
          const builtAt = this.#o.now().toISOString();
          const ctx = { source: this.#o.source, compute: this.#compute, storage: this.#o.storage, builtAt, form4Since: this.#base.manifest.form4_since, predecessors: this.#o.predecessors };
          const names = new Map(tickers.map((t) => [t, this.#base.manifest.tickers[t]?.name ?? added.get(cik)?.find((e) => e.ticker === t)?.name ?? ""]));
          let rebuilt: Rebuilt | null;
          try {
            rebuilt = await rebuild(ctx, cik, { tickers, name: names.get(tickers[0]!)! }, work.scope, this.#base.manifest.tickers[tickers[0]!], work.filings.map((p) => p.filing));
          } catch (error) {
            this.#o.log.log("warn", "follow_company_failed", { cik, tickers, accessions: work.filings.map((p) => p.filing.accession), error: (error as Error).message });
            for (const pending of work.filings) this.#retry(pending, `CIK ${cik}: ${(error as Error).message}`);
            return;
          }
          if (rebuilt === null) {
            for (const pending of work.filings) pending.ciks.delete(cik);
            return;
          }
          // Published now even with a filing still waiting (a 10-Q whose company facts lag is in /filings/latest at
          // once); that filing is confirmed, and the company rebuilt again, once what it waits for shows it.
          const refs = rebuilt.kind === "covered" ? await writer.writeDocuments(tickers, rebuilt.docs, rebuilt.accepted) : {};
          const confirmed = work.filings.filter((p) => !rebuilt.waiting.has(p.filing.accession));
          for (const pending of confirmed) pending.ciks.delete(cik);
          for (const pending of work.filings.filter((p) => !confirmed.includes(p))) this.#retry(pending, rebuilt.waiting.get(pending.filing.accession)!);
          batch.companies.push({ tickers, names, rebuilt, refs, builtAt, confirmed: confirmed.map((p) => p.filing) });
        }),
      ),
    );
    for (const [accession, pending] of this.#queue) {
      if (pending.ciks.size === 0) {
        this.#queue.delete(accession);
        batch.filings.push(pending.filing);
      }
    }
    this.#summary.documents_written += writer.documentsWritten;
    batch.documentsWritten = writer.documentsWritten;
    return batch;
  }

  /** A filing its companies do not show yet: tried again with back-off, until given up to the next build. */
  #retry(pending: Pending, reason: string): void {
    pending.attempts++;
    const age = Date.now() - Date.parse(pending.filing.seen_at);
    if (age > this.#o.confirmWithinMs) {
      this.#queue.delete(pending.filing.accession);
      const at = this.#o.now().toISOString();
      const unconfirmed = [...pending.ciks].map((cik) => ({ accession: pending.filing.accession, cik, form: pending.filing.form, reason, at }));
      this.#setFollow({ unconfirmed: [...unconfirmed, ...this.#follow.unconfirmed].slice(0, UNCONFIRMED_KEPT) });
      this.#o.log.log("warn", "follow_unconfirmed", { accession: pending.filing.accession, reason });
      return;
    }
    pending.dueAt = Date.now() + Math.min(60_000, 1_000 * 2 ** Math.min(pending.attempts, 6));
  }

  /** Publishes a batch: the changed entries, the feed position, under the lease; current.json last. */
  async #publish(batch: Batch): Promise<void> {
    const now = this.#o.now();
    const through = this.#through();
    const moved = through !== this.#follow.through && Date.now() >= this.#next.position;
    if (!batch.companies.length && !moved && !this.#stateChanged) return;
    const base = this.#base.manifest;
    const tickers = { ...base.tickers };
    const publishedAt = now.toISOString();
    for (const company of batch.companies) {
      const followed = newest(company.confirmed, publishedAt);
      for (const ticker of company.tickers) {
        const previous = base.tickers[ticker];
        const entry = company.rebuilt.entry(previous);
        const named = { ...entry, name: company.names.get(ticker) || entry.name };
        if (company.rebuilt.kind === "not_covered") {
          tickers[ticker] = named as ManifestTicker;
          continue;
        }
        const documents = { ...refsOf(base, ticker), ...company.refs };
        const mine = `${snapshotPrefix(batch.id)}/`;
        const fresh = refFreshness(documents, previous, company.builtAt, (ref) => ref.key.startsWith(mine));
        tickers[ticker] = { ...named, documents, freshness: { ...named.freshness, ...fresh }, ...(followed ? { followed } : previous?.followed ? { followed: previous.followed } : {}) };
      }
    }
    const next: Manifest = {
      ...base,
      build_id: batch.id,
      kind: "follow",
      built_at: publishedAt,
      source: this.#o.source.name,
      requests: this.#o.source.stats.requests - this.#summary.requests,
      form4_fetched: 0,
      follow: { ...this.#follow, gaps: this.#sweptGaps(), through, published_filings: this.#follow.published_filings + batch.filings.length },
      tickers,
    };
    this.#base = await publish(this.#o.storage, this.#lease!, base, next, now);
    this.#stateChanged = false;
    this.#summary.requests = this.#o.source.stats.requests;
    this.#summary.publishes++;
    this.#summary.filings += batch.filings.length;
    this.#next.position = Date.now() + POSITION_EVERY_MS;
    const at = Date.now();
    const lags = batch.filings.map((filing) => (at - Date.parse(filing.seen_at)) / 1000);
    for (const seconds of lags) this.#lags.push({ at, seconds });
    this.#metrics?.published(lags);
    this.#status.last_publish_at = publishedAt;
    this.#status.through = through;
    this.#o.log.log("info", "follow_published", { build_id: batch.id, filings: batch.filings.map((f) => f.accession), companies: batch.companies.length, documents_written: batch.documentsWritten ?? 0, through });
    this.#o.onPublish?.({ build_id: batch.id, filings: batch.filings.map((f) => f.accession), documents_written: batch.documentsWritten ?? 0 });
  }

  /**
   * The newest position with nothing before it still waiting: just before the second of the feed's newest entry (the
   * feed gives seconds: more of that second may still come), or just before the oldest filing queued.
   */
  #through(): string | null {
    const published = this.#follow.through;
    let position = this.#horizon === null ? null : new Date(Date.parse(this.#horizon) - 1).toISOString();
    for (const pending of this.#queue.values()) {
      const accepted = pending.filing.accepted_at;
      if (accepted !== null && (position === null || accepted <= position)) position = new Date(Date.parse(accepted) - 1).toISOString();
    }
    if (position === null || (published !== null && position < published)) return published;
    return position;
  }

  async #prune(): Promise<void> {
    this.#next.prune = Date.now() + this.#o.pruneEveryMs;
    await this.#lease!.assertHeld();
    const outcome = await pruneStore(this.#o.storage, this.#base.manifest, { retention: this.#o.retention, now: this.#o.now() });
    if (outcome.snapshots.length || outcome.documents || outcome.temporaries) this.#o.log.log("info", "pruned", { snapshots: outcome.snapshots.length, documents: outcome.documents, temporaries: outcome.temporaries });
  }

  /** The tickers of a CIK in the published universe (several for class shares). */
  #tickersOf(cik: number): string[] {
    if (this.#cikIndex?.manifest !== this.#base.manifest) this.#cikIndex = { manifest: this.#base.manifest, byCik: cikIndex(this.#base.manifest) };
    return this.#cikIndex.byCik.get(cik) ?? [];
  }

  #cikIndex: { manifest: Manifest; byCik: Map<number, string[]> } | null = null;

  /**
   * The companies of the universe whose documents a CIK's filings change: its own, and the one whose history it holds
   * when it is a predecessor (build/predecessors.ts).
   */
  #companiesOf(cik: number): number[] {
    this.#successors ??= successors(this.#o.predecessors);
    const successor = this.#successors.get(cik);
    return (successor === undefined ? [cik] : [cik, successor]).filter((c) => this.#tickersOf(c).length > 0);
  }

  #successors: Map<number, number> | null = null;

  /**
   * Whether a filing is done for a ticker: its published filings document lists it — which a rebuild for a later
   * filing also does — and for a Form 4 its parsed XML is cached. A periodic report is always done again.
   */
  async #done(ticker: string, filing: FeedFiling): Promise<boolean> {
    const scope = scopeOf(filing.form);
    if (scope === "all" || !(await this.#lists(ticker, filing.accession))) return false;
    return scope === "filings" || (await this.#o.storage.hasItem(form4CacheKey(filing.accession)));
  }

  /** Whether a ticker's published filings document lists an accession (read once per document). */
  async #lists(ticker: string, accession: string): Promise<boolean> {
    const key = documentKeyOf(this.#base.manifest, ticker, "filings");
    let accessions = this.#listed.get(key);
    if (!accessions) {
      const text = await readText(this.#o.storage, key).catch(() => null);
      accessions = new Set(text ? [...text.matchAll(/"accession_number":"(\d{10}-\d{2}-\d{6})"/g)].map((m) => m[1]!) : []);
      if (this.#listed.size > 1_000) this.#listed.clear();
      this.#listed.set(key, accessions);
    }
    return accessions.has(accession);
  }

  #trimSeen(): void {
    const before = Date.now() - 24 * HOUR;
    for (const [accession, at] of this.#seen) if (at < before) this.#seen.delete(accession);
  }

  #nextDue(): number {
    let due = Infinity;
    for (const pending of this.#queue.values()) due = Math.min(due, pending.dueAt);
    return due;
  }

  #statusNow(): FollowerStatus {
    const hourAgo = Date.now() - HOUR;
    while (this.#lags.length && this.#lags[0]!.at < hourAgo) this.#lags.shift();
    const sorted = this.#lags.map((l) => l.seconds).sort((a, b) => a - b);
    const pick = (q: number) => (sorted.length ? round1(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!) : null);
    this.#status = {
      ...this.#status,
      queued: this.#queue.size,
      gaps: this.#follow.gaps.length,
      through: this.#follow.through,
      lag_s: { filings: sorted.length, p50: pick(0.5), p99: pick(0.99), max: sorted.length ? round1(sorted.at(-1)!) : null },
      requests_per_s: round1(this.#o.source.stats.requests / Math.max(1, (Date.now() - Date.parse(this.#status.started_at)) / 1000)),
    };
    return this.#status;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(10, ms));
      this.#o.signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}

/** One publish's work: the companies rebuilt and the filings they confirmed. */
interface Batch {
  id: string;
  companies: {
    tickers: string[];
    names: Map<string, string>;
    rebuilt: Rebuilt;
    refs: Awaited<ReturnType<SnapshotWriter["writeDocuments"]>>;
    builtAt: string;
    confirmed: FeedFiling[];
  }[];
  /** Filings confirmed for every company they name. */
  filings: FeedFiling[];
  documentsWritten?: number;
}

/** The manifest's tickers by CIK. */
function cikIndex(manifest: Manifest): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [ticker, entry] of Object.entries(manifest.tickers)) out.set(entry.cik, [...(out.get(entry.cik) ?? []), ticker]);
  return out;
}

/** The newest of a company's confirmed filings, as its `followed` record. */
function newest(filings: FeedFiling[], publishedAt: string): FollowedFiling | null {
  const latest = filings.reduce<FeedFiling | null>((a, b) => (a === null || (b.accepted_at ?? "") > (a.accepted_at ?? "") ? b : a), null);
  if (!latest) return null;
  return { accession: latest.accession, form: latest.form, accepted_at: latest.accepted_at, seen_at: latest.seen_at, published_at: publishedAt, lag_s: round1((Date.parse(publishedAt) - Date.parse(latest.seen_at)) / 1000) };
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
