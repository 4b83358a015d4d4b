// Fourth quarters computed from fiscal years (DESIGN "Q4 is rarely filed on its own"; pitfalls 11–13): Q4 = the year
// − the nine months before it, of the same vintage (vintage.ts). Pure and generic over series; only additive series
// are ever subtracted, never a per-share value or a share count.
import type { Months } from "./periods.ts";
import { addDays, classifyMonths } from "./periods.ts";
import { combineTimelines, conceptAt, differenceTimeline, type ConceptChoice, type Entry } from "./vintage.ts";

/** A period of a fiscal year as Q4 planning sees it: its dates and length. */
export interface Span {
  start: string;
  end: string;
  months: Months;
}

/** The fourth quarter of a fiscal year: its dates and every way the year's periods tile the nine months before it. */
export interface FourthQuarterPlan<T extends Span> {
  start: string;
  end: string;
  tilings: T[][];
}

/**
 * Where a fiscal year's Q4 lies and how its nine months are tiled by the year's filed periods: the nine-month
 * year-to-date, else H1 + Q3, else Q1 + Q2 + Q3 — periods chained by dates, never by `fp` (pitfall 11) — fewest
 * pieces first. Null when no chain of filed periods reaches a point three months before the year's end.
 */
export function planFourthQuarter<T extends Span>(year: T, periods: readonly T[]): FourthQuarterPlan<T> | null {
  const inside = periods.filter((p) => p !== year && p.months !== 12 && p.start >= year.start && p.end < year.end);
  const ends = [...new Set(inside.map((p) => p.end))].sort().reverse();
  for (const end of ends) {
    const start = addDays(end, 1);
    if (classifyMonths(start, year.end) !== 3) continue;
    const tilings = tile(year.start, end, inside, 3).sort((a, b) => a.length - b.length);
    if (tilings.length > 0) return { start, end: year.end, tilings };
  }
  return null;
}

/**
 * One additive series' Q4 over time: a filed Q4 in the concept the year uses; else the year − nine months in that
 * concept (same vintage), from the first tiling whose every part reports the series; else a filed Q4 in another
 * concept. `tilings` hold the parts' timelines per tiling.
 */
export function fourthQuarterTimeline(
  filed: readonly Entry[],
  year: readonly Entry[],
  tilings: readonly (readonly (readonly Entry[])[])[],
  concepts: readonly ConceptChoice[],
): Entry[] {
  const parts = tilings.find((t) => t.every((p) => p.length > 0));
  const derived = parts ? differenceTimeline(year, parts) : [];
  if (filed.length === 0) return derived;
  return combineTimelines(
    [filed, derived],
    ([f, d], date) => {
      const concept = conceptAt(concepts, date);
      return f?.concept === concept ? f : d?.concept === concept ? d : (f ?? d ?? null);
    },
    concepts.map((c) => c.from),
  );
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
