// Quarters computed from longer periods of the same vintage (vintage.ts): Q4 = the year − the nine months before it
// (DESIGN "Q4 is rarely filed on its own"; pitfalls 11–13) and, for cash flows filed year to date (issue 18), Q2 = the
// half − Q1 and Q3 = nine months − the half. Pure and generic over series; only additive series are ever subtracted,
// never a per-share value or a share count.
import type { Months } from "./periods.ts";
import { addDays, classifyMonths } from "./periods.ts";
import { combineTimelines, conceptAt, conceptOf, differenceTimeline, type ConceptChoice, type Entry } from "./vintage.ts";

/** A period of a fiscal year as Q4 planning sees it: its dates and length. */
export interface Span {
  start: string;
  end: string;
  months: Months;
}

/** The last quarter of a period: its dates and every way the shorter periods tile the months before it. */
export interface QuarterPlan<T extends Span> {
  start: string;
  end: string;
  tilings: T[][];
}

/**
 * Where the last quarter of `total` (a fiscal year, or a half or nine months year to date) lies and how the months
 * before it are tiled by shorter periods: for a year the nine-month year-to-date, else H1 + Q3, else Q1 + Q2 + Q3 —
 * periods chained by dates, never by `fp` (pitfall 11) — fewest pieces first. Null when no chain reaches a point three
 * months before the total's end.
 */
export function planLastQuarter<T extends Span>(total: T, periods: readonly T[]): QuarterPlan<T> | null {
  const inside = periods.filter((p) => p !== total && p.months < total.months && p.start >= total.start && p.end < total.end);
  const ends = [...new Set(inside.map((p) => p.end))].sort().reverse();
  for (const end of ends) {
    const start = addDays(end, 1);
    if (classifyMonths(start, total.end) !== 3) continue;
    const tilings = tile(total.start, end, inside, 3).sort((a, b) => a.length - b.length);
    if (tilings.length > 0) return { start, end: total.end, tilings };
  }
  return null;
}

/**
 * One additive series' last quarter over time (Q4, or a cash flow's Q2/Q3): a filed quarter in the concept the fiscal
 * year uses — unless the total − the months before is of a later vintage (every input first
 * reported after the filed quarter: McDonald's 10-K of February 2020 filed 2019's fourth quarter, 5,349.0; its 2020
 * 10-Qs restated the nine months and its 10-K of February 2021 the year: 21,364.4 − 15,936.2 = 5,428.2 from then) —;
 * else that difference (same vintage, from the first tiling whose every part reports the series by then); else a filed
 * quarter in another concept. `tilings` hold the parts' timelines per tiling.
 */
export function quarterTimeline(
  filed: readonly Entry[],
  year: readonly Entry[],
  tilings: readonly (readonly (readonly Entry[])[])[],
  concepts: readonly ConceptChoice[],
): Entry[] {
  const derived = differenceOverTime(year, tilings);
  if (filed.length === 0) return derived;
  return combineTimelines(
    [filed, derived],
    ([f, d], date) => {
      const concept = conceptAt(concepts, date);
      if (inConcept(f, concept) && inConcept(d, concept)) return (d.vintage ?? d.filed) > f.filed ? d : f;
      if (inConcept(f, concept)) return f;
      if (inConcept(d, concept)) return d;
      return f ?? d ?? null;
    },
    concepts.map((c) => c.from),
  );
}

/** Whether an entry is in a concept the fiscal year chose (a sum of lines is known by its formula: Entry.basis). */
function inConcept(e: Entry | null | undefined, concept: string | null): e is Entry {
  return !!e && conceptOf(e) === concept;
}

/**
 * The total − the months before it over time, on each date from the first tiling (fewest pieces first) whose every
 * part reports the series by then: SunEdison's 2014 fourth quarter is the year − the half − the third quarter from its
 * 10-K of March 2015, and the year − the nine months once its 10-Q of November 2015 first tagged them in the year's
 * concept.
 */
function differenceOverTime(year: readonly Entry[], tilings: readonly (readonly (readonly Entry[])[])[]): Entry[] {
  const choices: { from: string; timeline: Entry[] }[] = [];
  for (const parts of tilings) {
    if (!parts.every((p) => p.length > 0)) continue;
    const from = parts.reduce((latest, p) => (p[0]!.from > latest ? p[0]!.from : latest), "");
    choices.push({ from, timeline: differenceTimeline(year, parts) });
    if (year.length === 0 || from <= year[0]!.from) break; // preferred from the year's first report on: none before it matters
  }
  if (choices.length <= 1) return choices[0]?.timeline ?? [];
  return combineTimelines(
    choices.map((c) => c.timeline),
    (current, date) => current[choices.findIndex((c) => c.from <= date)] ?? null,
    choices.map((c) => c.from),
  );
}

/**
 * Each series' last quarter of `total` over time (quarterTimeline), set on `quarter`: the earnings' Q4 and the cash
 * flows' Q2, Q3 and Q4 alike. `concepts` are the fiscal year's concept choices per series (vintage.ts serveYear).
 */
export function fillQuarter<N extends string, P extends Span & { timelines: Partial<Record<N, Entry[]>> }>(
  quarter: { timelines: Partial<Record<N, Entry[]>> },
  total: P,
  plan: QuarterPlan<P>,
  names: readonly N[],
  concepts: Partial<Record<N, ConceptChoice[]>>,
): void {
  for (const name of names) {
    const whole = total.timelines[name];
    if (!whole) continue;
    const tilings = plan.tilings.map((t) => t.map((p) => p.timelines[name] ?? []));
    const timeline = quarterTimeline(quarter.timelines[name] ?? [], whole, tilings, concepts[name] ?? []);
    if (timeline.length) quarter.timelines[name] = timeline;
  }
}

/** Every chain of periods running exactly from `start` to `end`, each piece starting the day after the last. */
function tile<T extends Span>(start: string, end: string, periods: readonly T[], depth: number): T[][] {
  if (depth === 0) return [];
  const out: T[][] = [];
  for (const p of periods) {
    if (p.start !== start || p.end > end) continue;
    if (p.end === end) out.push([p]);
    else for (const rest of tile(addDays(p.end, 1), end, periods, depth - 1)) out.push([p, ...rest]);
  }
  return out;
}
