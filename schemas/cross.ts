// Questions across companies (issue 40): what each company contributes to them (its `screen` document), the
// cross-company documents a build assembles from those (a screen per frame and metric, the market feeds), and the
// rows /screen, /market/filings and /market/insiders serve. A screen's value is the company's own answer's, as of a
// date: the builder reads it with the same point-in-time reading the gateway gives /financials (financialAsOf).
import { z } from "zod";
import { FiscalQuarter } from "./earnings.ts";
import { FilingItem } from "./filing.ts";
import { FINANCIAL_METRIC_NAMES, FinancialMetricName } from "./financials.ts";
import { InsiderTransaction } from "./insider.ts";
import { Accession, Cik, IsoDate, IsoDateTime, Ticker } from "./primitives.ts";
import { DocumentMeta } from "./document-meta.ts";

/** The metrics a screen ranks: every metric of /financials (the income statement's are /earnings/summary's). */
export const SCREEN_METRICS = FINANCIAL_METRIC_NAMES;

/**
 * A screen's period: a calendar frame as SEC's frames API names them — `CY2024Q3` (the quarter filed under that
 * calendar quarter, or the balance at its end), `CY2024` (the fiscal year filed under that calendar year) — or `ttm`,
 * each company's latest trailing twelve months.
 */
export const FRAME_PATTERN = /^(CY\d{4}(Q[1-4])?|ttm)$/;
export const Frame = z.string().regex(FRAME_PATTERN, "expected a frame like CY2024Q3, CY2024 or ttm");

/**
 * What a screen row says beyond its value, from the series (each as the company's answer shows it on the date):
 * scale_corrected — the filer's unit-scale slip was corrected; scale_unclear — a neighbour or another filing differs by
 * a unit-scale step and it is not clear which is wrong; unreconciled — the fiscal year's quarters do not add up to it
 * for this metric; split_unadjusted — a per-share value or share count from before a stock split the filings showed
 * since; entity_change — the period straddles a change of reporting entity (a reverse merger); sign — a negative outflow.
 */
export const SCREEN_MARKS = ["scale_corrected", "scale_unclear", "unreconciled", "split_unadjusted", "entity_change", "sign"] as const;
export const ScreenMark = z.enum(SCREEN_MARKS);
export type ScreenMark = z.infer<typeof ScreenMark>;

/** One company's value of a metric for a frame as it stood from a date on: the fields of its own answer's row and metric. */
export const ScreenValue = z
  .object({
    value: z.number(),
    unit: z.string(),
    concept: z.string(),
    fiscal_year: z.number().int().meta({ description: "The company's own fiscal year (its filings' label)." }),
    fiscal_quarter: FiscalQuarter,
    months: z.union([z.literal(3), z.literal(12)]),
    period_start: IsoDate,
    period_end: IsoDate,
    derived: z.boolean().meta({ description: "True when computed (a Q4 from the year, a quarter's cash flow from years to date, a TTM sum), not filed." }),
    restated: z.boolean().meta({ description: "True when a later filing changed the value first reported." }),
    original_value: z.number().nullable(),
    marks: z.array(ScreenMark),
    source_accession: Accession,
    filed_at: IsoDate,
  })
  .meta({ id: "ScreenValue" });
export type ScreenValue = z.infer<typeof ScreenValue>;

/** A value from `from` on (until the next state's `from`); `row` null: none from then (not yet reported, or withdrawn). */
export const ScreenState = z.object({ from: IsoDate, row: ScreenValue.nullable() });
export type ScreenState = z.infer<typeof ScreenState>;

/** ScreenValue's fields in the order a stored state lists them after its date. */
const STATE_FIELDS = [
  "value", "unit", "concept", "fiscal_year", "fiscal_quarter", "months", "period_start", "period_end",
  "derived", "restated", "original_value", "marks", "source_accession", "filed_at",
] as const satisfies readonly (keyof ScreenValue)[];

/**
 * Whether two values are the same state, field by field (a timeline asks it of every metric on every date: named
 * fields, where a loop over STATE_FIELDS's keys took about a tenth of the timelines' time).
 */
export function sameScreenValue(a: ScreenValue | null, b: ScreenValue | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.value === b.value &&
    a.filed_at === b.filed_at &&
    a.source_accession === b.source_accession &&
    a.period_end === b.period_end &&
    a.period_start === b.period_start &&
    a.unit === b.unit &&
    a.concept === b.concept &&
    a.fiscal_year === b.fiscal_year &&
    a.fiscal_quarter === b.fiscal_quarter &&
    a.months === b.months &&
    a.derived === b.derived &&
    a.restated === b.restated &&
    a.original_value === b.original_value &&
    a.marks.length === b.marks.length &&
    a.marks.every((m, i) => m === b.marks[i])
  );
}

/**
 * A state as stored: its date, then ScreenValue's fields in STATE_FIELDS order; its date alone when no value holds from
 * then. A company's timelines hold thousands of states (every filing re-reports its comparatives): as objects they were
 * three times the size.
 */
export type StoredState = [string] | [string, ...unknown[]];
// Each field as ScreenValue validates it, in a tuple (read back into an object per state first, it cost ~15 % more). A
// value state first: most are, and a union tries its options in order.
const ValueState = z.tuple([IsoDate, ...(STATE_FIELDS.map((f) => ScreenValue.shape[f]) as unknown as [z.ZodType, ...z.ZodType[]])]);
export const StoredState = z.union([ValueState, z.tuple([IsoDate])]) as unknown as z.ZodType<StoredState>;

/** One company's states of one metric for one frame, oldest first, as stored. */
export const ScreenTimeline = z.array(StoredState);
export type ScreenTimeline = StoredState[];

/**
 * A state in its stored form: STATE_FIELDS's order, written out (a build stores every state; mapping over the names
 * cost a fifth of storing them; cross.test.ts holds the two orders together).
 */
export function storeState({ from, row: r }: ScreenState): StoredState {
  if (r === null) return [from];
  return [from, r.value, r.unit, r.concept, r.fiscal_year, r.fiscal_quarter, r.months, r.period_start, r.period_end, r.derived, r.restated, r.original_value, r.marks, r.source_accession, r.filed_at];
}

/** A stored state read back. */
export function readState(stored: StoredState): ScreenState {
  if (stored.length === 1) return { from: stored[0], row: null };
  return { from: stored[0], row: Object.fromEntries(STATE_FIELDS.map((f, i) => [f, stored[i + 1]])) as ScreenValue };
}

/**
 * One company's states of one metric for one frame as the builder makes them, checked before they are stored: as
 * objects, whose schema zod compiles, the check costs less than half the stored tuples' (issue 40's build time).
 */
export const ScreenStates = z.array(ScreenState);

/** A company's timelines for one frame, by metric (a metric it never had for the frame is absent). */
export const FrameTimelines = z.partialRecord(FinancialMetricName, ScreenTimeline);
/** A company's timelines for one frame as made, before they are stored. */
export type MadeTimelines = Partial<Record<FinancialMetricName, ScreenState[]>>;

/** Who a company is, as the cross-company answers name it (from company_tickers.json and its submissions). */
export const CompanyInfo = z
  .object({
    ticker: Ticker.meta({ description: "The company's first ticker in SEC's ticker file (its main listing)." }),
    tickers: z.array(Ticker).meta({ description: "Every ticker of the company (share classes)." }),
    cik: Cik,
    name: z.string(),
    sic: z.string().regex(/^\d{4}$/).nullable().meta({ description: "Standard Industrial Classification code from the company's submissions.", example: "3571" }),
    sic_description: z.string().nullable(),
    exchange: z.string().nullable().meta({ description: "The main ticker's exchange as the company's submissions list it (Nasdaq, NYSE, OTC…).", example: "Nasdaq" }),
  })
  .meta({ id: "CompanyInfo" });
export type CompanyInfo = z.infer<typeof CompanyInfo>;

/** How far back the market feeds reach from the build that made them (the routes allow 7 and 90 days back). */
export const FEED_DAYS = { filings: 10, insiders: 100 } as const;

/**
 * A company's screen timelines, published beside its other documents (and by the follower when it files a periodic
 * report): a build assembles the cross-company screens from these, and the gateway lays those published since over them.
 */
export const ScreenCompanyDocument = z.object({
  company: CompanyInfo,
  frames: z.record(Frame, FrameTimelines),
  meta: DocumentMeta,
});
export type ScreenCompanyDocument = z.infer<typeof ScreenCompanyDocument>;

/** A row of /screen: the company, and its value of the metric for the frame as its own answer gives it (as of the date). */
export const ScreenRow = CompanyInfo.extend({ metric: FinancialMetricName })
  .extend(ScreenValue.shape)
  .meta({ id: "ScreenRow" });
export type ScreenRow = z.infer<typeof ScreenRow>;

/** One company in a screen document: its main ticker and its states for the frame and metric. */
export const ScreenEntry = z.object({ ticker: Ticker, states: ScreenTimeline });
export type ScreenEntry = z.infer<typeof ScreenEntry>;

/** Every company's timeline of one metric for one frame, as a build assembled it (storage: cross/<frame>/<metric>.json). */
export const ScreenDocument = z.object({
  frame: Frame,
  metric: FinancialMetricName,
  companies: z.array(ScreenEntry),
});
export type ScreenDocument = z.infer<typeof ScreenDocument>;

/** A filing of the market feed: the filing item and the company it is from. */
export const MarketFiling = FilingItem.extend({
  ticker: Ticker,
  cik: Cik,
  name: z.string(),
}).meta({ id: "MarketFiling" });
export type MarketFiling = z.infer<typeof MarketFiling>;

/** A Form 4 row of the market feed: the row as /insiders gives it, with the issuer's ticker and name as we cover them. */
export const MarketInsider = InsiderTransaction.extend({
  ticker: Ticker,
  name: z.string(),
}).meta({ id: "MarketInsider" });
export type MarketInsider = z.infer<typeof MarketInsider>;

/** The market filings' order: newest first by acceptance time, then accession (as /filings/latest orders a company's). */
export function newestFiling(a: MarketFiling, b: MarketFiling): number {
  return compareText(`${b.accepted_at ?? b.filed_at}|${b.accession_number}`, `${a.accepted_at ?? a.filed_at}|${a.accession_number}`);
}

/** The market Form 4 rows' order: newest first by transaction date, filing date, accession; then their filing's order (table I first). */
export function newestInsider(a: MarketInsider, b: MarketInsider): number {
  const newer = compareText(`${b.transaction_date}|${b.filed_at ?? ""}|${b.source_accession}`, `${a.transaction_date}|${a.filed_at ?? ""}|${a.source_accession}`);
  return newer || Number(a.is_derivative) - Number(b.is_derivative) || a.row - b.row;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One day of every company's filings (by filing date) or Form 4 rows (by transaction date), newest first. */
export const MarketFilingsDay = z.object({ day: IsoDate, data: z.array(MarketFiling) });
export const MarketInsidersDay = z.object({ day: IsoDate, data: z.array(MarketInsider) });
export type MarketFilingsDay = z.infer<typeof MarketFilingsDay>;
export type MarketInsidersDay = z.infer<typeof MarketInsidersDay>;

const Sha = z.string().regex(/^[0-9a-f]{32}$/);

/**
 * Which company documents a build's cross-company documents were made from: each company's screen, filings and
 * insiders documents by hash (a company the manifest names with another hash is laid over them).
 */
export const CrossIndex = z.object({
  companies: z.record(Ticker, CompanyInfo.extend({ screen: Sha.nullable(), filings: Sha.nullable(), insiders: Sha.nullable() })),
});
export type CrossIndex = z.infer<typeof CrossIndex>;

/** A stored cross-company document: its key and content hash (an unchanged one keeps its key across builds). */
export const CrossRef = z.object({ key: z.string(), sha256: Sha });
export type CrossRef = z.infer<typeof CrossRef>;

const Counted = CrossRef.extend({ rows: z.number().int().nonnegative() });

/**
 * The cross-company documents of the manifest's last full build. A company whose documents the manifest names with
 * other hashes than the index's (the follower's since, a later --tickers build, a company that failed) is laid over
 * them by the gateway.
 */
export const CrossManifest = z.object({
  build_id: z.string(),
  built_at: IsoDateTime,
  index: CrossRef,
  screens: z.record(Frame, z.partialRecord(FinancialMetricName, Counted)),
  filings_from: IsoDate.meta({ description: "The market filings' first day (FEED_DAYS.filings before the build)." }),
  market_filings: z.record(IsoDate, Counted),
  insiders_from: IsoDate.meta({ description: "The market Form 4 rows' first transaction day (FEED_DAYS.insiders before the build)." }),
  market_insiders: z.record(IsoDate, Counted),
});
export type CrossManifest = z.infer<typeof CrossManifest>;
