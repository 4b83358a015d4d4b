// The earnings document's history section (issue 14 "Point in time"): per period, every value each metric had and
// from when, and the fiscal year's reconciliation over time — and the one reading of it, shared by the builder (today's
// answer: the history read as of LATEST) and the gateway (`as_of`, `history=true`), so the two can never disagree.
import { z } from "zod";
import { HistoryEntry, METRIC_NAMES, Reconciliation, type EarningsPeriod, type Metric, type MetricName } from "./earnings.ts";
import { IsoDate } from "./primitives.ts";

/** A fiscal year's reconciliation verdict from a date on. */
export const ReconciliationState = z.object({
  from: IsoDate,
  reconciled: z.boolean().nullable(),
  reconciliation: z.array(Reconciliation),
});
export type ReconciliationState = z.infer<typeof ReconciliationState>;

/** One period's history, aligned with its row in `data`. */
export const PeriodHistory = z.object({
  metrics: z.object(Object.fromEntries(METRIC_NAMES.map((name) => [name, z.array(HistoryEntry).optional()])) as Record<
    MetricName,
    z.ZodOptional<z.ZodArray<typeof HistoryEntry>>
  >),
  reconciliation: z.array(ReconciliationState).optional(),
});
export type PeriodHistory = z.infer<typeof PeriodHistory>;

/** The history section: one entry per row of `data`, in the same order. */
export const EarningsHistory = z.array(PeriodHistory);
export type EarningsHistory = z.infer<typeof EarningsHistory>;

/** The date that reads a history as it stands today. */
export const LATEST = "9999-12-31";

/**
 * A period as it stood on `date` (only values from filings accepted by then, the latest winning; labels as today),
 * or null when none of its values had been reported yet. `withHistory` adds each metric's entries up to the date.
 */
export function periodAsOf(row: EarningsPeriod, history: PeriodHistory, date: string, withHistory: boolean): EarningsPeriod | null {
  const metrics = {} as EarningsPeriod["metrics"];
  let source: Metric | null = null;
  for (const name of METRIC_NAMES) {
    const metric = metricAsOf(history.metrics[name], date, withHistory);
    metrics[name] = metric;
    if (metric && (!source || metric.filed_at > source.filed_at || (metric.filed_at === source.filed_at && metric.source_accession > source.source_accession))) {
      source = metric;
    }
  }
  if (!source) return null;
  const verdict = history.reconciliation?.findLast((s) => s.from <= date);
  return {
    ...row,
    form: source.form,
    filed_at: source.filed_at,
    source_accession: source.source_accession,
    reconciled: verdict?.reconciled ?? null,
    reconciliation: verdict?.reconciliation ?? [],
    metrics,
  };
}

/**
 * A metric as it stood on `date`: the last entry in effect then; restated when it differs from the first entry (a
 * unit-scale difference left unclear is never a restatement), with that first value as the original.
 */
export function metricAsOf(entries: readonly HistoryEntry[] | undefined, date: string, withHistory: boolean): Metric | null {
  if (!entries?.length) return null;
  return metricAt(entries, entryAsOf(entries, date), withHistory);
}

/** The index of the entry in effect on `date` (−1: none yet). */
export function entryAsOf(entries: readonly HistoryEntry[], date: string): number {
  if (date === LATEST) return entries.length - 1; // today's answer: the last entry (the builder reads every row so)
  let i = -1;
  while (i + 1 < entries.length && (entries[i + 1]!.effective_from ?? entries[i + 1]!.filed_at) <= date) i++;
  return i;
}

/** The metric served by entry `i` of its history (null before the first). */
export function metricAt(entries: readonly HistoryEntry[], i: number, withHistory: boolean): Metric | null {
  if (i < 0) return null;
  const [first, e] = [entries[0]!, entries[i]!];
  const restated = e.value !== first.value && e.scale_unclear === undefined && first.scale_unclear === undefined;
  const metric: Metric = {
    value: e.value,
    unit: e.unit,
    concept: e.concept,
    source_accession: e.accession,
    filed_at: e.filed_at,
    form: e.form,
    restated,
    original_value: restated ? first.value : null,
    original_accession: restated ? first.accession : null,
    derived: e.derived,
    scale_corrected: e.scale_corrected ?? null,
  };
  if (withHistory) metric.history = entries.slice(0, i + 1);
  return metric;
}
