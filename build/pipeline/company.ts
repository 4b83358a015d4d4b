// One company of the universe, end to end: fetch its EDGAR files, have them made into its documents
// (documents.ts, through compute), with counts and freshness. Nothing here writes a snapshot (that is publish/).
import type { Storage } from "unstorage";
import { CompanyInfo } from "../../schemas/cross.ts";
import { DocumentMeta } from "../../schemas/document-meta.ts";
import type { FilingItem } from "../../schemas/filing.ts";
import type { InsiderTransaction } from "../../schemas/insider.ts";
import { normalizeTicker } from "../../schemas/primitives.ts";
import { encodeJson } from "../../storage/json.ts";
import type { Counts, Endpoints, ExceptionCounts, FinancialExceptionCounts, Freshness, ManifestTicker } from "../../schemas/snapshot.ts";
import type { Compute } from "./compute.ts";
import { applyAmendments } from "../derive/insiders.ts";
import { feedFrom, maxBy, type DocumentOrigin, type FactsResult, type FilingsResult, type FrameTexts, type SubmissionsText } from "./documents.ts";
import { describeSubject, NoXbrlHistoryError } from "../errors.ts";
import { earlierCiks, type Predecessor } from "../predecessors.ts";
import { loadForm4s, mergeLoads, type Form4Load, type IncrementalForm4s } from "./form4s.ts";
import { makeSegments } from "./segments.ts";
import type { EncodedDocuments } from "../publish/snapshot.ts";
import { companyFactsPath, filerFolderPath, submissionsPagePath, submissionsPath } from "../sources/paths.ts";
import { SourceNotFoundError, textIfFound, type Source } from "../sources/source.ts";
import type { DailyIndexRow } from "../parse/daily-index.ts";

/** What building one company produced. */
export type CompanyOutcome =
  | {
      kind: "covered";
      documents: EncodedDocuments;
      counts: Counts;
      earnings_exceptions: ExceptionCounts;
      financials_exceptions: FinancialExceptionCounts;
      freshness: Freshness;
      endpoints: Endpoints;
      form4: Omit<Form4Load, "filings">;
      /** What reading the periodic reports' XBRL found (issue 43). */
      segments: NonNullable<ManifestTicker["segments"]>;
      /** Acceptance times of the company's filings by accession (what each document reflects). */
      accepted: Record<string, string>;
      /** Its periodic reports without XBRL (documents.ts FilingsResult). */
      without_xbrl: string[];
      /** The predecessors (build/predecessors.ts) whose company facts or submissions the source had and the documents read. */
      earlier_ciks: number[];
      /** What the build's cross-company documents take from it (build/cross/assemble.ts). */
      cross: CompanyCross;
    }
  | { kind: "not_covered"; reason: "no_xbrl_history"; evidence: string };

/** The counts, freshness and endpoints of a ticker that is not covered. */
export const NOT_COVERED = {
  counts: { filings: 0, earnings_periods: 0, insider_transactions: 0, financials_periods: 0, segment_periods: 0 },
  freshness: { newest_filing: null, newest_period_end: null, newest_form4: null, built_at: null },
  endpoints: { "/filings/latest": false, "/earnings/summary": false, "/insiders": false, "/financials": false, "/segments": false },
} as const satisfies { counts: Counts; freshness: Freshness; endpoints: Endpoints };

/** A company's part in a build's cross-company documents: who it is, its frames' timelines, its feeds' rows. */
export interface CompanyCross {
  company: CompanyInfo;
  /** Each frame's timelines as JSON text, by metric (FactsResult.frames). */
  frames: FrameTexts;
  filings: FilingItem[];
  insiders: InsiderTransaction[];
}

/** Who a company is in the universe: its tickers (the main one first) and its name, from company_tickers.json. */
export interface CompanyNames {
  tickers: string[];
  name: string;
}

/** Inputs shared by every company of a build. */
export interface CompanyContext {
  source: Source;
  /** Where parsing, deriving and encoding run (inline or on worker threads). */
  compute: Compute;
  storage: Storage;
  builtAt: string;
  /** Form 4s filed on or after this date are served (DESIGN: a two-year look-back by default). */
  form4Since: string;
  /** The daily-index view of a CIK when this run is incremental for it; undefined means discover from submissions. */
  incrementalFor?: (cik: number) => IncrementalForm4s | undefined;
  /** Earlier CIKs holding a company's history (default: build/predecessors.ts). */
  predecessors?: ReadonlyMap<number, readonly Predecessor[]>;
  /** Only periodic reports filed on or after this date are read for /segments (default: all; build/pipeline/segments.ts). */
  segmentsSince?: string | undefined;
  /** False leaves the screen timelines out (BuildOptions.screenTimelines). */
  screenTimelines?: boolean | undefined;
}

/** The company facts of a company's curated predecessors (build/predecessors.ts) that the source has. */
async function predecessorFacts(ctx: CompanyContext, cik: number): Promise<{ cik: number; text: string }[]> {
  const out: { cik: number; text: string }[] = [];
  for (const earlier of earlierCiks(cik, ctx.predecessors)) {
    const text = await textIfFound(ctx.source, companyFactsPath(earlier));
    if (text !== null) out.push({ cik: earlier, text });
  }
  return out;
}

/**
 * Builds one CIK into its encoded documents. A company without XBRL financial history (company facts
 * missing, without us-gaap/ifrs-full facts, or without a single periodic-report period) is not covered — the
 * post-reorganisation shell rule (spec 1.6, pitfall 28) — and costs no further requests. Source, parse and schema
 * errors propagate: the ticker failed.
 */
export async function buildCompany(ctx: CompanyContext, cik: number, names: CompanyNames): Promise<CompanyOutcome> {
  const origin = (path: string) => ({ source_api: ctx.source.describe(path), built_at: ctx.builtAt });
  const factsPath = companyFactsPath(cik);
  let facts: FactsResult;
  let predecessors: { cik: number; text: string }[];
  try {
    predecessors = await predecessorFacts(ctx, cik);
    // A new holding company's shell may have no file yet: its history is its predecessors'.
    const own = predecessors.length ? await textIfFound(ctx.source, factsPath) : await ctx.source.getText(factsPath);
    facts = await ctx.compute.facts(own, cik, origin(factsPath), predecessors, ctx.screenTimelines ?? true);
  } catch (error) {
    // What the builder saw, stated as such (issue 16): the 404 and /probe repeat it instead of guessing a cause.
    if (error instanceof SourceNotFoundError) return notCovered(`the source has no company facts for CIK ${cik} (${factsPath}: not found)`);
    if (error instanceof NoXbrlHistoryError) return notCovered(`the company facts of CIK ${cik} hold ${withoutSubject(error)}`);
    throw error;
  }
  const { earnings, financials } = facts;
  if (earnings.bytes === null || financials === null) return notCovered(`the company facts of CIK ${cik} give no period from a periodic report (10-K, 10-Q, 20-F, 40-F)`);

  const filings = await loadFilings(ctx, cik);
  const insiders = await loadInsiders(ctx, cik, filings, ctx.incrementalFor?.(cik));
  const segments = await makeSegments(ctx, cik, filings.periodic_filings, filings.unread_pages, facts.periods);
  const company = companyInfo(cik, names, filings.company);
  // Each state names its own filing: the document as a whole has none to name.
  const screen = screenDocument(company, facts.frames, { ...origin(factsPath), source_accession: null, filed_at: null });
  return {
    kind: "covered",
    documents: { filings: filings.bytes, earnings: earnings.bytes, insiders: insiders.bytes, financials: financials.bytes, screen, segments: segments.bytes },
    cross: { company, frames: facts.frames, filings: filings.recent, insiders: insiders.recent },
    counts: { filings: filings.filings, earnings_periods: earnings.periods, insider_transactions: insiders.rows, financials_periods: financials.rows, segment_periods: segments.rows },
    earnings_exceptions: earnings.exceptions,
    financials_exceptions: financials.exceptions,
    freshness: {
      newest_filing: filings.newest_filing,
      newest_period_end: earnings.newest_period_end,
      newest_form4: insiders.newest_form4,
      built_at: ctx.builtAt,
    },
    endpoints: {
      "/filings/latest": filings.filings > 0,
      "/earnings/summary": true,
      "/insiders": insiders.rows > 0,
      "/financials": financials.rows > 0,
      "/segments": segments.rows > 0,
    },
    form4: insiders.form4,
    segments: segments.stats,
    accepted: filings.accepted,
    without_xbrl: filings.without_xbrl,
    earlier_ciks: [...new Set([...predecessors.map((p) => p.cik), ...filings.earlier_ciks])].sort((a, b) => a - b),
  };
}

/** The insiders document of a company, from the Form 4s its filings list (and the indexed ones), with what it shows. */
export interface InsidersResult {
  bytes: Uint8Array;
  rows: number;
  /** The rows of the market feed's window (feedFrom: by transaction date), newest first. */
  recent: InsiderTransaction[];
  newest_form4: string | null;
  form4: Omit<Form4Load, "filings">;
}

/**
 * Loads the company's Form 4s (parsed once, cached by accession) and makes its insiders document: the company's own
 * and its predecessors', each fetched from the folder of the CIK that lists it (or that the daily indexes name it
 * under). Only the company's own CIK reads incrementally (`incremental.after`): a predecessor's Form 4s are found from
 * its submissions, so a company given a predecessor since the last run reaches every one of them.
 */
export async function loadInsiders(ctx: CompanyContext, cik: number, filings: FilingsResult, incremental?: IncrementalForm4s): Promise<InsidersResult> {
  // Each Form 4 under one CIK: the first whose submissions list it (one naming both is fetched once), else the one
  // the indexes name it under.
  const listedBy = new Map<string, number>();
  const byCik = new Map<number, FilingItem[]>([[cik, []]]);
  for (const group of filings.insider_filings) {
    const list = byCik.get(group.cik) ?? [];
    for (const f of group.filings) {
      if (listedBy.has(f.accession_number)) continue;
      listedBy.set(f.accession_number, group.cik);
      list.push(f);
    }
    byCik.set(group.cik, list);
  }
  const underOf = (row: DailyIndexRow) => listedBy.get(row.accession) ?? row.cik;
  for (const row of incremental?.indexed ?? []) if (!byCik.has(underOf(row))) byCik.set(underOf(row), []);
  const loads = await Promise.all(
    [...byCik].map(([filer, list]) => {
      const view = incremental && { after: filer === cik ? incremental.after : null, indexed: incremental.indexed.filter((r) => underOf(r) === filer) };
      return loadForm4s(ctx.source, ctx.storage, ctx.compute, filer, list, ctx.form4Since, view);
    }),
  );
  const form4 = mergeLoads(loads);
  const insiders = applyAmendments(form4.filings, cik, earlierCiks(cik, ctx.predecessors));
  const newestForm4 = maxBy(insiders, (t) => `${t.filed_at ?? ""}|${t.source_accession}`);
  const meta = { source_api: ctx.source.describe(filerFolderPath(cik)), built_at: ctx.builtAt, source_accession: newestForm4?.source_accession ?? null, filed_at: newestForm4?.filed_at ?? null };
  const { filings: _parsed, ...stats } = form4;
  const from = feedFrom(ctx.builtAt, "insiders");
  const recent = insiders.filter((t) => t.transaction_date !== null && t.transaction_date >= from);
  return { bytes: await ctx.compute.encode("insiders", { data: insiders, meta }), rows: insiders.length, recent, newest_form4: newestForm4?.filed_at ?? null, form4: stats };
}

/** The company as the cross-company answers name it: the universe's tickers and name, its submissions' SIC and exchange. */
function companyInfo(cik: number, names: CompanyNames, own: FilingsResult["company"]): CompanyInfo {
  const ticker = names.tickers[0]!;
  const listed = own.tickers.findIndex((t) => normalizeTicker(t) === ticker);
  return {
    ticker,
    tickers: names.tickers,
    cik,
    name: names.name,
    sic: own.sic,
    sic_description: own.sicDescription,
    exchange: own.exchanges[listed >= 0 ? listed : 0] ?? null,
  };
}

/** The screen document: the company and its frames' timelines (validated where made), spliced as they are. */
function screenDocument(company: CompanyInfo, frames: FrameTexts, meta: DocumentMeta): Uint8Array {
  const json = (byMetric: FrameTexts[string]) => `{${Object.entries(byMetric).map(([metric, states]) => `"${metric}":${states}`).join(",")}}`;
  const parts = Object.entries(frames).map(([frame, byMetric]) => `${JSON.stringify(frame)}:${json(byMetric)}`);
  const head = encodeJson(CompanyInfo, company, "the screen document's company");
  return new TextEncoder().encode(`{"company":${head},"frames":{${parts.join(",")}},"meta":${encodeJson(DocumentMeta, meta, "the screen document's meta")}}`);
}

function notCovered(evidence: string): CompanyOutcome {
  return { kind: "not_covered", reason: "no_xbrl_history", evidence };
}

/** A parse error's message without the "CIK …: " its subject put in front. */
function withoutSubject(error: NoXbrlHistoryError): string {
  return error.message.slice(describeSubject(error.subject).length + 2);
}

/**
 * The filings document, from the company's submissions and its predecessors' (those the source has); the older
 * submissions pages it needs (compute tells which) are fetched and merged in.
 */
export async function loadFilings(ctx: CompanyContext, cik: number): Promise<FilingsResult & { earlier_ciks: number[] }> {
  const origin: DocumentOrigin = { source_api: ctx.source.describe(submissionsPath(cik)), built_at: ctx.builtAt };
  const text = await ctx.source.getText(submissionsPath(cik));
  const predecessors: SubmissionsText[] = [];
  for (const earlier of earlierCiks(cik, ctx.predecessors)) {
    const found = await textIfFound(ctx.source, submissionsPath(earlier));
    if (found !== null) predecessors.push({ cik: earlier, text: found });
  }
  const earlier_ciks = predecessors.map((p) => p.cik);
  const first = await ctx.compute.filings(text, cik, { form4Since: ctx.form4Since, pages: null }, origin, predecessors);
  if (!("need_pages" in first)) return { ...first, earlier_ciks };
  const pages = await Promise.all(first.need_pages.map(async (name) => ({ name, text: await ctx.source.getText(submissionsPagePath(name)) })));
  return { ...((await ctx.compute.filings(text, cik, { form4Since: ctx.form4Since, pages }, origin, predecessors)) as FilingsResult), earlier_ciks };
}
