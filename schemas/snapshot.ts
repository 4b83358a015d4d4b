// What the builder publishes and the gateway reads: per-ticker documents, the manifest, current.json, and the
// follower's status. Layout (storage/layout.ts): snapshots/<id>/{manifest.json, tickers/<T>/<kind>.json}; a manifest
// names each ticker's documents by key, so an unchanged document is referenced where it was first written.
import { z } from "zod";
import { EarningsPeriod, INVARIANTS } from "./earnings.ts";
import { FINANCIAL_INVARIANTS, FinancialPeriod } from "./financials.ts";
import { FilingItem } from "./filing.ts";
import { InsiderTransaction } from "./insider.ts";
import { CrossManifest, ScreenCompanyDocument } from "./cross.ts";
import { SegmentPeriod } from "./segments.ts";
import { DocumentMeta } from "./document-meta.ts";
import { Accession, Cik, IsoDate, IsoDateTime, Ticker } from "./primitives.ts";

/** The documents every covered ticker has: one per paid per-ticker endpoint, and its timelines for the cross-company screens. */
export const DOCUMENT_KINDS = ["filings", "earnings", "insiders", "financials", "screen", "segments"] as const;
export const DocumentKind = z.enum(DOCUMENT_KINDS);
export type DocumentKind = z.infer<typeof DocumentKind>;

/** Why a ticker of the universe is not served. */
export const CoverageReason = z.enum([
  "no_xbrl_history", // no company facts, none in us-gaap/ifrs-full, or none from periodic reports (a post-reorganisation shell looks so)
  "source_failed", // EDGAR could not be read for it in this build and no earlier documents exist
]);
export type CoverageReason = z.infer<typeof CoverageReason>;


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
/** The segments' document (issue 43), with its history section (schemas/segments-history.ts) as the earnings document has it. */
export const SegmentsDocument = document(SegmentPeriod).extend({
  history: z.string().optional().meta({ description: "SegmentsHistory as JSON text: the members' names and every presentation of each row." }),
});
export type SegmentsDocument = z.infer<typeof SegmentsDocument>;
export type FilingsDocument = z.infer<typeof FilingsDocument>;
export type EarningsDocument = z.infer<typeof EarningsDocument>;
export type InsidersDocument = z.infer<typeof InsidersDocument>;

/** Schema of each document kind, for build-time validation and audit. */
export const DOCUMENT_SCHEMAS = {
  filings: FilingsDocument,
  earnings: EarningsDocument,
  insiders: InsidersDocument,
  financials: FinancialsDocument,
  screen: ScreenCompanyDocument,
  segments: SegmentsDocument,
} as const;

/**
 * Kinds a snapshot published before them does not hold (financials: issue 18; screen: issue 40; segments: issue 43). A ticker carried
 * forward from such a snapshot keeps its other documents; its manifest entry says the endpoint does not answer.
 */
export const LATER_KINDS: ReadonlySet<DocumentKind> = new Set(["financials", "screen", "segments"]);

export const Counts = z.object({
  filings: z.number().int().nonnegative(),
  earnings_periods: z.number().int().nonnegative(),
  insider_transactions: z.number().int().nonnegative(),
  financials_periods: z.number().int().nonnegative().optional().meta({ description: "Rows of the financials document (TTM rows included); absent in snapshots before it." }),
  segment_periods: z.number().int().nonnegative().optional().meta({ description: "Rows of the segments document (one per period and axis); absent in snapshots before it." }),
});
export type Counts = z.infer<typeof Counts>;

export const Freshness = z.object({
  newest_filing: IsoDate.nullable(),
  newest_period_end: IsoDate.nullable(),
  newest_form4: IsoDate.nullable(),
  built_at: IsoDateTime.nullable().meta({ description: "When its documents were last rebuilt from EDGAR (by a build or the follower), changed or not." }),
  changed_at: IsoDateTime.nullable().optional().meta({ description: "When the content of one of its documents last changed." }),
  newest_accepted_at: IsoDateTime.nullable().optional().meta({
    description: "EDGAR acceptance time of the newest filing its documents reflect (their newest source_accession).",
  }),
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
  "/segments": z.boolean().optional().meta({ description: "Whether the company's filings report segment figures; absent in snapshots published before /segments existed." }),
});
export type Endpoints = z.infer<typeof Endpoints>;

/**
 * Where a ticker's document of one kind is stored, and what it holds: its content hash (every byte but
 * `meta.built_at`) decides whether a rebuilt document changed; an unchanged one keeps its key and is never written
 * again, so readers that hold it (the gateway's cache) keep it across publishes.
 */
export const DocumentRef = z.object({
  key: z.string(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{32}$/, "expected the first 32 hex digits of a SHA-256")
    .nullable()
    .meta({ description: "Null when not known (a document written before incremental publishing): the next rebuild writes it again." }),
  accepted_at: IsoDateTime.nullable().meta({ description: "EDGAR acceptance time of the document's newest source filing (meta.source_accession)." }),
});
export type DocumentRef = z.infer<typeof DocumentRef>;

/** The follower's last change to a ticker: the filing, when EDGAR accepted it, when the follower saw and published it. */
export const FollowedFiling = z.object({
  accession: Accession,
  form: z.string(),
  accepted_at: IsoDateTime.nullable(),
  seen_at: IsoDateTime,
  published_at: IsoDateTime,
  lag_s: z.number().nonnegative().meta({ description: "Seconds from seen in EDGAR's feed to published (seen_at → published_at)." }),
});
export type FollowedFiling = z.infer<typeof FollowedFiling>;

/** One ticker of the universe in the manifest. */
export const ManifestTicker = z.object({
  cik: Cik,
  name: z.string(),
  covered: z.boolean(),
  reason: CoverageReason.optional(),
  evidence: z.string().optional().meta({
    description: "What the builder found that makes the ticker not covered, e.g. \"the source has no company facts for CIK 789019 (…: not found)\".",
  }),
  earlier_ciks: z.array(Cik).optional().meta({
    description:
      "Earlier CIKs holding part of a covered company's filing history (a holding-company reorganisation gave it a new CIK): " +
      "its documents hold their filings, facts and Form 4s too, each under its own accession.",
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
  documents: z.partialRecord(DocumentKind, DocumentRef).optional().meta({
    description: "A covered ticker's documents by kind. Absent in manifests written before incremental publishing: the documents are then at tickers/<T>/<kind>.json of the manifest's own snapshot.",
  }),
  segments: z
    .object({
      cached: z.number().int().nonnegative(),
      fetched: z.number().int().nonnegative(),
      missing: z.array(Accession).meta({ description: "Periodic reports whose XBRL the source has neither as the inline document nor as the extracted instance." }),
      unreadable: z.array(z.object({ accession: Accession, reason: z.string() })).meta({ description: "Periodic reports whose XBRL could not be read, each with why (issue 43.4)." }),
      unlabelled: z.number().int().nonnegative().meta({ description: "Spans reported with segments that no earnings period matches (left out)." }),
      unread_pages: z.array(z.string()).optional().meta({
        description: "Older submissions pages reaching into inline XBRL's years that the source did not have or that could not be read: their periodic reports are not read.",
      }),
    })
    .optional()
    .meta({ description: "What reading the periodic reports' XBRL for /segments found (issue 43)." }),
  followed: FollowedFiling.optional().meta({ description: "The newest filing the follower applied to this ticker." }),
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

/** A published snapshot made by a build (full or --tickers), kept for retention and audit. */
export const BuildRecord = z.object({ build_id: z.string(), built_at: IsoDateTime });

/** A gap in the feed: filings accepted in (after, before) the follower may not have seen, filled from daily indexes. */
export const FeedGap = z.object({
  after: IsoDateTime,
  before: IsoDateTime,
  days: z.array(IsoDate).meta({ description: "Daily form indexes still to read for it (EDGAR publishes a day's index in the evening)." }),
  swept_through: Cik.optional().meta({
    description: "The covered companies' submissions read for it, in CIK order, up to this CIK, every filing they listed published: a follower started again reads on from the next.",
  }),
});
export type FeedGap = z.infer<typeof FeedGap>;

/** A filing the follower could not confirm in EDGAR's submissions in time; the next build reconciles it. */
export const Unconfirmed = z.object({ accession: Accession, cik: Cik, form: z.string(), reason: z.string(), at: IsoDateTime });

/** The follower's place in EDGAR's feed, published with the documents it describes (so a restart resumes there). */
export const FollowState = z.object({
  through: IsoDateTime.nullable().meta({ description: "Every filing the feed listed as accepted by this time is published (or listed in gaps/unconfirmed)." }),
  gaps: z.array(FeedGap),
  unconfirmed: z.array(Unconfirmed).meta({ description: "The latest 100 at most." }),
  published_filings: z.number().int().nonnegative().meta({ description: "Filings the follower has published since the last build." }),
});
export type FollowState = z.infer<typeof FollowState>;

/** A document key no longer referenced since `at`: kept a grace period for readers holding an older manifest. */
export const Superseded = z.object({ key: z.string(), at: IsoDateTime });

export const Manifest = z.object({
  build_id: z.string(),
  kind: z.enum(["build", "follow"]).optional().meta({ description: "Who published it: a build, or the follower (an incremental publish)." }),
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
    description: "The snapshot current.json named when this one was published (null for the first).",
  }),
  builds: z.array(BuildRecord).optional().meta({ description: "The builds published so far, newest first (at most 20): retention keeps the newest of them." }),
  follow: FollowState.optional(),
  cross: CrossManifest.optional().meta({ description: "The cross-company documents of the last full build (issue 40); absent before the first." }),
  superseded: z.array(Superseded).optional().meta({ description: "Documents recently dropped from the manifest (and the follower's manifests replaced), kept a while for readers of an older one." }),
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

/** A lag summary in seconds over the follower's recent filings. */
export const LagSummary = z.object({
  filings: z.number().int().nonnegative(),
  p50: z.number().nonnegative().nullable(),
  p99: z.number().nonnegative().nullable(),
  max: z.number().nonnegative().nullable(),
});

/** What the follower reports in its lease while it runs (the gateway's /probe shows it). */
export const FollowerStatus = z.object({
  started_at: IsoDateTime,
  last_poll_at: IsoDateTime.nullable(),
  last_publish_at: IsoDateTime.nullable(),
  polls: z.number().int().nonnegative(),
  through: IsoDateTime.nullable().meta({ description: "The feed position published so far." }),
  queued: z.number().int().nonnegative().meta({ description: "Filings seen and not yet published." }),
  gaps: z.number().int().nonnegative(),
  lag_s: LagSummary.meta({ description: "Seen in the feed → published, over the last hour." }),
  requests_per_s: z.number().nonnegative().meta({ description: "The follower's pace against EDGAR (its share of SEC's 10 a second)." }),
});
export type FollowerStatus = z.infer<typeof FollowerStatus>;
