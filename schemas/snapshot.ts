// What the builder publishes and the gateway reads: per-ticker documents, the manifest, current.json.
// Layout (DESIGN "Storage and publishing"): snapshots/<build_id>/{manifest.json, tickers/<T>/<kind>.json}.
import { z } from "zod";
import { EarningsPeriod, INVARIANTS } from "./earnings.ts";
import { FINANCIAL_INVARIANTS, FinancialPeriod } from "./financials.ts";
import { FilingItem } from "./filing.ts";
import { InsiderTransaction } from "./insider.ts";
import { Accession, Cik, IsoDate, IsoDateTime, Ticker } from "./primitives.ts";

/** The documents every covered ticker has, one per paid endpoint. */
export const DOCUMENT_KINDS = ["filings", "earnings", "insiders", "financials"] as const;
export const DocumentKind = z.enum(DOCUMENT_KINDS);
export type DocumentKind = z.infer<typeof DocumentKind>;

/** Why a ticker of the universe is not served. */
export const CoverageReason = z.enum([
  "no_xbrl_history", // no company facts, none in us-gaap/ifrs-full, or none from periodic reports (a post-reorganisation shell looks so)
  "source_failed", // EDGAR could not be read for it in this build and no earlier documents exist
]);
export type CoverageReason = z.infer<typeof CoverageReason>;

/** Provenance of a per-ticker document. */
export const DocumentMeta = z.object({
  source_api: z.string(),
  source_accession: Accession.nullable(),
  filed_at: IsoDate.nullable(),
  built_at: IsoDateTime,
});
export type DocumentMeta = z.infer<typeof DocumentMeta>;

function document<T extends z.ZodType>(row: T) {
  return z.object({ data: z.array(row), meta: DocumentMeta });
}
export const FilingsDocument = document(FilingItem);
/**
 * The earnings document also carries its history section (schemas/earnings-history.ts) as JSON text: validated when
 * built, parsed by the gateway only for `as_of` or `history=true`, so the default answer never touches it.
 */
export const EarningsDocument = document(EarningsPeriod).extend({
  history: z.string().optional().meta({ description: "EarningsHistory as JSON text, one entry per row of data." }),
});
export const InsidersDocument = document(InsiderTransaction);
/** The statements' document (issue 18), with its history section as the earnings document has it. */
export const FinancialsDocument = document(FinancialPeriod).extend({
  history: z.string().optional().meta({ description: "StoredFinancialsHistory as JSON text, one row per row of data." }),
});
export type FinancialsDocument = z.infer<typeof FinancialsDocument>;
export type FilingsDocument = z.infer<typeof FilingsDocument>;
export type EarningsDocument = z.infer<typeof EarningsDocument>;
export type InsidersDocument = z.infer<typeof InsidersDocument>;

/** Schema of each document kind, for build-time validation and audit. */
export const DOCUMENT_SCHEMAS = {
  filings: FilingsDocument,
  earnings: EarningsDocument,
  insiders: InsidersDocument,
  financials: FinancialsDocument,
} as const;

/**
 * Kinds a snapshot published before them does not hold (financials: issue 18). A ticker carried forward from such a
 * snapshot keeps its other documents; its manifest entry says the endpoint does not answer.
 */
export const LATER_KINDS: ReadonlySet<DocumentKind> = new Set(["financials"]);

export const Counts = z.object({
  filings: z.number().int().nonnegative(),
  earnings_periods: z.number().int().nonnegative(),
  insider_transactions: z.number().int().nonnegative(),
  financials_periods: z.number().int().nonnegative().optional().meta({ description: "Rows of the financials document (TTM rows included); absent in snapshots before it." }),
});
export type Counts = z.infer<typeof Counts>;

export const Freshness = z.object({
  newest_filing: IsoDate.nullable(),
  newest_period_end: IsoDate.nullable(),
  newest_form4: IsoDate.nullable(),
  built_at: IsoDateTime.nullable(),
});
export type Freshness = z.infer<typeof Freshness>;

/**
 * Marked exceptions to the earnings series invariants (issue 14 "Enforced and audited"): how many periods carry each,
 * `reconciled` counting the fiscal years whose quarters do not add up; `periods` counts periods with any.
 */
export const ExceptionCounts = z.object({
  periods: z.number().int().nonnegative(),
  ...(Object.fromEntries(INVARIANTS.map((rule) => [rule, z.number().int().nonnegative()])) as Record<(typeof INVARIANTS)[number], z.ZodNumber>),
});
export type ExceptionCounts = z.infer<typeof ExceptionCounts>;

/** Marked exceptions to the statements' invariants (issue 18), counted as ExceptionCounts are. */
export const FinancialExceptionCounts = z.object({
  periods: z.number().int().nonnegative(),
  ...(Object.fromEntries(FINANCIAL_INVARIANTS.map((rule) => [rule, z.number().int().nonnegative()])) as Record<(typeof FINANCIAL_INVARIANTS)[number], z.ZodNumber>),
});
export type FinancialExceptionCounts = z.infer<typeof FinancialExceptionCounts>;

/** Which paid endpoints return a non-empty answer for the ticker. */
export const Endpoints = z.object({
  "/filings/latest": z.boolean(),
  "/earnings/summary": z.boolean(),
  "/insiders": z.boolean(),
  "/financials": z.boolean().optional().meta({ description: "Absent in snapshots published before /financials existed (it does not answer there)." }),
});
export type Endpoints = z.infer<typeof Endpoints>;

/** One ticker of the universe in the manifest. */
export const ManifestTicker = z.object({
  cik: Cik,
  name: z.string(),
  covered: z.boolean(),
  reason: CoverageReason.optional(),
  evidence: z.string().optional().meta({
    description: "What the builder found that makes the ticker not covered, e.g. \"the source has no company facts for CIK 789019 (…: not found)\".",
  }),
  counts: Counts,
  freshness: Freshness,
  endpoints: Endpoints,
  earnings_exceptions: ExceptionCounts.optional().meta({
    description: "Periods of the earnings document whose filings break a series invariant, marked and explained in the data.",
  }),
  financials_exceptions: FinancialExceptionCounts.optional().meta({
    description: "Rows of the financials document whose filings break a statement invariant, marked and explained in the data.",
  }),
  documents_from: z.string().optional().meta({
    description:
      "Build id whose documents this ticker serves when this build did not rebuild it: its source failed (see `error`), " +
      "or it was outside a --tickers build and carried forward unchanged.",
  }),
  error: z.string().optional(),
  input_defect: z
    .object({ file: z.string(), defect: z.string() })
    .optional()
    .meta({
      description:
        "Set when this build failed the company because an EDGAR file held what EDGAR does not produce (a duplicate key, invalid UTF-8, an impossible or reversed date, nesting deeper than EDGAR's): the file and the defect.",
    }),
  form4: z
    .object({
      cached: z.number().int().nonnegative(),
      fetched: z.number().int().nonnegative(),
      missing: z.array(Accession).meta({ description: "Form 4s whose XML EDGAR does not have (HTTP 404)." }),
      unreadable: z.array(Accession).meta({ description: "Form 4s whose XML is not a readable ownership document." }),
      not_retried: z.number().int().nonnegative().optional().meta({
        description: "Uncached Form 4s filed before the last run's daily-index coverage, not fetched again (an incremental run).",
      }),
    })
    .optional(),
});
export type ManifestTicker = z.infer<typeof ManifestTicker>;

export const Manifest = z.object({
  build_id: z.string(),
  built_at: IsoDateTime,
  source: z.string(),
  form4_since: IsoDate,
  requests: z.number().int().nonnegative().meta({ description: "Requests this build made to the source." }),
  form4_fetched: z.number().int().nonnegative().optional().meta({ description: "Form 4 documents this build fetched (not from the cache)." }),
  form4_index: z
    .object({
      through: IsoDate.meta({ description: "Form 4s filed through this day are known; the next run reads the daily indexes after it." }),
      incremental: z.boolean().meta({ description: "True when this run read daily indexes; false when it discovered from submissions." }),
      days_read: z.number().int().nonnegative(),
      days_missing: z.number().int().nonnegative().meta({ description: "Days without a daily index (weekends, holidays: HTTP 404)." }),
    })
    .optional(),
  previous_build_id: z.string().nullable().optional().meta({
    description: "The snapshot current.json named when this one was published (null for the first): retention follows this history.",
  }),
  tickers: z.record(Ticker, ManifestTicker),
});
export type Manifest = z.infer<typeof Manifest>;

/** `current.json`: the pointer to the published snapshot, written last. */
export const CurrentPointer = z.object({
  build_id: z.string(),
  built_at: IsoDateTime,
  manifest: z.string(),
});
export type CurrentPointer = z.infer<typeof CurrentPointer>;
