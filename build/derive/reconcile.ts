// Do a fiscal year's quarters add up to the year? (issue 14: Q1+Q2+Q3+Q4 = FY "beyond rounding", else the year is
// marked `reconciled: false` with the difference). Pure; generic over additive series.
import { precision } from "../../schemas/figures.ts";
import { append, changeDates, conceptOf, inEffect, type Entry } from "./vintage.ts";

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

/**
 * One vintage per fiscal year where the latest values mix vintages (issue 14): on a date when the quarters, as the
 * latest filings give them, do not add up to the year, but the filing that gave the year's value in effect also gave
 * all four of its quarters (an annual report's quarterly data, or a fourth quarter of its own year and nine months)
 * and those add up to it, that filing's quarters are served. The later values came from filings that restated a
 * quarter and not the year; they serve again once they add up to the year in effect (a later filing restated the year
 * too). Year-to-date periods (`toDate`, of their number of quarters) follow where their value as of that filing is the
 * sum of its quarters. The year is always its latest value: the spec's "the latest filed value wins" for the year,
 * and where the latest values of its periods agree. McDonald's 10-K of February 2020 gave 2019 and its four quarters
 * (21,076.5 million); its 10-Q of May 2020 restated the first quarter alone (4,955.6 → 5,024.1): the year is the
 * 10-K's set until its 10-K of February 2021 restated the year to 21,364.4, which the restated quarters add up to.
 * Changes the timelines in place (the earnings' and any statement's alike); quarters missing a series leave it as is.
 */
function holdYearSet<N extends string>(
  year: { timelines: Partial<Record<N, Entry[]>> },
  quarters: readonly ({ timelines: Partial<Record<N, Entry[]>> } | undefined)[],
  toDate: readonly { quarters: number; timelines: Partial<Record<N, Entry[]>> }[],
  names: readonly N[],
): void {
  if (quarters.length !== 4 || quarters.some((q) => !q)) return;
  for (const name of names) {
    const total = year.timelines[name];
    const parts = quarters.map((q) => q!.timelines[name]);
    if (!total?.length || parts.some((t) => !t?.length)) continue;
    // Only a filing that gave the year and all four quarters can hold them (most years have none), and only where the
    // quarters' later values do not add up to its year: seen on the few dates its year is in effect and a quarter changes.
    if (!total.some((y, i) => parts.every((t) => t!.some((e) => e.accn === y.accn)) && needsHold(name, y, total[i + 1]?.from, parts as Entry[][]))) continue;
    const ytds = toDate.filter((p) => p.timelines[name]?.length);
    const served = parts.map((): Entry[] => []);
    const ytdServed = ytds.map((): Entry[] => []);
    let held = false;
    for (const date of changeDates([total, ...(parts as Entry[][]), ...ytds.map((p) => p.timelines[name]!)])) {
      const y = inEffect(total, date);
      const latest = parts.map((t) => inEffect(t!, date));
      let set: Entry[] | null = null;
      if (y && fits(y, latest) && compare(name, y.value, latest.map((e) => e!.value)) !== null) {
        const own = parts.map((t) => lastOf(t!, y.accn, date));
        if (fits(y, own) && compare(name, y.value, own.map((e) => e!.value)) === null) set = own as Entry[];
      }
      held ||= set !== null;
      (set ?? latest).forEach((e, i) => e && serve(served[i]!, e, date));
      ytds.forEach((p, k) => {
        const timeline = p.timelines[name]!;
        let pick = inEffect(timeline, date);
        if (set) {
          const then = inEffect(timeline, y!.filed);
          if (then && then.unit === y!.unit && compare(name, then.value, set.slice(0, p.quarters).map((e) => e.value)) === null) pick = then;
        }
        if (pick) serve(ytdServed[k]!, pick, date);
      });
    }
    if (!held) continue;
    quarters.forEach((q, i) => (q!.timelines[name] = served[i]!));
    ytds.forEach((p, k) => (p.timelines[name] = ytdServed[k]!));
  }
}

/** Whether, while the year entry `y` is in effect (until `until`), the quarters at some date do not add up to it but its own filing's do. */
function needsHold(name: string, y: Entry, until: string | undefined, parts: readonly Entry[][]): boolean {
  const own = parts.map((t) => t.findLast((e) => e.accn === y.accn && (until === undefined || e.from < until)) ?? null);
  if (!fits(y, own) || compare(name, y.value, own.map((e) => e!.value)) !== null) return false;
  for (const date of changeDates(parts.map((t) => t.filter((e) => e.from >= y.from && (until === undefined || e.from < until))), [y.from])) {
    const latest = parts.map((t) => inEffect(t, date));
    if (fits(y, latest) && compare(name, y.value, latest.map((e) => e!.value)) !== null) return true;
  }
  return false;
}

/** Whether every entry is there, in the total's concept and unit. */
function fits(total: Entry, entries: readonly (Entry | null)[]): boolean {
  return entries.every((e) => e !== null && e.unit === total.unit && conceptOf(e) === conceptOf(total));
}

/** The last entry of a timeline a filing gave, in effect on or before a date. */
function lastOf(timeline: readonly Entry[], accn: string, date: string): Entry | null {
  let found: Entry | null = null;
  for (const e of timeline) {
    if (e.from > date) break;
    if (e.accn === accn) found = e;
  }
  return found;
}

/** Serves an entry from a date on, unless it is what the timeline serves already. */
function serve(timeline: Entry[], e: Entry, date: string): void {
  append(timeline, e.from === date ? e : { ...e, from: date });
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

/**
 * holdYearSet over one fiscal year's periods (the earnings' and the cash flows' alike): its year, its four quarters
 * and its half and nine months to date, told apart by their length and fiscal quarter.
 */
export function holdFiscalYearSet<N extends string, P extends { months: number; timelines: Partial<Record<N, Entry[]>> }>(
  group: readonly P[],
  quarterOf: (period: P) => string,
  names: readonly N[],
): void {
  const year = group.find((p) => p.months === 12 && quarterOf(p) === "FY");
  if (!year) return;
  const quarters = (["Q1", "Q2", "Q3", "Q4"] as const).map((q) => group.find((p) => p.months === 3 && quarterOf(p) === q));
  const toDate = group.filter((p) => (p.months === 6 && quarterOf(p) === "Q2") || (p.months === 9 && quarterOf(p) === "Q3"));
  holdYearSet(year, quarters, toDate.map((p) => ({ quarters: p.months / 3, timelines: p.timelines })), names);
}
