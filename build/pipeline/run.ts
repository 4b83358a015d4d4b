// A whole build: the universe from company_tickers.json, every company with bounded concurrency, then one
// snapshot published through publish/ (under the writer lease, current.json last) and old snapshots pruned.
// Documents whose content did not change are referenced, not written again. Tickers whose source failed keep their
// previous documents; a --tickers build carries every other ticker forward; a document the follower published after
// this build read its company stays the follower's. Throws (and publishes nothing) when nothing could be built.
import pLimit from "p-limit";
import type { Storage } from "unstorage";
import type { CoverageReason, DocumentKind, FollowState, Manifest, ManifestTicker } from "../../schemas/snapshot.ts";
import type { LeaseRecord } from "../../storage/lease.ts";
import { buildingKey, snapshotPrefix } from "../../storage/layout.ts";
import { buildCompany, NOT_COVERED, type CompanyOutcome } from "./company.ts";
import { CrossAssembler } from "../cross/assemble.ts";
import { companyCiks, PREDECESSORS, type Predecessor } from "../predecessors.ts";
import { describeSubject, MalformedInputError } from "../errors.ts";
import { defaultWorkers, openCompute } from "./compute.ts";
import { readForm4Index, type Form4Index } from "./form4-index.ts";
import type { Logger } from "../../logging/log.ts";
import { parseCompanyTickers, resolveTicker, type TickerEntry, type TickerMap } from "../parse/tickers.ts";
import { coveredEntry, withKinds } from "../publish/entry.ts";
import { publishBuild } from "../publish/publish.ts";
import { pruneStore } from "../publish/prune.ts";
import { followedSince, newBuildId, newestAccepted, readPublished, refFreshness, refsOf, SnapshotWriter, type DocumentRefs, type Published } from "../publish/snapshot.ts";
import { TICKERS_PATH } from "../sources/paths.ts";
import { SourceNotFoundError, type Source } from "../sources/source.ts";

/** How many tickers not covered an error names, before "and N more". */
const WHY_NOT_NAMED = 5;

/** Options of one build (CLI flags map onto these). */
export interface BuildOptions {
  source: Source;
  storage: Storage;
  log: Logger;
  /**
   * Rebuild only these tickers (any spelling); every other ticker of the published snapshot is carried forward
   * unchanged. Default: every ticker of company_tickers.json.
   */
  tickers?: string[];
  /** With `tickers`: publish exactly those as the universe, dropping every other ticker (`--universe-only`). */
  universeOnly?: boolean;
  /** Form 4 look-back in days (default 730, two years). */
  lookbackDays?: number;
  /** Only periodic reports filed on or after this date (YYYY-MM-DD) are read for /segments (default: every inline XBRL one). */
  segmentsSince?: string;
  /** Snapshots kept after publishing, the new one included (default 4). */
  retention?: number;
  /** Companies built at once (requests are still capped by the source's own limits). */
  concurrency?: number;
  /** Worker threads for parsing, deriving and encoding; 0 computes inline (default: compute.ts `defaultWorkers`). */
  workers?: number;
  /** Earlier CIKs holding a company's history (default: build/predecessors.ts). */
  predecessors?: ReadonlyMap<number, readonly Predecessor[]>;
  /**
   * False builds every document but the screens' timelines (no company has a value in any frame): the bulk
   * benchmark's baseline for what the cross-company screens cost (`npm run bench -- bulk N --baseline`).
   */
  screenTimelines?: boolean;
  /** How long to wait for the writer lease (a running follower yields it; another build publishing does not). */
  leaseWaitMs?: number;
  now?: () => Date;
  onProgress?: (progress: { done: number; total: number; requests: number }) => void;
}

/** What a build did, for the summary line and the exit code. */
export interface BuildSummary {
  build_id: string;
  tickers: number;
  covered: number;
  not_covered: Partial<Record<CoverageReason, number>>;
  failed: number;
  /** The tickers whose company failed in this build (`dataset audit` names each with its reason). */
  failed_tickers: string[];
  kept_previous: number;
  /** Each ticker a --tickers build names that it could not cover, with why: /probe's evidence, or not in the universe. */
  not_built: { ticker: string; why: string }[];
  /** Tickers of the previous snapshot outside this build's --tickers, published again unchanged. */
  carried_forward: number;
  /** Documents written; the others were unchanged and are referenced where an earlier publish wrote them. */
  documents_written: number;
  documents_unchanged: number;
  /** Tickers with a document the follower published after this build read their company: the follower's was kept. */
  kept_newer: number;
  requests: number;
  form4_fetched: number;
  form4_index_days: number;
  seconds: number;
  pruned: string[];
}

/** Runs one build and publishes it. */
export async function runBuild(opts: BuildOptions): Promise<BuildSummary> {
  const now = opts.now ?? (() => new Date());
  const started = now();
  const builtAt = started.toISOString();
  const buildId = newBuildId(started);
  const form4Since = new Date(started.getTime() - (opts.lookbackDays ?? 730) * 86_400_000).toISOString().slice(0, 10);
  const { source, storage, log } = opts;
  const subset = Boolean(opts.tickers?.length);
  if (opts.universeOnly && !subset) throw new Error("universeOnly needs the tickers that make the universe");

  const previous = await readPublished(storage).catch((error: Error) => {
    // A subset build over a snapshot it cannot read would publish a smaller universe without saying so.
    if (subset && !opts.universeOnly) {
      throw new Error(`the published snapshot cannot be read (${error.message}), so the tickers outside --tickers cannot be carried forward; repair the store, or publish only these tickers with --universe-only`);
    }
    log.log("warn", "previous_snapshot_unreadable", { error: error.message });
    return null;
  });
  const { universe, unknown } = selectUniverse(parseCompanyTickers(await readTickerMap(source)), opts.tickers, log);
  const byCik = new Map<number, TickerEntry[]>();
  for (const entry of universe) byCik.set(entry.cik, [...(byCik.get(entry.cik) ?? []), entry]);
  log.log("info", "build_started", { build_id: buildId, source: source.name, tickers: universe.length, companies: byCik.size, form4_since: form4Since });
  const form4Index = await incrementalIndex(source, previous, builtAt.slice(0, 10), log);
  // Incremental only for companies the last run rebuilt (their cache holds every Form 4 it could fetch); the others
  // discover from submissions, plus what the indexes name. A longer look-back than the last run's reaches Form 4s
  // it never tried, so then every company discovers from its submissions (the cached ones are not fetched again).
  const reached = previous !== null && previous.manifest.form4_since <= form4Since;
  const rebuilt = new Set(reached ? Object.values(previous.manifest.tickers).filter((t) => t.covered && !t.documents_from).map((t) => t.cik) : []);
  // A company's view holds its predecessors' indexed Form 4s too (build/predecessors.ts), each under its own CIK.
  const predecessors = opts.predecessors ?? PREDECESSORS;
  const incrementalFor = (cik: number) =>
    form4Index
      ? { after: rebuilt.has(cik) ? form4Index.after : null, indexed: companyCiks(cik, predecessors).flatMap((c) => form4Index.byCik.get(c) ?? []) }
      : undefined;

  // Pruning leaves this folder alone while the marker says a build may still be writing into it.
  await storage.setItemRaw(buildingKey(buildId), new TextEncoder().encode(JSON.stringify({ build_id: buildId, started_at: builtAt })));
  const writer = new SnapshotWriter(storage, buildId, previous?.manifest ?? null);
  const entries: Record<string, ManifestTicker> = {};
  /** When this build began reading each ticker's company: a document the follower published later is newer. */
  const readAt = new Map<string, string>();
  const summary: BuildSummary = {
    build_id: buildId,
    tickers: universe.length,
    covered: 0,
    not_covered: {},
    failed: 0,
    failed_tickers: [],
    kept_previous: 0,
    not_built: unknown.map((ticker) => ({ ticker, why: "not in company_tickers.json: EDGAR lists no such ticker, so it is not in this service's universe" })),
    carried_forward: 0,
    documents_written: 0,
    documents_unchanged: 0,
    kept_newer: 0,
    requests: 0,
    form4_fetched: 0,
    form4_index_days: form4Index?.days_read ?? 0,
    seconds: 0,
    pruned: [],
  };
  /** A full build's first tickers not covered: why, should it cover none. */
  const whyNot: BuildSummary["not_built"] = [];
  let done = 0;
  // A full build assembles the cross-company documents; a --tickers build keeps the last ones (the gateway lays the
  // companies it rebuilt over them, as it does the follower's) unless there are none, or it publishes its universe.
  const assembler = subset && !opts.universeOnly && previous?.manifest.cross ? null : new CrossAssembler();
  const concurrency = opts.concurrency ?? 4;
  const limit = pLimit(concurrency);
  const compute = openCompute(opts.workers ?? defaultWorkers(byCik.size, concurrency));
  try {
    await Promise.all(
      [...byCik].map(([cik, tickers]) =>
        limit(async () => {
          const names = tickers.map((t) => t.ticker);
          let outcome: CompanyOutcome | Failed;
          let refs: DocumentRefs = {};
          let reading = now().toISOString();
          try {
            const context = { source, compute, storage, builtAt, form4Since, incrementalFor, predecessors, segmentsSince: opts.segmentsSince, screenTimelines: opts.screenTimelines };
            outcome = await buildCompany(context, cik, { tickers: names, name: tickers[0]!.name });
            if (outcome.kind === "covered") {
              refs = await writer.writeDocuments(names, outcome.documents, outcome.accepted);
              summary.form4_fetched += outcome.form4.fetched;
              assembler?.add(outcome.cross, refs);
            }
          } catch (error) {
            outcome = { kind: "failed", error: (error as Error).message };
            if (error instanceof MalformedInputError) outcome.input_defect = { file: error.subject.path ?? describeSubject(error.subject), defect: error.defect };
            log.log("warn", "company_failed", { cik, tickers: names, error: outcome.error });
            // It keeps the documents published when this build began: whatever the follower published since is newer.
            reading = builtAt;
          }
          for (const entry of tickers) {
            entries[entry.ticker] = await manifestEntry(entry, outcome, refs, writer, previous, summary);
            readAt.set(entry.ticker, reading);
            if (outcome.kind === "failed") summary.failed_tickers.push(entry.ticker);
            if (outcome.kind !== "covered" && (subset || whyNot.length < WHY_NOT_NAMED)) {
              const why = outcome.kind === "failed" ? `failed: ${outcome.error}${entries[entry.ticker]!.covered ? "; its previous documents are still served" : ""}` : `not covered: ${outcome.evidence}`;
              (subset ? summary.not_built : whyNot).push({ ticker: entry.ticker, why });
            }
          }
          done += tickers.length;
          opts.onProgress?.({ done, total: universe.length, requests: source.stats.requests });
        }),
      ),
    );
  } finally {
    await compute.close();
  }

  let cross: Manifest["cross"];
  try {
    if (summary.covered === 0 && summary.kept_previous === 0) {
      // Say why, as /probe would (issue 42): the operator asked for these tickers and gets nothing.
      const reasons = [...summary.not_built, ...whyNot];
      const named = reasons.slice(0, WHY_NOT_NAMED).map((r) => `${r.ticker} ${r.why}`).join("; ");
      const more = universe.length + unknown.length > WHY_NOT_NAMED ? `; and ${universe.length + unknown.length - WHY_NOT_NAMED} more` : "";
      throw new Error(`nothing could be built: none of the ${universe.length} tickers is covered (${summary.failed} failed) — ${named}${more} (snapshot ${buildId} not published)`);
    }
    cross = await assembler?.write(storage, buildId, builtAt, previous?.manifest.cross);
  } finally {
    assembler?.dispose();
  }
  // Without an index read, this run discovered from submissions as of today: the next one reads from today on.
  const form4_index = form4Index
    ? { through: form4Index.through, incremental: true, days_read: form4Index.days_read, days_missing: form4Index.days_missing }
    : { through: dayBefore(builtAt), incremental: false, days_read: 0, days_missing: 0 };
  const publishing = {
    waitMs: opts.leaseWaitMs ?? 15 * 60_000,
    now,
    onWait: (holder: LeaseRecord) => log.log("info", "waiting_for_writer_lease", waitFields(holder)),
    // Read at the start too: a --tickers build that could not read it then has already refused.
    onUnreadable: (error: Error) => (log.log("warn", "previous_snapshot_unreadable", { error: error.message }), null),
  };
  const { published, lease } = await publishBuild(storage, publishing, async (current) => {
    // What is published now, which a follower may have moved on since this build began: each document it published
    // after this build read the company is newer than this build's, and stays (the others are this build's).
    const base = current?.manifest ?? null;
    const tickers: Record<string, ManifestTicker> = {};
    for (const [ticker, entry] of Object.entries(entries)) {
      const theirs = base?.tickers[ticker];
      const kinds = theirs?.covered ? followedSince(theirs, readAt.get(ticker)!) : [];
      if (kinds.length) summary.kept_newer++;
      tickers[ticker] = !kinds.length ? entry : entry.covered ? keepFollowed(entry, theirs!, kinds) : theirs!;
    }
    if (base && subset) {
      const others = Object.keys(base.tickers).filter((t) => !Object.hasOwn(entries, t));
      if (opts.universeOnly) {
        if (others.length) log.log("warn", "universe_only", { dropped: others.length, kept: universe.length });
      } else {
        await Promise.all(others.map((ticker) => limit(async () => (tickers[ticker] = await carriedEntry(ticker, current!, storage, log)))));
        summary.carried_forward = others.length;
      }
    }
    return {
      build_id: buildId,
      kind: "build",
      built_at: builtAt,
      source: source.name,
      form4_since: form4Since,
      requests: source.stats.requests,
      form4_fetched: summary.form4_fetched,
      form4_index,
      ...(base?.follow ? { follow: reconciled(base.follow, entries, builtAt) } : {}),
      ...((cross ?? base?.cross) ? { cross: cross ?? base!.cross! } : {}),
      tickers: sortKeys(tickers),
    } satisfies Manifest;
  });
  try {
    summary.documents_written = writer.documentsWritten;
    summary.documents_unchanged = writer.documentsReused;
    log.log("info", "published", { build_id: buildId, documents_written: writer.documentsWritten, documents_unchanged: writer.documentsReused, kept_newer: summary.kept_newer, requests: source.stats.requests, form4_fetched: summary.form4_fetched, form4_index });
    const pruned = await pruneStore(storage, published.manifest, { retention: opts.retention ?? 4, now: now() });
    summary.pruned = pruned.snapshots;
    if (pruned.snapshots.length || pruned.documents || pruned.temporaries) log.log("info", "pruned", { snapshots: pruned.snapshots, documents: pruned.documents, temporaries: pruned.temporaries });
    await storage.removeItem(buildingKey(buildId));
  } finally {
    await lease.release();
  }
  summary.failed_tickers.sort();
  summary.requests = source.stats.requests;
  summary.seconds = Math.round((now().getTime() - started.getTime()) / 100) / 10;
  return summary;
}

function waitFields(holder: LeaseRecord) {
  return { holder: holder.holder, role: holder.role, host: holder.host, pid: holder.pid, expires_at: holder.expires_at };
}

/** A company this build could not make: the error, and the file and defect when its input was malformed. */
type Failed = { kind: "failed"; error: string; input_defect?: ManifestTicker["input_defect"] };

async function manifestEntry(
  entry: TickerEntry,
  outcome: CompanyOutcome | Failed,
  refs: DocumentRefs,
  writer: SnapshotWriter,
  previous: Published | null,
  summary: BuildSummary,
): Promise<ManifestTicker> {
  const base = { cik: entry.cik, name: entry.name };
  const before = previous?.manifest.tickers[entry.ticker];
  if (outcome.kind === "covered") {
    summary.covered++;
    const mine = snapshotPrefix(writer.buildId) + "/";
    const fresh = refFreshness(refs, before, outcome.freshness.built_at!, (ref) => ref.key.startsWith(mine));
    return { ...coveredEntry(entry.cik, entry.name, outcome), freshness: { ...outcome.freshness, ...fresh }, documents: refs };
  }
  if (outcome.kind === "not_covered") {
    summary.not_covered[outcome.reason] = (summary.not_covered[outcome.reason] ?? 0) + 1;
    return { ...base, covered: false, reason: outcome.reason, evidence: outcome.evidence, ...NOT_COVERED };
  }
  summary.failed++;
  const failure = { error: outcome.error, ...(outcome.input_defect ? { input_defect: outcome.input_defect } : {}) };
  // The source failed for this ticker: keep what the previous snapshot served (DESIGN "Storage and publishing").
  if (before?.covered && previous && (await documentsExist(writer.storage, previous.manifest, entry.ticker))) {
    summary.kept_previous++;
    const { input_defect: _earlier, ...kept } = before;
    return { ...kept, documents: refsOf(previous.manifest, entry.ticker), documents_from: before.documents_from ?? previous.pointer.build_id, ...failure };
  }
  summary.not_covered.source_failed = (summary.not_covered.source_failed ?? 0) + 1;
  const evidence = outcome.input_defect
    ? `EDGAR's ${outcome.input_defect.file} was malformed in the latest build (${outcome.input_defect.defect}) and no earlier documents exist; the next build tries again`
    : "EDGAR could not be read for it in the latest build and no earlier documents exist; the next build tries again";
  return { ...base, covered: false, reason: "source_failed", evidence, ...NOT_COVERED, ...failure };
}

/**
 * A build's entry with the follower's documents of `kinds` (published after this build read the company) and the
 * fields that describe them; its freshness is the later of the two.
 */
function keepFollowed(entry: ManifestTicker, theirs: ManifestTicker, kinds: DocumentKind[]): ManifestTicker {
  const merged = withKinds(entry, theirs, kinds);
  const documents: DocumentRefs = { ...entry.documents, ...Object.fromEntries(kinds.map((kind) => [kind, theirs.documents![kind]])) };
  const later = (a: string | null | undefined, b: string | null | undefined) => ((a ?? "") > (b ?? "") ? a : b) ?? null;
  const freshness = {
    ...merged.freshness,
    built_at: later(entry.freshness.built_at, theirs.freshness.built_at),
    changed_at: later(entry.freshness.changed_at, theirs.freshness.changed_at),
    newest_accepted_at: newestAccepted(documents),
  };
  return { ...merged, documents, freshness, ...(theirs.followed ? { followed: theirs.followed } : {}) };
}

/**
 * A ticker outside a --tickers build, as the published snapshot has it: its entry and documents unchanged (by
 * reference; original built_at), marked `documents_from` so the next run discovers its Form 4s afresh.
 */
async function carriedEntry(ticker: string, current: Published, storage: Storage, log: Logger): Promise<ManifestTicker> {
  const before = current.manifest.tickers[ticker]!;
  if (!before.covered) return before;
  if (await documentsExist(storage, current.manifest, ticker)) {
    return { ...before, documents: refsOf(current.manifest, ticker), documents_from: before.documents_from ?? current.pointer.build_id };
  }
  const error = `its documents in ${current.pointer.build_id} are missing, and this --tickers build did not rebuild it`;
  log.log("warn", "carry_forward_failed", { ticker, error });
  const evidence = "its earlier documents were missing when a build of other tickers carried it forward; the next build that names it rebuilds it";
  return { cik: before.cik, name: before.name, covered: false, reason: "source_failed", evidence, ...NOT_COVERED, error };
}

/** Whether every document a manifest names for a ticker is in the store. */
async function documentsExist(storage: Storage, manifest: Manifest, ticker: string): Promise<boolean> {
  const refs = Object.values(refsOf(manifest, ticker));
  return (await Promise.all(refs.map((ref) => storage.hasItem(ref.key)))).every(Boolean);
}

/** The daily indexes since the previous run's coverage; null on a first run or when falling back to submissions. */
async function incrementalIndex(source: Source, previous: Published | null, today: string, log: Logger): Promise<Form4Index | null> {
  const after = previous?.manifest.form4_index?.through;
  return after ? readForm4Index(source, after, today, log) : null;
}

function dayBefore(iso: string): string {
  return new Date(Date.parse(iso) - 86_400_000).toISOString().slice(0, 10);
}

/** The ticker map; a source without one is named, as no build can start there (a dir: folder not in EDGAR's layout). */
async function readTickerMap(source: Source): Promise<string> {
  try {
    return await source.getText(TICKERS_PATH);
  } catch (error) {
    if (!(error instanceof SourceNotFoundError)) throw error;
    throw new Error(`${source.describe(TICKERS_PATH)} does not exist: the source holds no ticker map, so there is no universe to build (a dir: or http source must be a mirror in EDGAR's URL layout, e.g. dir:test/fixtures/edgar)`);
  }
}

/** The companies to build (every ticker of the map, or those named) and the named tickers the map does not hold. */
function selectUniverse(map: TickerMap, wanted: string[] | undefined, log: Logger): { universe: TickerEntry[]; unknown: string[] } {
  if (!wanted?.length) return { universe: [...map.byTicker.values()], unknown: [] };
  const found = new Map<string, TickerEntry>();
  const unknown: string[] = [];
  for (const raw of wanted) {
    const entry = resolveTicker(map, raw);
    if (entry) found.set(entry.ticker, entry);
    else unknown.push(raw);
  }
  if (unknown.length) log.log("warn", "unknown_tickers", { tickers: unknown });
  if (!found.size) throw new Error(`none of the requested tickers is in company_tickers.json, this service's universe: ${unknown.join(", ")} (GET /tickers lists the covered ones)`);
  return { universe: [...found.values()], unknown };
}

/**
 * The follower's state as this build leaves it: a filing the follower gave up on before this build began is
 * reconciled for every company the build read afresh from EDGAR (a ticker that kept its previous documents was not).
 */
function reconciled(follow: FollowState, entries: Record<string, ManifestTicker>, builtAt: string): FollowState {
  const fresh = new Set(Object.values(entries).filter((e) => e.documents_from === undefined).map((e) => e.cik));
  return { ...follow, unconfirmed: follow.unconfirmed.filter((u) => u.at > builtAt || !fresh.has(u.cik)), published_filings: 0 };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}
