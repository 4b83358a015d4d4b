// The skeleton of a fiscal calendar (issue 14 "Fiscal labels"): the spans of a company's fiscal years, stated or
// projected, and the transition periods of year-end changes. Pure date arithmetic; naming them is fiscal-calendar.ts.
import { addDays, dayNumber, durationDays, type Months } from "./periods.ts";

/** A Gregorian year in days: whole-year steps absorb 52/53-week drift (pitfall 19). */
const YEAR_DAYS = 365.2425;
/** Two year-ends this close (after whole years) belong to one calendar: 52/53-week ends drift by up to a week. */
export const SAME_YEAR_END_DAYS = 10;
/** A twelve-month period lasts this long at least (DESIGN: 52 weeks is 364 days); shorter year spans are transitions. */
const MIN_YEAR_DAYS = 350;
const MAX_YEAR_DAYS = 380;
/** A period's end lies at least this far into its fiscal year (the shortest quarter is 12 weeks). */
export const MIN_INTO_YEAR_DAYS = 40;

/** A period the calendar is learned from: its dates, month class, whether an annual report stated it, by how many filings. */
export interface CalendarPeriod {
  start: string;
  end: string;
  months: Months;
  annual: boolean;
  filings: number;
}

/** One fiscal year (or the transition period of a year-end change): its dates, and whether an annual report stated it. */
export interface YearSpan {
  start: string;
  end: string;
  /** An annual report stated this twelve-month period; otherwise its dates are projected from its neighbours. */
  known: boolean;
  /** The period between two year-ends when the company moved its year-end (Under Armour, January–March 2022). */
  transition: boolean;
}

/**
 * The year spans, oldest first: stated fiscal years, years opened by year-to-date starts that no stated year covers,
 * whole projected years in gaps and at both ends (so every date of `ends` falls in one, and the year in progress
 * too), and transition periods where the year-end moved. `starts` are year starts known otherwise (a filing's own
 * first quarter), taken like year-to-date starts.
 */
export function yearSpans(periods: readonly CalendarPeriod[], ends: readonly string[], starts: readonly string[] = []): YearSpan[] {
  const known = periods.filter((p) => p.months === 12 && p.annual).sort((a, b) => cmp(a.start, b.start));
  const anchors: { start: string; end: string | null; filings: number }[] = [];
  for (const p of known) {
    const last = anchors.at(-1);
    // Overlapping stated years (a twelve-month transition report over a stated year): the one more filings state stands.
    if (last?.end && dayNumber(p.start) <= dayNumber(last.end) - SAME_YEAR_END_DAYS) {
      if (last.filings > p.filings) continue;
      anchors.pop();
    }
    anchors.push({ start: p.start, end: p.end, filings: p.filings });
  }
  const stated = anchors.map((a) => [dayNumber(a.start) + SAME_YEAR_END_DAYS, dayNumber(a.end!) - SAME_YEAR_END_DAYS] as const);
  const opened = [...periods.filter((p) => p.months === 6 || p.months === 9), ...starts.map((start) => ({ start, filings: 1 }))];
  for (const { start, filings } of opened) {
    const day = dayNumber(start);
    // A year-to-date start inside a stated year is a comparative recast on a later calendar (Under Armour's 2022
    // 10-Qs show April–September 2021): the stated year stands.
    if (anchors.some((a) => near(a.start, start)) || stated.some(([from, to]) => day > from && day < to)) continue;
    anchors.push({ start, end: null, filings });
  }
  anchors.sort((a, b) => cmp(a.start, b.start));
  if (anchors.length === 0) return [];

  const spans: YearSpan[] = [];
  const length = typicalLength(known);
  for (let i = 0; i < anchors.length; i++) {
    const { start, end } = anchors[i]!;
    const next = anchors[i + 1]?.start;
    const span = end ?? (next && durationDays(start, next) - 1 <= MAX_YEAR_DAYS ? addDays(next, -1) : addDays(start, length - 1));
    const duration = durationDays(start, span);
    spans.push({ start, end: span, known: end !== null, transition: duration < MIN_YEAR_DAYS });
  }
  const filled = fillGaps(spans, length);
  // Through the latest period any filing reports, and a year beyond: the year in progress.
  const sorted = [...ends].sort();
  extend(filled, sorted[0]!, addDays(sorted.at(-1)!, length), length);
  return filled;
}

/** Projected whole years where a gap is a whole number of years, else whole years then a transition period. */
function fillGaps(spans: YearSpan[], length: number): YearSpan[] {
  const out: YearSpan[] = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last) {
      const gap = dayNumber(span.start) - dayNumber(last.end) - 1;
      if (gap < -SAME_YEAR_END_DAYS && !last.known) last.end = addDays(span.start, -1);
      if (gap > SAME_YEAR_END_DAYS) {
        const years = gap / YEAR_DAYS;
        const whole = Math.abs(years - Math.round(years)) * YEAR_DAYS <= SAME_YEAR_END_DAYS ? Math.round(years) : Math.floor(years);
        let from = addDays(last.end, 1);
        for (let k = 0; k < whole; k++) {
          const to = k === whole - 1 && whole === Math.round(years) ? addDays(span.start, -1) : addDays(from, length - 1);
          out.push({ start: from, end: to, known: false, transition: false });
          from = addDays(to, 1);
        }
        if (from < span.start) out.push({ start: from, end: addDays(span.start, -1), known: false, transition: true });
      }
    }
    out.push(span);
  }
  return out;
}

/** Whole projected years before the first span and after the last until every period end falls in one. */
function extend(spans: YearSpan[], first: string, last: string, length: number): void {
  while (dayNumber(spans[0]!.start) > dayNumber(first) - MIN_INTO_YEAR_DAYS) {
    const end = addDays(spans[0]!.start, -1);
    spans.unshift({ start: addDays(end, 1 - length), end, known: false, transition: false });
  }
  while (spans.at(-1)!.end < last) {
    const start = addDays(spans.at(-1)!.end, 1);
    spans.push({ start, end: addDays(start, length - 1), known: false, transition: false });
  }
}

/** The usual length of the company's stated years (364 for 52/53-week calendars, else 365). */
function typicalLength(known: readonly CalendarPeriod[]): number {
  const lengths = known.map((p) => durationDays(p.start, p.end));
  return lengths.filter((d) => d === 364 || d === 371).length > lengths.length / 2 ? 364 : 365;
}

function near(a: string, b: string): boolean {
  return Math.abs(dayNumber(a) - dayNumber(b)) <= SAME_YEAR_END_DAYS;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
