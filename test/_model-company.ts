// A model company for generated tests (fast-check): fiscal calendars of every kind, its years' dates and true values,
// and the helpers that file and shuffle its facts as EDGAR would. Shared by the earnings and statements properties.
import fc from "fast-check";
import { expect } from "vitest";
import { addDays } from "../build/derive/periods.ts";

/** How a model company closes and names its years. */
export interface Calendar {
  /** Month the year ends in (1–12), at its last day or (52/53 weeks) the Saturday nearest it. */
  month: number;
  weeks: boolean;
  /** Years are named by the calendar year they end in (0) or begin in (1). */
  offset: 0 | 1;
  first: number;
  years: number;
}

/** One model fiscal year: its dates, label, and the true values of its quarters. */
export interface ModelYear {
  label: number;
  start: string;
  ends: [string, string, string, string];
  revenue: number[];
  /** Gross profit and operating income: 30–60 % and 10–40 % of each quarter's revenue (never near zero). */
  gross: number[];
  operating: number[];
  /** Net income: may cross zero and near it (a year can be a thousandth of the next). */
  income: number[];
  /** Weighted-average shares, diluted and basic (fewer: the dilutive options are left out). */
  shares: number;
  basic: number;
}

/** Any fiscal calendar: year-end month, 52/53 weeks or not, named by the year it ends or begins in. */
export const calendars = fc.record({
  month: fc.integer({ min: 1, max: 12 }),
  weeks: fc.boolean(),
  offset: fc.constantFrom(0 as const, 1 as const),
  first: fc.integer({ min: 2009, max: 2019 }),
  years: fc.integer({ min: 3, max: 6 }),
});
/** The model's fiscal years: dates from the calendar, values from the draws (thousands of dollars, so no rounding). */
export function modelYears(calendar: Calendar, draws: number[]): ModelYear[] {
  const out: ModelYear[] = [];
  let start = addDays(yearEnd(calendar, calendar.first - 1), 1);
  for (let k = 0; k < calendar.years; k++) {
    const nominal = calendar.first + k;
    const end = yearEnd(calendar, nominal);
    const ends = calendar.weeks
      ? ([addDays(start, 90), addDays(start, 181), addDays(start, 272), end] as ModelYear["ends"])
      : ([1, 2, 3].map((q) => monthEnd(nominal, calendar.month - 12 + q * 3)).concat(end) as ModelYear["ends"]);
    const d = draws.slice(k * 8, k * 8 + 8);
    out.push({
      label: nominal - calendar.offset,
      start,
      ends,
      revenue: d.slice(0, 4).map((v) => v * 1_000_000),
      gross: d.slice(0, 4).map((v, q) => v * 1_000_000 * (30 + ((v + q) % 31)) / 100),
      operating: d.slice(0, 4).map((v, q) => v * 1_000_000 * (10 + ((v + q) % 31)) / 100),
      income: d.slice(4, 8).map((v, q) => (v % 3 === 0 ? -1 : 1) * (v + 20) * 100_000 + q), // never an EPS of 0.00
      shares: 200_000_000 + k * 1_000_000,
      basic: 198_500_000 + k * 1_000_000,
    });
    start = addDays(end, 1);
  }
  return out;
}

/** The 10-K of a year is filed 60 days after it ends. */
export function tenKFiled(year: ModelYear): string {
  return addDays(year.ends[3], 60);
}

/** The year's last day: the month's end, or the Saturday nearest it (52/53-week years). */
export function yearEnd(calendar: Calendar, year: number): string {
  const end = monthEnd(year, calendar.month);
  if (!calendar.weeks) return end;
  const weekday = new Date(`${end}T00:00:00Z`).getUTCDay(); // 6 = Saturday
  const back = (weekday + 1) % 7; // days back to the Saturday on or before
  return back <= 3 ? addDays(end, -back) : addDays(end, 7 - back);
}

/** The last day of a month (months below 1 reach into earlier years). */
export function monthEnd(year: number, month: number): string {
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
}

export function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

export function mulberry(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle<T>(list: T[], random: () => number): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export function shuffleKeys<T>(record: Record<string, T>, random: () => number): Record<string, T> {
  return Object.fromEntries(shuffle(Object.entries(record), random));
}

/** The one row that passes `test` (asserted: none or two fail, naming the spans there are). */
export function only<R extends { period_start: string; period_end: string }>(rows: readonly R[], test: (row: R) => boolean): R {
  const found = rows.filter(test);
  expect(found, `one row (of ${rows.map((p) => `${p.period_start}..${p.period_end}`).join(", ")})`).toHaveLength(1);
  return found[0]!;
}
