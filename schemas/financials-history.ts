// The financials document's history section (as the earnings one, issue 14 "Point in time"): per row, every value
// each statement metric had and from when, and the fiscal year's reconciliation over time — the one reading of it,
// shared by the builder (today's rows) and the gateway (`as_of`, `history=true`) — and its compact stored form.
import { z } from "zod";
import { entryAsOf, metricAt, ReconciliationState } from "./earnings-history.ts";
import {
  FINANCIAL_METRIC_NAMES,
  FinancialMetricName,
  FinancialReconciliation,
  STATEMENT_METRICS,
  StatementHistoryEntry,
  STATEMENTS,
  type FinancialPeriod,
  type StatementMetric,
} from "./financials.ts";
import { Accession, IsoDate } from "./primitives.ts";

/** A fiscal year's reconciliation verdict from a date on (ReconciliationState), over the statements' flows. */
export const FinancialReconciliationState = ReconciliationState.extend({ reconciliation: z.array(FinancialReconciliation) });
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


/** The optional fields of an entry, stored apart (few entries have any). */
const EXTRAS = ["effective_from", "scale_corrected", "scale_unclear", "components", "as_of"] as const;
const Extras = StatementHistoryEntry.pick({ effective_from: true, scale_corrected: true, scale_unclear: true, components: true, as_of: true });
/** Numbers per stored entry: value, filing, concept, unit, derived (0 or 1). */
const STRIDE = 5;

/**
 * The financials history as the document stores it (its `history` text parses to this): per row and metric the entries
 * as one flat run of numbers — value, filing, concept, unit, derived — the filing an index into `filings` (accession,
 * form, filed_at), concept and unit into `strings`; an entry's optional fields under `extras` by its position. A
 * statement's history holds several entries per row and metric (each filing re-reports its comparatives): stored as
 * objects it was five times larger than this and most of a build's time (validated, serialised, escaped as a string).
 */
export const StoredFinancialsHistory = z
  .object({
    filings: z.array(z.tuple([Accession, z.string(), IsoDate])),
    strings: z.array(z.string()),
    rows: z.array(
      z.object({
        // Runs of numbers, checked entry by entry in the refinement below (a per-number schema was most of the cost).
        metrics: z.partialRecord(FinancialMetricName, z.custom<number[]>(Array.isArray, "expected an array of numbers")),
        extras: z.partialRecord(FinancialMetricName, z.record(z.string().regex(/^\d+$/), Extras)).optional(),
        reconciliation: z.array(FinancialReconciliationState).optional(),
      }),
    ),
  })
  .superRefine((stored, ctx) => {
    // Every run whole, every index within its table, derived a flag: checked in one loop, not per element by zod.
    stored.rows.forEach((row, r) => {
      for (const [name, run] of Object.entries(row.metrics)) {
        for (let i = 0; i < run.length; i += STRIDE) {
          const [value, filing, concept, unit, derived] = [run[i], run[i + 1], run[i + 2], run[i + 3], run[i + 4]];
          const ok =
            Number.isFinite(value) &&
            derived !== undefined &&
            (derived === 0 || derived === 1) &&
            Number.isInteger(filing) && filing! >= 0 && filing! < stored.filings.length &&
            Number.isInteger(concept) && concept! >= 0 && concept! < stored.strings.length &&
            Number.isInteger(unit) && unit! >= 0 && unit! < stored.strings.length;
          if (!ok) ctx.addIssue({ code: "custom", path: ["rows", r, "metrics", name, i], message: "not a stored entry (value, filing, concept, unit, derived)" });
        }
      }
    });
  });
export type StoredFinancialsHistory = z.infer<typeof StoredFinancialsHistory>;

/** The history in its stored form: each filing, concept and unit once. */
export function storeHistory(history: readonly FinancialPeriodHistory[]): StoredFinancialsHistory {
  const filings: StoredFinancialsHistory["filings"] = [];
  const strings: string[] = [];
  const filingIndex = new Map<string, number>();
  const stringIndex = new Map<string, number>();
  const indexOf = (map: Map<string, number>, key: string, add: () => void) => {
    let i = map.get(key);
    if (i === undefined) {
      map.set(key, (i = map.size));
      add();
    }
    return i;
  };
  const rows = history.map((h) => {
    const row: StoredFinancialsHistory["rows"][number] = { metrics: {} };
    for (const [name, entries] of Object.entries(h.metrics) as [FinancialMetricName, StatementHistoryEntry[]][]) {
      const run: number[] = [];
      entries.forEach((e, k) => {
        const filing = indexOf(filingIndex, e.accession, () => filings.push([e.accession, e.form, e.filed_at]));
        run.push(e.value, filing, indexOf(stringIndex, e.concept, () => strings.push(e.concept)), indexOf(stringIndex, e.unit, () => strings.push(e.unit)), e.derived ? 1 : 0);
        if (!EXTRAS.some((key) => e[key] !== undefined)) return;
        const extras: Record<string, unknown> = {};
        for (const key of EXTRAS) if (e[key] !== undefined) extras[key] = e[key];
        ((row.extras ??= {})[name] ??= {})[k] = extras;
      });
      row.metrics[name] = run;
    }
    if (h.reconciliation) row.reconciliation = h.reconciliation;
    return row;
  });
  return { filings, strings, rows };
}

/** The stored history read back into entries (the gateway does it once per document it answers as of a date). */
export function expandHistory(stored: StoredFinancialsHistory): FinancialPeriodHistory[] {
  return stored.rows.map((row) => {
    const metrics: FinancialPeriodHistory["metrics"] = {};
    for (const [name, run] of Object.entries(row.metrics) as [FinancialMetricName, number[]][]) {
      const extras = row.extras?.[name];
      const entries: StatementHistoryEntry[] = [];
      for (let i = 0; i < run.length; i += STRIDE) {
        const [accession, form, filed_at] = stored.filings[run[i + 1]!]!;
        const entry: StatementHistoryEntry = { value: run[i]!, unit: stored.strings[run[i + 3]!]!, concept: stored.strings[run[i + 2]!]!, accession, form, filed_at, derived: run[i + 4] === 1 };
        entries.push(extras?.[i / STRIDE] ? { ...entry, ...extras[i / STRIDE] } : entry);
      }
      metrics[name] = entries;
    }
    return row.reconciliation ? { metrics, reconciliation: row.reconciliation } : { metrics };
  });
}

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
