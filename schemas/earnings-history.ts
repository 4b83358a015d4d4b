// The earnings document's history section (issue 14 "Point in time"): per period, every value each metric had and
// from when, the values filed but never served, the fiscal year's reconciliation over time and the company's split
// dates — and the one reading of it, shared by the builder (today's answer: the history read as of LATEST) and the
// gateway (`as_of`, `history=true`), so the two can never disagree.
import { z } from "zod";
import { HistoryEntry, METRIC_NAMES, Reconciliation, splitUnadjustedAt, type EarningsPeriod, type Metric, type MetricName } from "./earnings.ts";
import { IsoDate } from "./primitives.ts";
import { sameFigure } from "./figures.ts";
import { EntityChange, withEntityMark } from "./entity-change.ts";

/** A fiscal year's reconciliation verdict from a date on. */
export const ReconciliationState = z.object({
  from: IsoDate,
  reconciled: z.boolean().nullable(),
  reconciliation: z.array(Reconciliation),
});
export type ReconciliationState = z.infer<typeof ReconciliationState>;

/** Each metric's entries, by metric. */
const byMetric = () =>
  z.object(Object.fromEntries(METRIC_NAMES.map((name) => [name, z.array(HistoryEntry).optional()])) as Record<MetricName, z.ZodOptional<z.ZodArray<typeof HistoryEntry>>>);

/** One period's history, aligned with its row in `data`. */
export const PeriodHistory = z.object({
  /** Per metric, the value served over time: what `as_of` reads. */
  metrics: byMetric(),
  /**
   * Per metric, the values filed for the period that were never served (one per filing: its value under the metric's
   * highest-priority concept — another concept than the one its fiscal year uses, a 10-Q's twelve-month figure for a
   * fiscal year): listed by `history=true` beside the served ones, never read by `as_of`.
   */
  filed: byMetric().optional(),
  reconciliation: z.array(ReconciliationState).optional(),
  /** The dates the company's stock splits took effect (splitUnadjustedAt), where its data shows any. */
  splits: z.array(IsoDate).optional(),
  /** When the filings first showed each split, aligned with `splits`, where later than it took effect. */
  splits_known: z.array(IsoDate).optional(),
  /** The company's changes of reporting entity (schemas/entity-change.ts), where its balance sheets show any: every row carries them. */
  entity_changes: z.array(EntityChange).optional(),
});
export type PeriodHistory = z.infer<typeof PeriodHistory>;

/** The history section: one entry per row of `data`, in the same order. */
export const EarningsHistory = z.array(PeriodHistory);
export type EarningsHistory = z.infer<typeof EarningsHistory>;

/** The date that reads a history as it stands today. */
export const LATEST = "9999-12-31";

/**
 * What an as-of reading needs beyond a row's own history: when each filing named in a row was accepted (for fields
 * that name filings other than its values', e.g. `alternative_dates`). The gateway gives the whole document's.
 */
export interface AsOfContext {
  filedAt(accession: string): string | undefined;
}

/** A row's history as the as-of reading sees its entries: served, and filed but never served (earnings and statements alike). */
type EntryGroups = { metrics: Partial<Record<string, readonly HistoryEntry[]>>; filed?: Partial<Record<string, readonly HistoryEntry[]>> };

/** The context of a whole document's histories: when each filing was accepted (acceptedDates), read on first use. */
export function documentContext(histories: readonly EntryGroups[]): AsOfContext {
  let accepted: Map<string, string> | undefined;
  return { filedAt: (accession) => (accepted ??= acceptedDates(histories)).get(accession) };
}

/** When each filing named in some histories was accepted: the earliest date its entries carry, served or only filed. */
export function acceptedDates(histories: readonly EntryGroups[]): Map<string, string> {
  const accepted = new Map<string, string>();
  for (const h of histories) {
    for (const group of [h.metrics, h.filed ?? {}]) {
      for (const entries of Object.values(group)) {
        for (const e of entries ?? []) {
          const known = accepted.get(e.accession);
          if (known === undefined || e.filed_at < known) accepted.set(e.accession, e.filed_at);
        }
      }
    }
  }
  return accepted;
}

/**
 * A period as it stood on `date` (only values from filings accepted by then, the latest winning; labels as today),
 * or null when none of its values had been reported yet. `withHistory` adds each metric's entries up to the date.
 * Fields that name filings or describe values are read as of the date too: alternative dates given by filings
 * accepted by then, the exception of a value whose scale is unclear only while that value is served.
 */
export function periodAsOf(row: EarningsPeriod, history: PeriodHistory, date: string, withHistory: boolean, context?: AsOfContext): EarningsPeriod | null {
  const metrics = {} as EarningsPeriod["metrics"];
  let source: Metric | null = null;
  for (const name of METRIC_NAMES) {
    const metric = metricAsOf(history.metrics[name], date, withHistory, history.filed?.[name]);
    metrics[name] = metric;
    if (metric && (!source || metric.filed_at > source.filed_at || (metric.filed_at === source.filed_at && metric.source_accession > source.source_accession))) {
      source = metric;
    }
  }
  if (!source) return null;
  const verdict = history.reconciliation?.findLast((s) => s.from <= date);
  const out: EarningsPeriod = {
    ...row,
    form: source.form,
    filed_at: source.filed_at,
    source_accession: source.source_accession,
    reconciled: verdict?.reconciled ?? null,
    reconciliation: verdict?.reconciliation ?? [],
    split_unadjusted: splitUnadjustedAt(history.splits, metrics, date, history.splits_known),
    metrics,
  };
  if (date !== LATEST) {
    const filedAt = filedAtOf(history, context);
    out.alternative_dates = alternativeDatesAsOf(row.alternative_dates, date, filedAt);
    out.exceptions = exceptionsAsOf(row.exceptions, history.metrics, date, filedAt);
    out.derived = derivedAsOf(row.derived, history, date);
  }
  out.exceptions = withEntityMark(out.exceptions, () => metrics, history.entity_changes, date);
  return out;
}

/**
 * Whether a period was derived on `date`: it is today, or every filing that reported it came later — its values until
 * then were computed (McDonald's fourth quarter of 2009, the year − nine months until a later 10-K filed the quarter).
 * `names`: the metrics that report the period itself (a statement row's balance sheet is another date's instant).
 */
export function derivedAsOf(derived: boolean, history: EntryGroups, date: string, names?: readonly string[]): boolean {
  if (derived) return true;
  let reported = false;
  for (const group of [history.metrics, history.filed ?? {}]) {
    for (const name of names ?? Object.keys(group)) {
      for (const e of group[name] ?? []) {
        if (e.derived) continue;
        if (e.filed_at <= date) return false;
        reported = true;
      }
    }
  }
  return reported; // no filed value at all: nothing says when it was first reported
}

/**
 * A metric as it stood on `date`: the last entry in effect then; restated when it differs from the first entry (a
 * unit-scale difference left unclear is never a restatement, nor one figure rounded two ways: schemas/figures.ts),
 * with that first value as the original. `filed`: the values filed but never served, listed with `withHistory`.
 */
export function metricAsOf(entries: readonly HistoryEntry[] | undefined, date: string, withHistory: boolean, filed?: readonly HistoryEntry[]): Metric | null {
  if (!entries?.length) return null;
  return metricAt(entries, entryAsOf(entries, date), withHistory, filed, date);
}

/** The entry in effect on `date` (undefined: none yet, or no entries). */
export function entryOn<E extends HistoryEntry>(entries: readonly E[] | undefined, date: string): E | undefined {
  return entries?.length ? entries[entryAsOf(entries, date)] : undefined;
}

/** The index of the entry in effect on `date` (−1: none yet). */
export function entryAsOf(entries: readonly HistoryEntry[], date: string): number {
  if (date === LATEST) return entries.length - 1; // today's answer: the last entry (the builder reads every row so)
  let i = -1;
  while (i + 1 < entries.length && (entries[i + 1]!.effective_from ?? entries[i + 1]!.filed_at) <= date) i++;
  return i;
}

/** The metric served by entry `i` of its history (null before the first). */
export function metricAt(entries: readonly HistoryEntry[], i: number, withHistory: boolean, filed?: readonly HistoryEntry[], date = LATEST): Metric | null {
  if (i < 0) return null;
  const [first, e] = [entries[0]!, entries[i]!];
  const restated = !sameFigure(first.value, e.value) && e.scale_unclear === undefined && first.scale_unclear === undefined;
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
  if (withHistory) metric.history = listed(entries.slice(0, i + 1), filed, date);
  if (e.components) metric.components = e.components;
  return metric;
}

/**
 * Every value a period had up to a date: the served entries (each from when it became the answer) and the values
 * filed but never served (marked `served: false`, each at its filing date), in that order — so the last unmarked
 * entry is the value served.
 */
function listed<E extends HistoryEntry>(served: readonly E[], filed: readonly E[] | undefined, date: string): E[] {
  if (!filed?.length) return served as E[];
  const others = filed.filter((f) => f.filed_at <= date);
  if (others.length === 0) return served as E[];
  const out: E[] = [];
  let k = 0;
  for (const e of served) {
    const from = e.effective_from ?? e.filed_at;
    while (k < others.length && (others[k]!.filed_at < from || (others[k]!.filed_at === from && others[k]!.accession < e.accession))) out.push({ ...others[k++]!, served: false } as E);
    out.push(e);
  }
  while (k < others.length) out.push({ ...others[k++]!, served: false } as E);
  return out;
}

/** The message of a value whose scale another filing or a neighbour contradicts (history.ts marks it). */
export function scaleMessage(metric: string, entry: Pick<HistoryEntry, "value" | "accession" | "scale_unclear">): string {
  return `${metric} ${entry.value} (${entry.accession}) differs from a neighbouring period or another filing by a unit-scale step (×${entry.scale_unclear}); the filings do not show which is wrong, so it is not corrected`;
}

/**
 * A row's exceptions on a date. An exception describes today's values, so on an earlier date: the exception of a value
 * whose scale is unclear follows the value served (marked while an unclear value is served, with that value); any
 * other exception about a metric stands only while the metric's value is today's; and none that names a filing
 * accepted after the date stands. Exceptions about labels and spans stand (labels are today's). `kept`: rules the
 * caller reads as of the date itself (passed through).
 */
export function exceptionsAsOf<E extends { rule: string; metric: string | null; message: string }>(
  exceptions: readonly E[],
  metrics: Readonly<Partial<Record<string, readonly HistoryEntry[]>>>,
  date: string,
  filedAt: (accession: string) => string | undefined,
  kept: ReadonlySet<string> = new Set(),
): E[] {
  const out: E[] = [];
  const followed = new Set<string>();
  const known = (message: string) => [...message.matchAll(ACCESSION)].every((m) => (filedAt(m[0]) ?? LATEST) <= date);
  for (const e of exceptions) {
    if (kept.has(e.rule)) {
      out.push(e);
      continue;
    }
    const entries = e.metric === null ? undefined : metrics[e.metric];
    const last = entries?.at(-1);
    if (e.rule === "scale" && last?.scale_unclear !== undefined && e.message === scaleMessage(e.metric!, last)) {
      followed.add(e.metric!);
      const served = entryOn(entries, date);
      if (served?.scale_unclear !== undefined) out.push({ ...e, message: scaleMessage(e.metric!, served) });
      continue;
    }
    if (e.metric !== null && last && entryOn(entries, date)?.value !== last.value) continue; // about a value not yet served
    if (known(e.message)) out.push(e);
  }
  for (const [metric, entries] of Object.entries(metrics)) {
    if (followed.has(metric) || out.some((e) => e.rule === "scale" && e.metric === metric)) continue;
    const served = entryOn(entries, date);
    if (served?.scale_unclear !== undefined) out.push({ rule: "scale", metric, message: scaleMessage(metric, served) } as E);
  }
  return out;
}

const ACCESSION = /\b\d{10}-\d{2}-\d{6}\b/g;

/**
 * When each filing was accepted, for a row read as of a date: the context's record (the whole document's), else the
 * row's own history. A filing of unknown date reads as later than any date (left out rather than risk a later one).
 */
export function filedAtOf(history: EntryGroups, context?: AsOfContext): (accession: string) => string | undefined {
  let own: Map<string, string> | undefined;
  return (accession) => context?.filedAt(accession) ?? (own ??= acceptedDates([history])).get(accession);
}

/** The alternative dates of a period known on `date`: those given by filings accepted by then. */
export function alternativeDatesAsOf<A extends { accession: string }>(dates: readonly A[], date: string, filedAt: (accession: string) => string | undefined): A[] {
  return dates.length === 0 ? (dates as A[]) : dates.filter((a) => (filedAt(a.accession) ?? LATEST) <= date);
}
