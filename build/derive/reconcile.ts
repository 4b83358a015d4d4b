// Do a fiscal year's quarters add up to the year? (issue 14: Q1+Q2+Q3+Q4 = FY "beyond rounding", else the year is
// marked `reconciled: false` with the difference). Pure; generic over additive series.
import { inEffect, type Entry } from "./vintage.ts";

/** Rounding is read from the values themselves: the largest power of ten (up to a million) each is a multiple of. */
const MAX_PRECISION = 1e6;

/** One series' miss: the quarters' sum, the year's value, and the difference. */
export interface Miss {
  series: string;
  quarters_sum: number;
  year_value: number;
  difference: number;
}

/** A fiscal year's verdict from a date on: reconciled (true/false), or null when no series has all five values. */
export interface Verdict {
  from: string;
  reconciled: boolean | null;
  misses: Miss[];
}

/**
 * Compares Q1+Q2+Q3+Q4 with the year for every additive series that has all five values, at every date any of them
 * changes. The tolerance is half a rounding unit per value (each figure as filed is rounded to its own unit: Hertz
 * reports millions, so its quarters may miss the year by a million or two).
 */
export function reconcileTimeline(year: Readonly<Record<string, Entry[]>>, quarters: readonly Readonly<Record<string, Entry[]>>[]): Verdict[] {
  const series = Object.keys(year).filter((s) => quarters.length === 4 && quarters.every((q) => q[s]?.length));
  const out: Verdict[] = [];
  for (const date of valueChanges(series.flatMap((s) => [year[s]!, ...quarters.map((q) => q[s]!)]))) {
    let checked = 0;
    const misses: Miss[] = [];
    for (const s of series) {
      const total = inEffect(year[s]!, date);
      const parts = quarters.map((q) => inEffect(q[s]!, date));
      if (!total || parts.some((p) => !p || p.unit !== total.unit)) continue;
      checked++;
      const miss = compare(s, total.value, parts.map((p) => p!.value));
      if (miss) misses.push(miss);
    }
    const verdict: Verdict = { from: date, reconciled: checked === 0 ? null : misses.length === 0, misses };
    const last = out.at(-1);
    if (!last || last.reconciled !== verdict.reconciled || !sameMisses(last.misses, misses)) out.push(verdict);
  }
  return out;
}

/** A fiscal year's reconciliation from a date on, as the documents publish it (the misses named by metric). */
export interface ReconciliationState<N extends string> {
  from: string;
  reconciled: boolean | null;
  reconciliation: { metric: N; quarters_sum: number; year_value: number; difference: number }[];
}

/**
 * A fiscal year's reconciliation over time for the additive series `names`, from the year's and its four quarters'
 * timelines (reconcileTimeline); null when a quarter is missing. The earnings' and the statements' alike.
 */
export function reconcileYear<N extends string>(
  year: { timelines: Partial<Record<N, Entry[]>> },
  quarters: readonly ({ timelines: Partial<Record<N, Entry[]>> } | undefined)[],
  names: readonly N[],
): ReconciliationState<N>[] | null {
  if (quarters.length !== 4 || quarters.some((q) => !q)) return null;
  const additive = (p: { timelines: Partial<Record<N, Entry[]>> }) => {
    const out: Record<string, Entry[]> = {};
    for (const name of names) if (p.timelines[name]) out[name] = p.timelines[name]!;
    return out;
  };
  return reconcileTimeline(additive(year), quarters.map((q) => additive(q!))).map((v) => ({
    from: v.from,
    reconciled: v.reconciled,
    reconciliation: v.misses.map((m) => ({ metric: m.series as N, quarters_sum: m.quarters_sum, year_value: m.year_value, difference: m.difference })),
  }));
}

/** The miss of one series, or null when the quarters add up to the year within rounding. */
export function compare(series: string, year: number, quarters: readonly number[]): Miss | null {
  let sum = 0;
  let tolerance = precision(year) / 2;
  for (const q of quarters) {
    sum += q;
    tolerance += precision(q) / 2;
  }
  const difference = sum - year;
  return Math.abs(difference) <= tolerance + 1e-9 * Math.abs(year) ? null : { series, quarters_sum: sum, year_value: year, difference };
}

/** The dates on which any input's value changes (a re-report of the same value changes no sum). */
function valueChanges(timelines: readonly (readonly Entry[])[]): string[] {
  const dates = new Set<string>();
  for (const t of timelines) for (let i = 0; i < t.length; i++) if (i === 0 || t[i]!.value !== t[i - 1]!.value) dates.add(t[i]!.from);
  return [...dates].sort();
}

function sameMisses(a: readonly Miss[], b: readonly Miss[]): boolean {
  return a.length === b.length && a.every((m, i) => m.series === b[i]!.series && m.quarters_sum === b[i]!.quarters_sum && m.year_value === b[i]!.year_value);
}

/** The rounding unit a value shows: the largest power of ten up to a million it is a multiple of (1 for others, and 0). */
function precision(value: number): number {
  if (value === 0 || !Number.isInteger(value)) return 1;
  let p = 1;
  while (p < MAX_PRECISION && value % (p * 10) === 0) p *= 10;
  return p;
}
