// The company's fiscal calendar, learned from its filings as a whole (issue 14 "Fiscal labels"; DESIGN "Labels"):
// where its fiscal years begin and end — 52/53-week years, January year-ends, year-end changes with their transition
// periods — and how it names them. Pure; `fy`/`fp` of a fact describe its filing and only ever vote (pitfall 1).
import type { FiscalQuarter } from "../../schemas/earnings.ts";
import type { Filing } from "./observations.ts";
import { MIN_INTO_YEAR_DAYS, SAME_YEAR_END_DAYS, yearSpans, type CalendarPeriod, type YearSpan } from "./fiscal-years.ts";
import { addDays, dayNumber, durationDays, fitsQuarter, type Months, type QuarterIndex } from "./periods.ts";

export type { CalendarPeriod } from "./fiscal-years.ts";

/** Average fiscal quarter in days (a Gregorian year over four): whole-quarter steps absorb 52/53-week drift. */
const QUARTER_DAYS = 365.2425 / 4;
/** Filing weight halves with every two years of age: the calendar follows how the company names its years now. */
const HALF_LIFE_DAYS = 730;
const FP_QUARTER: Readonly<Record<string, QuarterIndex>> = { Q1: 1, Q2: 2, Q3: 3, Q4: 4, FY: 4 };

/** One fiscal year of the calendar (or the transition period of a year-end change) and its label. */
export interface FiscalYearSpan extends YearSpan {
  label: number;
}

/** Where a period ending on a date falls: its fiscal year (span) and the quarter it ends in. */
export interface FiscalPosition {
  year: FiscalYearSpan;
  quarter: QuarterIndex;
}

/** Fiscal labels of one period and where they came from (issue 14: the calendar decides where a filing contradicts it). */
export interface PeriodLabel {
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  source: "filing" | "calendar";
  /** The original filing when its own `fy`/`fp` agree with the calendar; null otherwise. */
  labelAccession: string | null;
  /** The label the original filing carried when the calendar overrode it. */
  filed: { fiscal_year: number; fiscal_quarter: FiscalQuarter; accession: string } | null;
}

/** The calendar: its year spans in order, the company's periodic filings, and where each period falls. */
export interface FiscalCalendar {
  years: FiscalYearSpan[];
  locate(end: string): FiscalPosition | null;
  /** The labels of a quarter, year-to-date or fiscal year of the calendar; null for any other period. */
  label(period: { start: string; end: string; months: Months }, ends?: readonly string[]): PeriodLabel | null;
  /**
   * A period `label` refuses — a comparative recast on another fiscal calendar (Under Armour's 10-Q of November 2022
   * shows April–September 2021, which is no year-to-date of its calendar-year 2021) — placed by the fiscal year and
   * quarter its end falls in, with why it is no regular period of that year. Null when its end lies in no fiscal year.
   */
  place(period: { start: string; end: string; months: Months }): { label: PeriodLabel; reason: string } | null;
}

/**
 * Learns the calendar: fiscal years from every twelve-month period an annual report states and every year-to-date
 * period's start (year-to-date periods start where a fiscal year does), gaps of whole years filled, a gap of no whole
 * number of years read as the transition period of a year-end change; each run of whole years between transitions
 * is named by a vote of the filings whose own period lies in it (`fy` minus the year's position in the run), weighted
 * towards the most recent, so a filing that mis-tags its year (Walmart's 10-K for the year to 2014-01-31 says 2013)
 * is outvoted. Null when there is nothing to learn from.
 */
export function learnCalendar(periods: readonly CalendarPeriod[], filings: readonly Filing[]): FiscalCalendar | null {
  const ends = [...periods.map((p) => p.end), ...filings.map((f) => f.ownEnd)];
  let found = yearSpans(periods, ends);
  // Nothing states a year or a year-to-date (a newly listed company's first 10-Q is its Q1): the filings' own quarters
  // say where their years begin.
  if (found.length === 0) found = yearSpans(periods, ends, quarterStarts(periods, filings));
  const spans: Span[] = found.map((y) => ({ ...y, label: 0, run: 0, index: 0 }));
  if (spans.length === 0) return null;
  const runs = runsOf(spans);
  nameRuns(runs, spans, filings);
  const starts = spans.map((s) => dayNumber(s.start));
  const byEnd = originalFilings(filings);
  const years = spans.map(({ start, end, known, transition, label }) => ({ start, end, known, transition, label }));

  const locate = (end: string): FiscalPosition | null => {
    const day = dayNumber(end) - MIN_INTO_YEAR_DAYS;
    let i = starts.length - 1;
    while (i >= 0 && starts[i]! > day) i--;
    if (i < 0 || dayNumber(end) > dayNumber(years[i]!.end) + SAME_YEAR_END_DAYS) return null;
    const year = years[i]!;
    const quarter = Math.min(4, Math.max(1, Math.round(durationDays(year.start, end) / QUARTER_DAYS))) as QuarterIndex;
    return { year, quarter };
  };

  const label = (period: { start: string; end: string; months: Months }, ends: readonly string[] = [period.end]): PeriodLabel | null => {
    const at = locate(period.end);
    if (!at || !fitsQuarter(period.months, at.quarter)) return null;
    const fiscalQuarter: FiscalQuarter = period.months === 12 ? "FY" : `Q${at.quarter}`;
    const original = ends.map((e) => byEnd.get(e)).find((f) => f !== undefined);
    if (!original || original.fy === null) {
      return { fiscalYear: at.year.label, fiscalQuarter, source: "calendar", labelAccession: null, filed: null };
    }
    if (original.fy === at.year.label && filingQuarters(original).includes(at.quarter)) {
      return { fiscalYear: at.year.label, fiscalQuarter, source: "filing", labelAccession: original.accn, filed: null };
    }
    const filedQuarter = filingQuarters(original)[0] ?? at.quarter;
    return {
      fiscalYear: at.year.label,
      fiscalQuarter,
      source: "calendar",
      labelAccession: null,
      filed: { fiscal_year: original.fy, fiscal_quarter: period.months === 12 ? "FY" : `Q${filedQuarter}`, accession: original.accn },
    };
  };

  const place = (period: { start: string; end: string; months: Months }): { label: PeriodLabel; reason: string } | null => {
    const at = locate(period.end);
    if (!at) return null;
    const fiscalQuarter: FiscalQuarter = `Q${at.quarter}`;
    const reason =
      `${period.start}..${period.end} (${period.months} months) is no quarter, year-to-date or year of fiscal ${at.year.label} ` +
      `(${at.year.start}..${at.year.end}): a comparative on another fiscal calendar, labelled by the fiscal quarter it ends in`;
    return { label: { fiscalYear: at.year.label, fiscalQuarter, source: "calendar", labelAccession: null, filed: null }, reason };
  };

  return { years, locate, label, place };
}

/**
 * Year starts from the filings' own quarters (`fp` Q1–Q3 on a filing whose own period is a quarter): the quarter's
 * start less the quarters before it. Used only where nothing else shows where a year begins.
 */
function quarterStarts(periods: readonly CalendarPeriod[], filings: readonly Filing[]): string[] {
  const quarters = new Map<string, string>();
  for (const p of periods) if (p.months === 3) quarters.set(p.end, p.start);
  const out = new Set<string>();
  for (const f of filings) {
    const n = f.fp === null ? undefined : FP_QUARTER[f.fp];
    const start = quarters.get(f.ownEnd);
    if (n === undefined || n === 4 || f.ownMonths !== 3 || start === undefined) continue;
    out.add(n === 1 ? start : addDays(start, -Math.round((n - 1) * QUARTER_DAYS)));
  }
  return [...out].sort();
}

/** A year span being named: its run (whole years between transitions) and position in it. */
interface Span extends FiscalYearSpan {
  run: number;
  index: number;
}

/** Numbers the runs of whole years (a transition period ends one and is a run of its own) and each year's place in its run. */
function runsOf(spans: Span[]): Span[][] {
  const runs: Span[][] = [];
  for (const span of spans) {
    const open = runs.at(-1);
    if (!open || span.transition || open[0]!.transition) runs.push([span]);
    else open.push(span);
  }
  runs.forEach((run, r) => run.forEach((span, i) => Object.assign(span, { run: r, index: i })));
  return runs;
}

/**
 * Names every run: the weighted vote of its filings' `fy` − position, the most recent filings weighing most. A run
 * no filing votes for continues its neighbour's numbering; a transition period takes its filings' label when that
 * lies strictly between its neighbours', else the next number after the run before it.
 */
function nameRuns(runs: Span[][], spans: readonly Span[], filings: readonly Filing[]): void {
  const votes = runs.map(() => new Map<number, number>());
  const latest = filings.reduce((max, f) => (f.filed > max ? f.filed : max), "");
  const starts = spans.map((s) => dayNumber(s.start));
  for (const f of filings) {
    if (f.fy === null) continue;
    const day = dayNumber(f.ownEnd) - MIN_INTO_YEAR_DAYS;
    let i = starts.length - 1;
    while (i >= 0 && starts[i]! > day) i--;
    if (i < 0) continue;
    const span = spans[i]!;
    const weight = 2 ** ((dayNumber(f.filed) - dayNumber(latest)) / HALF_LIFE_DAYS);
    const base = f.fy - span.index;
    votes[span.run]!.set(base, (votes[span.run]!.get(base) ?? 0) + weight);
  }
  const bases: (number | null)[] = votes.map((v) => winner(v));
  const order = runs.map((_, r) => r).sort((a, b) => total(votes[b]!) - total(votes[a]!));
  const named = new Set<number>();
  // The most-voted run first: the others fall back on it when their own filings say nothing.
  for (const r of order) {
    const run = runs[r]!;
    let base = bases[r];
    if (run[0]!.transition) {
      const before = lastLabel(runs, r - 1, named);
      const after = firstLabel(runs, r + 1, named, bases);
      const fits = (n: number) => (before === null || n > before) && (after === null || n < after);
      base = base !== null && base !== undefined && fits(base) ? base : before !== null ? before + 1 : after !== null ? after - 1 : base;
    }
    if (base === null || base === undefined) {
      const before = lastLabel(runs, r - 1, named);
      const after = firstLabel(runs, r + 1, named, bases);
      base = before !== null ? before + 1 : after !== null ? after - run.length : nominalYear(run[0]!.end);
    }
    run.forEach((span, i) => (span.label = base! + i));
    named.add(r);
  }
}

/** The filings' own periods by their end: the ORIGINAL filing of a period is the earliest whose own period ends then. */
function originalFilings(filings: readonly Filing[]): Map<string, Filing> {
  const byEnd = new Map<string, Filing>();
  for (const f of [...filings].sort((a, b) => cmp(b.filed, a.filed) || cmp(b.accn, a.accn))) byEnd.set(f.ownEnd, f);
  return byEnd;
}

/**
 * The quarters a filing says its own period ends in: what its period lengths show (a nine-month year-to-date ends
 * in Q3) and what its `fp` says; a 10-Q tagged `fp=FY` (Disney's fiscal 2022) still agrees through its lengths.
 */
function filingQuarters(filing: Filing): QuarterIndex[] {
  const out: QuarterIndex[] = [];
  if (filing.ownMonths >= 3) out.push((filing.ownMonths / 3) as QuarterIndex);
  const tagged = filing.fp === null ? undefined : FP_QUARTER[filing.fp];
  if (tagged !== undefined && !out.includes(tagged)) out.push(tagged);
  return out;
}

function lastLabel(runs: Span[][], r: number, named: Set<number>): number | null {
  return r >= 0 && named.has(r) ? runs[r]!.at(-1)!.label : null;
}

function firstLabel(runs: Span[][], r: number, named: Set<number>, bases: (number | null)[]): number | null {
  if (r >= runs.length) return null;
  if (named.has(r)) return runs[r]![0]!.label;
  return runs[r]![0]!.transition ? null : bases[r] ?? null;
}

function winner(votes: Map<number, number>): number | null {
  let best: number | null = null;
  let weight = 0;
  for (const [base, w] of votes) if (w > weight || (w === weight && best !== null && base > best)) [best, weight] = [base, w];
  return best;
}

function total(votes: Map<number, number>): number {
  let sum = 0;
  for (const w of votes.values()) sum += w;
  return sum;
}

/** A last resort when no filing names a year: the calendar year holding most of its final week. */
function nominalYear(end: string): number {
  return Number(addDays(end, -7).slice(0, 4));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
