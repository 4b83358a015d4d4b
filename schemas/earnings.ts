// Earnings periods and metrics served by /earnings/summary, derived from XBRL company facts.
// Rules in ../shared/DESIGN.md "Derivation rules"; field names are a contract (DESIGN "Field names").
import { z } from "zod";
import { Accession, IsoDate } from "./primitives.ts";

/** The metrics every period may carry; each is null when the company did not report it. */
export const METRIC_NAMES = [
  "revenue",
  "net_income",
  "operating_income",
  "gross_profit",
  "eps_basic",
  "eps_diluted",
  "basic_shares",
  "diluted_shares",
] as const;
export const MetricName = z.enum(METRIC_NAMES);
export type MetricName = z.infer<typeof MetricName>;

export const FiscalQuarter = z.enum(["Q1", "Q2", "Q3", "Q4", "FY"]);
export type FiscalQuarter = z.infer<typeof FiscalQuarter>;

/** A value a filer stated in the wrong unit scale (thousands or millions tagged as ones) or with a flipped sign. */
export const ScaleCorrection = z
  .object({
    factor: z.number().meta({ description: "The value as filed is `factor` times the value given: 0.000001 when millions were tagged as ones, −1 for a flipped sign." }),
    value_as_filed: z.number(),
  })
  .meta({ id: "ScaleCorrection" });
export type ScaleCorrection = z.infer<typeof ScaleCorrection>;

/** One term of a computed value: the concept and its value with the sign it enters with. */
export const Component = z
  .object({
    concept: z.string(),
    value: z.number().meta({ description: "The filed value with the sign it enters the sum with (−: subtracted)." }),
  })
  .meta({ id: "Component" });
export type Component = z.infer<typeof Component>;

/** The terms of a value a filing's own lines make (a bank's revenue; a balance sheet with no total of liabilities). */
const components = () => z.array(Component).optional().meta({ description: "For a value computed from several concepts of one filing: each term." });

/** One value of a metric as it stood from a date on: what `history=true` lists and `as_of` reads (issue 14). */
export const HistoryEntry = z
  .object({
    value: z.number(),
    unit: z.string(),
    concept: z.string(),
    accession: Accession.meta({ description: "The filing that reported the value (for a derived value, the latest of its inputs)." }),
    form: z.string(),
    filed_at: IsoDate,
    effective_from: IsoDate.optional().meta({
      description: "When the value became the answer, if later than filed_at (a later filing moved the fiscal year to another concept).",
    }),
    derived: z.boolean(),
    scale_corrected: ScaleCorrection.optional(),
    scale_unclear: z.number().optional().meta({ description: "A neighbour or another filing differs by this unit-scale step and it is not clear which is wrong." }),
    served: z.literal(false).optional().meta({
      description:
        "false: filed for this period but never the answer (another concept than the fiscal year's, a 10-Q's twelve-month figure for a fiscal year, a value another filing of the same day superseded); absent: the answer from its effective date.",
    }),
    components: components(),
  })
  .meta({ id: "HistoryEntry" });
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** One metric value of one period, traceable to the concept, unit and filing it came from. */
export const Metric = z
  .object({
    value: z.number(),
    unit: z.string().meta({ description: "XBRL unit: a currency (USD, TWD…), USD/shares, or shares.", example: "USD" }),
    concept: z.string().meta({
      description: "Taxonomy-qualified XBRL concept; for a value summed from a filing's lines, their concepts joined by + (`components` lists each).",
      example: "us-gaap:Revenues",
    }),
    source_accession: Accession.meta({ description: "Latest periodic filing that reported this value." }),
    filed_at: IsoDate,
    form: z.string(),
    restated: z.boolean().meta({
      description: "True when a later filing changed the value first reported (never for a unit-scale slip, nor for one figure rounded two ways: 1,737,859 then 1,737,000).",
    }),
    original_value: z.number().nullable().meta({ description: "The value first reported, when restated." }),
    original_accession: Accession.nullable(),
    derived: z.boolean().meta({ description: "True when computed (Q4 = fiscal year − nine months; a sum of a filing's lines), not filed." }),
    scale_corrected: ScaleCorrection.nullable().meta({
      description: "Set when the filer stated the value in the wrong unit scale (or sign) and it was corrected: the factor and the value as filed.",
    }),
    history: z.array(HistoryEntry).optional().meta({
      description: "With history=true: every value this period had, in filing order (up to as_of when given).",
    }),
    components: components(),
  })
  .meta({ id: "Metric" });
export type Metric = z.infer<typeof Metric>;

/** Metrics a stock split changes: per-share values shrink by its ratio, share counts grow by it. */
export const PER_SHARE_METRICS = ["eps_basic", "eps_diluted", "basic_shares", "diluted_shares"] as const satisfies readonly MetricName[];
/** The weighted-average share counts EPS divides by, each with its EPS: basic and diluted. */
export const SHARE_COUNTS = [
  { shares: "basic_shares", eps: "eps_basic", kind: "basic" },
  { shares: "diluted_shares", eps: "eps_diluted", kind: "diluted" },
] as const satisfies readonly { shares: MetricName; eps: MetricName; kind: string }[];

/**
 * `split_unadjusted` as of `date`: a period whose filed per-share values (as served then) were last filed before a
 * split known by that date — `splits` are the dates splits took effect, each its first new-basis filing (the builder's
 * splits.ts finds them), `known` when the filings first showed each (its second witness; absent: the same date). One
 * rule for today's answer and any `as_of`: a split is never flagged before the filings of the date showed it.
 */
export function splitUnadjustedAt(
  splits: readonly string[] | undefined,
  metrics: Readonly<Partial<Record<string, { filed_at: string; derived: boolean } | null>>>,
  date: string,
  known?: readonly string[],
): boolean {
  if (!splits?.length) return false;
  let lastFiled: string | null = null;
  for (const name of PER_SHARE_METRICS) {
    const m = metrics[name];
    if (m && !m.derived && (lastFiled === null || m.filed_at < lastFiled)) lastFiled = m.filed_at;
  }
  return lastFiled !== null && splitsKnownBy(splits, known, date).some((by) => lastFiled! < by);
}

/** The dates splits took effect (`splits`) of those the filings showed by `date` (`known`: when each was first shown). */
export function splitsKnownBy(splits: readonly string[] | undefined, known: readonly string[] | undefined, date: string): string[] {
  return (splits ?? []).filter((by, i) => (known?.[i] ?? by) <= date);
}

/** The invariants every company's series satisfies, or marks where its filings cannot (issue 14 "Enforced and audited"). */
export const INVARIANTS = ["unique_labels", "consecutive_years", "label_in_year", "one_period_per_span", "reconciled", "scale", "one_entity"] as const;
export const Invariant = z.enum(INVARIANTS);
export type Invariant = z.infer<typeof Invariant>;

/** A marked, explained exception: an invariant this period breaks because its filings leave no way to satisfy it. */
export const PeriodException = z
  .object({
    rule: Invariant,
    metric: MetricName.nullable(),
    message: z.string(),
  })
  .meta({ id: "PeriodException" });
export type PeriodException = z.infer<typeof PeriodException>;

/** How far a fiscal year's quarters miss the year for one metric, beyond rounding. */
export const Reconciliation = z
  .object({
    metric: MetricName,
    quarters_sum: z.number(),
    year_value: z.number(),
    difference: z.number().meta({ description: "quarters_sum − year_value." }),
  })
  .meta({ id: "Reconciliation" });
export type Reconciliation = z.infer<typeof Reconciliation>;

/** One (start, end) duration with its fiscal labels and metrics. */
export const EarningsPeriod = z
  .object({
    fiscal_year: z.number().int().meta({ description: "Fiscal year as the company names it (its filings' label where it agrees with its calendar)." }),
    fiscal_quarter: FiscalQuarter.meta({
      description: "Q1–Q4 for the quarter (or year-to-date) ending in that fiscal quarter; FY for a fiscal year.",
    }),
    months: z.union([z.literal(3), z.literal(6), z.literal(9), z.literal(12)]),
    period_start: IsoDate,
    period_end: IsoDate,
    duration_days: z.number().int().positive(),
    calendar_frame: z.string().meta({
      description: "The SEC frame this period files under: CY####Q# for quarters, CY#### for fiscal years, null for year-to-date.",
      example: "CY2023Q3",
    }).nullable(),
    form: z.string().meta({ description: "Form of the filing the values came from.", example: "10-K" }),
    filed_at: IsoDate,
    source_accession: Accession,
    label_accession: Accession.nullable().meta({ description: "The original filing the labels come from; null when the calendar decided them." }),
    label_source: z.enum(["filing", "calendar"]).meta({
      description:
        "filing: the original filing's fy/fp, which agree with the company's fiscal calendar; calendar: the calendar decided " +
        "(the period was only reported as a comparative, or its filing's label contradicts the calendar: see filed_label).",
    }),
    filed_label: z
      .object({ fiscal_year: z.number().int(), fiscal_quarter: FiscalQuarter, accession: Accession })
      .nullable()
      .meta({ description: "The label the original filing carried, when the fiscal calendar overrode it." }),
    derived: z.boolean().meta({ description: "True for a Q4 computed from the fiscal year." }),
    label_inferred: z.boolean().meta({ description: "True when the labels come from the fiscal calendar (label_source calendar)." }),
    alternative_dates: z
      .array(z.object({ period_start: IsoDate, period_end: IsoDate, accession: Accession }))
      .meta({ description: "Other dates filings gave this same period (starts or ends within a week): one period per span." }),
    split_unadjusted: z.boolean().meta({
      description:
        "True when per-share values predate a later stock split (or a re-basing of the shares its filings show as one, such as a rights offering's bonus element) and were never re-reported on the new basis.",
    }),
    reconciled: z.boolean().nullable().meta({
      description: "Fiscal years only: whether Q1+Q2+Q3+Q4 equal the year (within rounding) for every additive metric; null when not checkable.",
    }),
    reconciliation: z.array(Reconciliation).meta({ description: "Fiscal years that do not reconcile: each metric's difference." }),
    exceptions: z.array(PeriodException).meta({ description: "Invariants this period breaks because its filings allow nothing else, each explained." }),
    metrics: z.object(Object.fromEntries(METRIC_NAMES.map((name) => [name, Metric.nullable()])) as Record<
      MetricName,
      z.ZodNullable<typeof Metric>
    >),
  })
  .meta({ id: "EarningsPeriod" });
export type EarningsPeriod = z.infer<typeof EarningsPeriod>;
