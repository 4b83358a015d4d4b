// One financials row's history (every value each statement metric had and from when, the reasons of its nulls, the
// year's reconciliation over time) and what reading a row as of a date needs: the shapes that the history reading
// (financials-history.ts) and the TTM reading (financials-ttm.ts) share, so that neither imports the other's (issue 42).
import { z } from "zod";
import { ReconciliationState, type AsOfContext } from "./earnings-history.ts";
import { EntityChange } from "./entity-change.ts";
import { FINANCIAL_METRIC_NAMES, FinancialMetricName, FinancialReconciliation, StatementHistoryEntry, Unavailable, type FinancialPeriod, type Ttm } from "./financials.ts";
import { IsoDate } from "./primitives.ts";

/** A fiscal year's reconciliation verdict from a date on (ReconciliationState), over the statements' flows. */
export const FinancialReconciliationState = ReconciliationState.extend({ reconciliation: z.array(FinancialReconciliation) });
export type FinancialReconciliationState = z.infer<typeof FinancialReconciliationState>;

/** Each metric's entries, by metric. */
const byMetric = () =>
  z.object(
    Object.fromEntries(FINANCIAL_METRIC_NAMES.map((name) => [name, z.array(StatementHistoryEntry).optional()])) as Record<
      FinancialMetricName,
      z.ZodOptional<z.ZodArray<typeof StatementHistoryEntry>>
    >,
  );

/**
 * A reason a row's metric is null (Unavailable) with when it holds: from `from`, before `until`, on a date the metric
 * has no value then — and `requires` has one, `because` has a reason then. What the row's `unavailable` says as of a
 * date is read from these, so that an as-of answer explains its nulls only with filings made by then.
 */
export const UnavailableSpan = Unavailable.extend({
  from: IsoDate,
  until: IsoDate.optional(),
  requires: FinancialMetricName.optional(),
  because: FinancialMetricName.optional(),
});
export type UnavailableSpan = z.infer<typeof UnavailableSpan>;

/** One row's history, aligned with its row in `data`. */
export const FinancialPeriodHistory = z.object({
  /** Per metric, the value served over time: what `as_of` reads. */
  metrics: byMetric(),
  /** Per metric, the values filed for the row's period that were never served (PeriodHistory.filed): listed only. */
  filed: byMetric().optional(),
  reconciliation: z.array(FinancialReconciliationState).optional(),
  /** The dates the company's stock splits took effect (PeriodHistory.splits): every row carries the company's. */
  splits: z.array(IsoDate).optional(),
  /** When the filings first showed each split (PeriodHistory.splits_known). */
  splits_known: z.array(IsoDate).optional(),
  /** The company's changes of reporting entity (PeriodHistory.entity_changes): every row carries them. */
  entity_changes: z.array(EntityChange).optional(),
  /** The reasons the row's nulls may have, with when each holds (the row's `unavailable` as of a date). */
  unavailable: z.array(UnavailableSpan).optional(),
});
export type FinancialPeriodHistory = z.infer<typeof FinancialPeriodHistory>;

/**
 * What reading a financials row as of a date needs beyond its own history: the document's other rows and histories (a
 * TTM row's block is read from its quarters' and years'), found by span or label, and when each filing was accepted.
 */
export interface FinancialsContext extends AsOfContext {
  rows: readonly FinancialPeriod[];
  histories: readonly FinancialPeriodHistory[];
  /** Rows other than TTM by span (`start/end/months`) and by label (`fiscal_year/fiscal_quarter/months`). */
  bySpan: ReadonlyMap<string, number>;
  byLabel: ReadonlyMap<string, number>;
  /** How each row enters a TTM today (a quarter enters four): read once (financials-ttm.ts). */
  latestParts: Map<string, Ttm["periods"][number]>;
  /** Each row's first reported flow, whatever the date: read once, as TTM rows share their quarters (financials-ttm.ts). */
  firstReports: Map<number, StatementHistoryEntry | null>;
}
