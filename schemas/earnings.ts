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
  "diluted_shares",
] as const;
export const MetricName = z.enum(METRIC_NAMES);
export type MetricName = z.infer<typeof MetricName>;

/** One metric value of one period, traceable to the concept, unit and filing it came from. */
export const Metric = z
  .object({
    value: z.number(),
    unit: z.string().meta({ description: "XBRL unit: a currency (USD, TWD…), USD/shares, or shares.", example: "USD" }),
    concept: z.string().meta({ description: "Taxonomy-qualified XBRL concept.", example: "us-gaap:Revenues" }),
    source_accession: Accession.meta({ description: "Latest periodic filing that reported this value." }),
    filed_at: IsoDate,
    form: z.string(),
    restated: z.boolean().meta({ description: "True when a later filing changed the value first reported." }),
    original_value: z.number().nullable().meta({ description: "The value first reported, when restated." }),
    original_accession: Accession.nullable(),
    derived: z.boolean().meta({ description: "True when computed (Q4 = fiscal year − nine months), not filed." }),
  })
  .meta({ id: "Metric" });
export type Metric = z.infer<typeof Metric>;

export const FiscalQuarter = z.enum(["Q1", "Q2", "Q3", "Q4", "FY"]);
export type FiscalQuarter = z.infer<typeof FiscalQuarter>;

/** One (start, end) duration with its fiscal labels and metrics. */
export const EarningsPeriod = z
  .object({
    fiscal_year: z.number().int().meta({ description: "Fiscal year of the ORIGINAL filing whose own period this is." }),
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
    label_accession: Accession.nullable().meta({ description: "The original filing the labels come from; null when inferred." }),
    derived: z.boolean().meta({ description: "True for a Q4 computed from the fiscal year." }),
    label_inferred: z.boolean().meta({
      description: "True when the period was only ever reported as a comparative and its labels come from the fiscal calendar.",
    }),
    split_unadjusted: z.boolean().meta({
      description: "True when per-share values predate a later stock split and were never re-reported on the new basis.",
    }),
    metrics: z.object(Object.fromEntries(METRIC_NAMES.map((name) => [name, Metric.nullable()])) as Record<
      MetricName,
      z.ZodNullable<typeof Metric>
    >),
  })
  .meta({ id: "EarningsPeriod" });
export type EarningsPeriod = z.infer<typeof EarningsPeriod>;
