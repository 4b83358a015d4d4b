// A row of the statements under derivation (statements.ts, ttm.ts): a period of the earnings or of the cash flows, its
// served values over time per metric, and the fixed fields it will be published with.
import type { EarningsPeriod, MetricName } from "../../schemas/earnings.ts";
import type { PeriodHistory } from "../../schemas/earnings-history.ts";
import type { FinancialReconciliationState, UnavailableSpan } from "../../schemas/financials-row-history.ts";
import { INCOME_METRICS, type FinancialMetricName, type FinancialPeriod, type Ttm } from "../../schemas/financials.ts";
import { METRIC_CONCEPTS } from "./concepts.ts";
import type { PeriodLabel } from "./fiscal-calendar.ts";
import type { Period } from "./period-identity.ts";
import { calendarFrame, durationDays, type Months } from "./periods.ts";
import { CASH_FLOW_SERIES, type EpsNumerator } from "./statement-concepts.ts";
import { computedEntry, computedTimeline, type Entry, type FiledValue } from "./vintage.ts";

/** The cash flows the statements read (free cash flow is made from two of them). */
export const FLOWS = Object.keys(CASH_FLOW_SERIES) as (keyof typeof CASH_FLOW_SERIES)[];
/** Income metrics a fiscal year's quarters add up to, and the flows that do too (free cash flow follows from two of them). */
export const ADDITIVE: readonly FinancialMetricName[] = [...INCOME_METRICS.filter((m) => METRIC_CONCEPTS[m].additive), ...FLOWS];

/** The fixed fields of a published row: labels, dates and marks; statements and provenance are read from its history. */
type Base = Omit<FinancialPeriod, "form" | "filed_at" | "source_accession" | "reconciled" | "reconciliation" | "income" | "balance" | "cash_flow" | "ttm" | "unavailable">;

/** A row under derivation: a period of the earnings or of the cash flows, its timelines per metric, its marks. */
export interface Row {
  start: string;
  end: string;
  months: Months;
  base: Base;
  /** The earnings row and history of the same period (its income statement), if the earnings have it. */
  income: { row: EarningsPeriod; history: PeriodHistory } | null;
  /** Each filing's value of each cash-flow series (after the scale check). */
  flows: Map<string, FiledValue[]>;
  /** Each filing's value of each balance-sheet series on the row's date (shared with the row of the same end). */
  instants?: ReadonlyMap<string, readonly FiledValue[]>;
  /**
   * Served values over time per metric: income (from the earnings' history), cash flows and the balance sheet; and the
   * EPS numerators TTM EPS divides, which no row publishes.
   */
  timelines: Partial<Record<FinancialMetricName | EpsNumerator, Entry[]>>;
  /** Carries a balance sheet (quarters and fiscal years; a year-to-date period's balance is its quarter's). */
  balance: boolean;
  reconciliation?: FinancialReconciliationState[];
  ttm?: Ttm;
  /** Metrics null for a stated reason, with when each holds (FinancialPeriod.unavailable as of a date). */
  unavailable?: UnavailableSpan[];
  /** A TTM row's provenance when none of its values can be made: its last quarter's filing. */
  provenance?: Pick<FinancialPeriod, "form" | "filed_at" | "source_accession">;
}

/** An earnings row as the start of a statements row: its labels and marks, its income timelines (the earnings' own). */
export function fromEarnings(row: EarningsPeriod, history: PeriodHistory, income: Partial<Record<MetricName, Entry[]>>): Row {
  const { metrics: _metrics, form: _form, filed_at: _filed, source_accession: _accession, reconciled: _reconciled, reconciliation: _reconciliation, ...base } = row;
  return { start: row.period_start, end: row.period_end, months: row.months, base, income: { row, history }, flows: new Map(), timelines: { ...income }, balance: false };
}

/** A period the earnings do not have (a cash-flow-only period, a derived quarter), labelled by the calendar. */
export function newRow(start: string, end: string, months: Months, label: PeriodLabel, derived: boolean, alternatives: Period["alternatives"] = []): Row {
  const base: Base = {
    fiscal_year: label.fiscalYear,
    fiscal_quarter: label.fiscalQuarter,
    months,
    period_start: start,
    period_end: end,
    duration_days: durationDays(start, end),
    calendar_frame: calendarFrame(start, end, months),
    label_accession: label.labelAccession,
    label_source: label.source,
    filed_label: label.filed,
    derived,
    label_inferred: label.source === "calendar",
    alternative_dates: alternatives.map((a) => ({ period_start: a.start, period_end: a.end, accession: a.accn })),
    split_unadjusted: false,
    exceptions: [],
  };
  return { start, end, months, base, income: null, flows: new Map(), timelines: {}, balance: false };
}

/** Free cash flow = operating cash flow − capital expenditure of one period, wherever either changes (derived). */
export function freeCashFlow(ocf: readonly Entry[], capex: readonly Entry[]): Entry[] {
  return computedTimeline([ocf, capex], ([o, c]) => (o && c && o.unit === c.unit ? computedEntry([o, c], o.value - c.value, `${o.concept}−${c.concept}`) : null));
}
