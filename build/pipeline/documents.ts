// A company's documents made from its EDGAR files: parsed, derived, validated against their schemas and serialised
// where they are made, so that only bytes and a few summary fields leave (compute.ts may run these on a worker).
import { EarningsHistory } from "../../schemas/earnings-history.ts";
import type { FilingItem } from "../../schemas/filing.ts";
import { storeHistory, StoredFinancialsHistory } from "../../schemas/financials-history.ts";
import { FINANCIAL_INVARIANTS } from "../../schemas/financials.ts";
import { DOCUMENT_SCHEMAS, type DocumentKind, type ExceptionCounts, type FinancialExceptionCounts } from "../../schemas/snapshot.ts";
import { encodeJson, validated } from "../../storage/json.ts";
import { deriveEarningsBase } from "../derive/earnings.ts";
import { countExceptions } from "../derive/invariants.ts";
import { deriveFinancials } from "../derive/statements.ts";
import { INSIDER_FORMS, PERIODIC_FORM } from "../forms.ts";
import { mergeCompanyFacts, readCompanyFacts } from "../derive/company-facts.ts";
import type { CompanyFacts } from "../parse/companyfacts.ts";
import { NoXbrlHistoryError } from "../errors.ts";
import { mergeFilings, parseSubmissions, parseSubmissionsPage, type Submissions } from "../parse/submissions.ts";
import { FEED_DAYS, ScreenStates, storeState } from "../../schemas/cross.ts";
import { frameTimelines } from "../cross/frames.ts";
import { companyFactsPath, submissionsPagePath, submissionsPath } from "../sources/paths.ts";
import type { LabelledPeriod } from "../derive/segments.ts";

/** Where a document's data came from and when it was built (the rest of its meta comes from the data). */
export interface DocumentOrigin {
  source_api: string;
  built_at: string;
}

/** The earnings document, or none when no period came from a periodic report (the company is then not covered). */
export interface EarningsResult {
  bytes: Uint8Array | null;
  periods: number;
  newest_period_end: string | null;
  /** Marked exceptions to the series invariants, by invariant (issue 14: counted in the manifest). */
  exceptions: ExceptionCounts;
}

/** The financials document (issue 18): the statements on the earnings' periods. */
export interface FinancialsResult {
  bytes: Uint8Array;
  rows: number;
  /** Marked exceptions to the statements' invariants, by invariant. */
  exceptions: FinancialExceptionCounts;
}

/** A company's timelines as JSON text, by frame and metric. */
export type FrameTexts = Record<string, Partial<Record<string, string>>>;

/** Both documents made from company facts, which are parsed and derived once for the two. */
export interface FactsResult {
  earnings: EarningsResult;
  /** Null when there are no earnings (the company is then not covered). */
  financials: FinancialsResult | null;
  /**
   * Each frame's timelines, each metric's states as validated JSON text (build/cross/frames.ts): the screen document's
   * and the screens' part, spliced as they are.
   */
  frames: FrameTexts;
  /** The earnings' periods with their fiscal labels: the segments document labels its periods by them (issue 43). */
  periods: LabelledPeriod[];
}

/** An older submissions page the filings document did not read, with the CIK whose submissions name it and its span. */
export interface UnreadPage {
  cik: number;
  name: string;
  filing_from: string | null;
  filing_to: string | null;
}

/** The first inline XBRL filings EDGAR accepted (voluntary from March 2017): older pages hold none. */
export const INLINE_XBRL_FROM = "2017-03-01";

/** What the main submissions file needs next: the older pages reaching into the Form 4 look-back, by name. */
export interface PagesNeeded {
  need_pages: string[];
}

/** The filings document, with what the rest of the build needs from the list. */
export interface FilingsResult {
  bytes: Uint8Array;
  filings: number;
  newest_filing: string | null;
  /** The Form 4 and 4/A rows, by the CIK whose submissions list them (its folder holds their XML): the insiders document's sources. */
  insider_filings: { cik: number; filings: FilingItem[] }[];
  /** The periodic reports with inline XBRL, by the CIK whose folder holds them: the segments' sources (issue 43). */
  periodic_filings: { cik: number; filings: FilingItem[] }[];
  /**
   * Older submissions pages reaching into the years of inline XBRL that this document does not merge (they lie before
   * the Form 4 look-back): the segments read their periodic reports (build/pipeline/segments.ts).
   */
  unread_pages: UnreadPage[];
  /** Acceptance times by accession, for what each document reflects (publish: DocumentRef.accepted_at). */
  accepted: Record<string, string>;
  /** Periodic reports the submissions say carry no XBRL (a 10-K/A adding only Part III): company facts never show them. */
  without_xbrl: string[];
  /** Who the company is, as its own submissions say (the cross-company answers name it so). */
  company: Pick<Submissions, "tickers" | "exchanges" | "sic" | "sicDescription">;
  /** The filings of the market feed's window (feedFrom), newest first. */
  recent: FilingItem[];
}

/**
 * Company facts text → the earnings and financials documents (throws the parser's typed errors). Each carries a
 * `history` section (every value each period had, for `as_of` and `history=true`), validated here and stored as JSON
 * text, so that the gateway's default answer parses and sends `data` alone and reads the history only when asked
 * (issue 14 "Point in time"). The statements build on the earnings' periods and calendar (one derivation for both).
 */
export function factsDocuments(
  text: string | null,
  cik: number,
  origin: DocumentOrigin,
  predecessors: readonly { cik: number; text: string }[] = [],
  timelines = true,
): FactsResult {
  const facts = text === null || predecessors.length ? mergedFacts(text, cik, predecessors) : readCompanyFacts(text, { cik, path: companyFactsPath(cik) });
  const base = deriveEarningsBase(facts);
  const { periods, history } = base.series;
  const exceptions = countExceptions(periods);
  if (periods.length === 0) return { earnings: { bytes: null, periods: 0, newest_period_end: null, exceptions }, financials: null, frames: {}, periods: [] };
  const newest = maxBy(periods, (p) => `${p.filed_at}|${p.source_accession}`)!;
  const meta = { ...origin, source_accession: newest.source_accession, filed_at: newest.filed_at };
  const earnings: EarningsResult = {
    bytes: encodeDocument("earnings", { data: periods, meta, history: encodeJson(EarningsHistory, history, "the earnings history") }),
    periods: periods.length,
    newest_period_end: periods.reduce<string | null>((max, p) => (max === null || p.period_end > max ? p.period_end : max), null),
    exceptions,
  };
  const statements = deriveFinancials(facts, base);
  const latest = maxBy(statements.periods, (p) => `${p.filed_at}|${p.source_accession}`);
  const financials: FinancialsResult = {
    bytes: encodeDocument("financials", {
      data: statements.periods,
      meta: { ...origin, source_accession: latest?.source_accession ?? null, filed_at: latest?.filed_at ?? null },
      history: encodeJson(StoredFinancialsHistory, storeHistory(statements.history), "the financials history"),
    }),
    rows: statements.periods.length,
    exceptions: countExceptions(statements.periods, FINANCIAL_INVARIANTS),
  };
  const frames: FrameTexts = Object.fromEntries(
    Object.entries(timelines ? frameTimelines(statements.periods, statements.history) : {}).map(([frame, byMetric]) => [
      frame,
      Object.fromEntries(Object.entries(byMetric).map(([metric, states]) => [metric, JSON.stringify(validated(ScreenStates, states, `the ${frame} screen timeline of ${metric}`).map(storeState))])),
    ]),
  );
  const labelled = periods.map(({ fiscal_year, fiscal_quarter, months, period_start, period_end, calendar_frame, alternative_dates }) => ({
    fiscal_year,
    fiscal_quarter,
    months,
    period_start,
    period_end,
    calendar_frame,
    alternative_dates: alternative_dates.map((a) => ({ period_end: a.period_end })),
  }));
  return { earnings, financials, frames, periods: labelled };
}

/**
 * A company's facts with its predecessors' (build/predecessors.ts): one history, each fact still naming its filing.
 * A file with no XBRL history of its own (a new holding company's shell) adds nothing; with none in any, the
 * company's own file's error stands.
 */
function mergedFacts(text: string | null, cik: number, predecessors: readonly { cik: number; text: string }[]): CompanyFacts {
  const read: CompanyFacts[] = [];
  let own: unknown = null;
  for (const file of [...predecessors, ...(text === null ? [] : [{ cik, text }])]) {
    try {
      read.push(readCompanyFacts(file.text, { cik: file.cik, path: companyFactsPath(file.cik) }));
    } catch (error) {
      if (!(error instanceof NoXbrlHistoryError)) throw error;
      if (file.cik === cik) own = error;
    }
  }
  if (read.length === 0) throw own ?? new NoXbrlHistoryError({ cik }, "no income-statement concepts in its own or its predecessors' company facts");
  return mergeCompanyFacts(cik, read);
}

/** One CIK's submissions text: the company's own, or a predecessor's (build/predecessors.ts). */
export interface SubmissionsText {
  cik: number;
  text: string;
}

/**
 * Submissions texts → the filings document: the company's own (`text`), then its predecessors', one list newest
 * first. Without `pages` (null), answers which older pages of any of them reach back to `form4Since` when any do;
 * called again with their texts, merges them in (the recent block holds ≥ 1 year).
 */
export function filingsDocument(
  text: string,
  cik: number,
  older: { form4Since: string; pages: { name: string; text: string }[] | null },
  origin: DocumentOrigin,
  predecessors: readonly SubmissionsText[] = [],
): FilingsResult | PagesNeeded {
  const mains = [{ cik, text }, ...predecessors].map((s) => ({ ...parseSubmissions(s.text, { cik: s.cik, path: submissionsPath(s.cik) }), cik: s.cik }));
  const ownerOf = new Map<string, number>(); // each older page's name → the CIK whose submissions list it
  for (const main of mains) for (const p of main.olderPages) if (p.filingTo === null || p.filingTo >= older.form4Since) ownerOf.set(p.name, main.cik);
  if (older.pages === null && ownerOf.size) return { need_pages: [...ownerOf.keys()] };
  const pages = (older.pages ?? []).map((p) => {
    const owner = ownerOf.get(p.name) ?? cik;
    return { cik: owner, filings: parseSubmissionsPage(p.text, owner, { path: submissionsPagePath(p.name) }) };
  });
  const parts = [...mains, ...pages];
  const filings = parts.length > 1 ? mergeFilings(...parts.map((p) => p.filings)) : mains[0]!.filings;
  const meta = { ...origin, source_accession: filings[0]?.accession_number ?? null, filed_at: filings[0]?.filed_at ?? null };
  const insiders = new Map<number, FilingItem[]>();
  const periodic = new Map<number, FilingItem[]>();
  for (const part of parts) {
    const own = part.filings.filter((f) => INSIDER_FORMS.has(f.form));
    if (own.length) insiders.set(part.cik, [...(insiders.get(part.cik) ?? []), ...own]);
    const reports = part.filings.filter((f) => f.is_inline_xbrl && PERIODIC_FORM.test(f.form.toUpperCase()));
    if (reports.length) periodic.set(part.cik, [...(periodic.get(part.cik) ?? []), ...reports]);
  }
  return {
    bytes: encodeDocument("filings", { data: filings, meta }),
    filings: filings.length,
    newest_filing: filings[0]?.filed_at ?? null,
    insider_filings: [...insiders].map(([filer, list]) => ({ cik: filer, filings: list })),
    periodic_filings: [...periodic].map(([filer, list]) => ({ cik: filer, filings: list })),
    unread_pages: mains.flatMap((main) =>
      main.olderPages
        .filter((p) => !ownerOf.has(p.name) && (p.filingTo === null || p.filingTo >= INLINE_XBRL_FROM))
        .map((p) => ({ cik: main.cik, name: p.name, filing_from: p.filingFrom, filing_to: p.filingTo })),
    ),
    accepted: Object.fromEntries(filings.filter((f) => f.accepted_at !== null).map((f) => [f.accession_number, f.accepted_at!])),
    without_xbrl: filings.filter((f) => !f.is_xbrl && PERIODIC_FORM.test(f.form.toUpperCase())).map((f) => f.accession_number),
    company: { tickers: mains[0]!.tickers, exchanges: mains[0]!.exchanges, sic: mains[0]!.sic, sicDescription: mains[0]!.sicDescription },
    recent: filings.filter((f) => f.filed_at >= feedFrom(origin.built_at, "filings")),
  };
}

/** The first day the market feeds of a build (or a follower's publish) at `builtAt` hold (schemas/cross.ts FEED_DAYS). */
export function feedFrom(builtAt: string, feed: keyof typeof FEED_DAYS): string {
  return new Date(Date.parse(builtAt) - FEED_DAYS[feed] * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Validates a document against its schema and serialises it (the only way a document becomes bytes), `meta` last:
 * publishing hashes everything but `meta.built_at` to tell a changed document from a rebuilt one (publish/digest.ts).
 */
export function encodeDocument(kind: DocumentKind, document: unknown): Uint8Array {
  const { meta, ...rest } = validated(DOCUMENT_SCHEMAS[kind], document as never, `the ${kind} document`) as { meta: unknown };
  return new TextEncoder().encode(JSON.stringify({ ...rest, meta }));
}

/** The item with the greatest key (the first of equals). */
export function maxBy<T>(items: T[], key: (item: T) => string): T | undefined {
  let best: T | undefined;
  let bestKey = "";
  for (const item of items) {
    const k = key(item);
    if (best === undefined || k > bestKey) [best, bestKey] = [item, k];
  }
  return best;
}
