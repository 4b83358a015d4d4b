// The financials document's history section (as the earnings one, issue 14 "Point in time"): per row, every value
// each statement metric had and from when, and the fiscal year's reconciliation over time — and the one reading of it,
// shared by the builder (today's rows) and the gateway (`as_of`, `history=true`).
import { z } from "zod";
import { entryAsOf, metricAt } from "./earnings-history.ts";
import {
  FINANCIAL_METRIC_NAMES,
  FinancialReconciliation,
  STATEMENT_METRICS,
  StatementHistoryEntry,
  STATEMENTS,
  type FinancialMetricName,
  type FinancialPeriod,
  type StatementMetric,
} from "./financials.ts";
import { IsoDate } from "./primitives.ts";

export const FinancialReconciliationState = z.object({
  from: IsoDate,
  reconciled: z.boolean().nullable(),
  reconciliation: z.array(FinancialReconciliation),
});
export type FinancialReconciliationState = z.infer<typeof FinancialReconciliationState>;

/** One row's history, aligned with its row in `data`. */
export const FinancialPeriodHistory = z.object({
  metrics: z.object(
    Object.fromEntries(FINANCIAL_METRIC_NAMES.map((name) => [name, z.array(StatementHistoryEntry).optional()])) as Record<
      FinancialMetricName,
      z.ZodOptional<z.ZodArray<typeof StatementHistoryEntry>>
    >,
  ),
  reconciliation: z.array(FinancialReconciliationState).optional(),
});
export type FinancialPeriodHistory = z.infer<typeof FinancialPeriodHistory>;

export const FinancialsHistory = z.array(FinancialPeriodHistory);
export type FinancialsHistory = z.infer<typeof FinancialsHistory>;

/**
 * A row as it stood on `date`: each metric the last value in effect then (the latest filing accepted by then), the
 * row's provenance the latest of its metrics'; null when none had been reported. A statement the row has no metric of
 * stays as it is in the row (null balance on a year-to-date row). A TTM row none of whose flows can be summed (a
 * quarter missing) stands with its reasons from when its last quarter was filed (its own provenance). `withHistory`
 * adds each metric's entries.
 */
export function financialAsOf(row: FinancialPeriod, history: FinancialPeriodHistory, date: string, withHistory: boolean): FinancialPeriod | null {
  const out: FinancialPeriod = { ...row };
  let source: StatementMetric | null = null;
  for (const statement of STATEMENTS) {
    if (row[statement] === undefined || row[statement] === null) continue;
    const metrics: Record<string, StatementMetric | null> = {};
    for (const name of STATEMENT_METRICS[statement]) {
      const metric = statementMetricAsOf(history.metrics[name], date, withHistory);
      metrics[name] = metric;
      if (metric && (!source || metric.filed_at > source.filed_at || (metric.filed_at === source.filed_at && metric.source_accession > source.source_accession))) {
        source = metric;
      }
    }
    (out as Record<string, unknown>)[statement] = metrics;
  }
  if (!source) return row.ttm?.unavailable.length && row.filed_at !== "" && row.filed_at <= date ? out : null;
  const verdict = history.reconciliation?.findLast((s) => s.from <= date);
  out.form = source.form;
  out.filed_at = source.filed_at;
  out.source_accession = source.source_accession;
  out.reconciled = verdict?.reconciled ?? null;
  out.reconciliation = verdict?.reconciliation ?? [];
  return out;
}

/** A statement metric as it stood on `date` (metricAsOf), with the terms and cover date of the entry in effect. */
export function statementMetricAsOf(entries: readonly StatementHistoryEntry[] | undefined, date: string, withHistory: boolean): StatementMetric | null {
  if (!entries?.length) return null;
  const i = entryAsOf(entries, date);
  const metric = metricAt(entries, i, withHistory) as StatementMetric | null;
  if (!metric) return null;
  const e = entries[i]!;
  if (e.components) metric.components = e.components;
  if (e.as_of) metric.as_of = e.as_of;
  return metric;
}
