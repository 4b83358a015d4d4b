// One company of the universe, end to end: fetch its EDGAR files, parse, derive, and assemble the three
// documents with their counts and freshness. Nothing here writes a snapshot (that is publish/).
import type { Storage } from "unstorage";
import type { EarningsPeriod } from "../schemas/earnings.ts";
import type { FilingItem } from "../schemas/filing.ts";
import type { Counts, Endpoints, Freshness } from "../schemas/snapshot.ts";
import { applyAmendments } from "./derive/insiders.ts";
import { deriveEarnings } from "./derive/earnings.ts";
import { NoXbrlHistoryError } from "./errors.ts";
import { loadForm4s, type Form4Load, type IncrementalForm4s } from "./form4s.ts";
import { parseCompanyFacts } from "./parse/companyfacts.ts";
import { mergeFilings, parseSubmissions, parseSubmissionsPage } from "./parse/submissions.ts";
import type { TickerDocuments } from "./publish/snapshot.ts";
import { companyFactsPath, submissionsPagePath, submissionsPath } from "./sources/paths.ts";
import { SourceNotFoundError, type Source } from "./sources/source.ts";

/** What building one company produced. */
export type CompanyOutcome =
  | { kind: "covered"; docs: TickerDocuments; counts: Counts; freshness: Freshness; endpoints: Endpoints; form4: Omit<Form4Load, "filings"> }
  | { kind: "not_covered"; reason: "no_xbrl_history"; detail: string };

/** Inputs shared by every company of a build. */
export interface CompanyContext {
  source: Source;
  storage: Storage;
  builtAt: string;
  /** Form 4s filed on or after this date are served (DESIGN: a two-year look-back by default). */
  form4Since: string;
  /** The daily-index view of a CIK when this run is incremental for it; undefined means discover from submissions. */
  incrementalFor?: (cik: number) => IncrementalForm4s | undefined;
}

/**
 * Builds one CIK. A company without XBRL financial history (company facts missing, without us-gaap/ifrs-full
 * facts, or without a single periodic-report period) is not covered — the post-reorganisation shell rule
 * (spec 1.6, pitfall 28) — and costs no further requests. Source and parse errors propagate: the ticker failed.
 */
export async function buildCompany(ctx: CompanyContext, cik: number): Promise<CompanyOutcome> {
  const factsPath = companyFactsPath(cik);
  let periods: EarningsPeriod[];
  try {
    periods = deriveEarnings(parseCompanyFacts(await ctx.source.getText(factsPath), { cik }));
  } catch (error) {
    if (error instanceof SourceNotFoundError) return { kind: "not_covered", reason: "no_xbrl_history", detail: "no company facts" };
    if (error instanceof NoXbrlHistoryError) return { kind: "not_covered", reason: "no_xbrl_history", detail: error.message };
    throw error;
  }
  if (periods.length === 0) return { kind: "not_covered", reason: "no_xbrl_history", detail: "no periods from periodic reports" };

  const filings = await loadFilings(ctx, cik);
  const form4 = await loadForm4s(ctx.source, ctx.storage, cik, filings, ctx.form4Since, ctx.incrementalFor?.(cik));
  const insiders = applyAmendments(form4.filings, cik);

  const newestPeriod = maxBy(periods, (p) => `${p.filed_at}|${p.source_accession}`);
  const newestForm4 = maxBy(insiders, (t) => `${t.filed_at ?? ""}|${t.source_accession}`);
  const meta = (source_api: string, source_accession: string | null, filed_at: string | null) => ({
    source_api,
    source_accession,
    filed_at,
    built_at: ctx.builtAt,
  });
  const docs: TickerDocuments = {
    filings: { data: filings, meta: meta(ctx.source.describe(submissionsPath(cik)), filings[0]?.accession_number ?? null, filings[0]?.filed_at ?? null) },
    earnings: { data: periods, meta: meta(ctx.source.describe(factsPath), newestPeriod?.source_accession ?? null, newestPeriod?.filed_at ?? null) },
    insiders: {
      data: insiders,
      meta: meta(ctx.source.describe(`Archives/edgar/data/${cik}/`), newestForm4?.source_accession ?? null, newestForm4?.filed_at ?? null),
    },
  };
  const { filings: _parsed, ...form4Stats } = form4;
  return {
    kind: "covered",
    docs,
    counts: { filings: filings.length, earnings_periods: periods.length, insider_transactions: insiders.length },
    freshness: {
      newest_filing: filings[0]?.filed_at ?? null,
      newest_period_end: periods.reduce<string | null>((max, p) => (max === null || p.period_end > max ? p.period_end : max), null),
      newest_form4: newestForm4?.filed_at ?? null,
      built_at: ctx.builtAt,
    },
    endpoints: { "/filings/latest": filings.length > 0, "/earnings/summary": true, "/insiders": insiders.length > 0 },
    form4: form4Stats,
  };
}

/** The recent block, plus the older pages that reach back into the Form 4 look-back (recent holds ≥ 1 year). */
async function loadFilings(ctx: CompanyContext, cik: number): Promise<FilingItem[]> {
  const main = parseSubmissions(await ctx.source.getText(submissionsPath(cik)), { cik });
  const pages = main.olderPages.filter((p) => p.filingTo === null || p.filingTo >= ctx.form4Since);
  const older = await Promise.all(
    pages.map(async (p) => parseSubmissionsPage(await ctx.source.getText(submissionsPagePath(p.name)), cik, { path: p.name })),
  );
  return older.length ? mergeFilings(main.filings, ...older) : main.filings;
}

function maxBy<T>(items: T[], key: (item: T) => string): T | undefined {
  let best: T | undefined;
  let bestKey = "";
  for (const item of items) {
    const k = key(item);
    if (best === undefined || k > bestKey) [best, bestKey] = [item, k];
  }
  return best;
}
