// The invariants every company's series satisfies or marks (issue 14 "Enforced and audited"): unique labels,
// consecutive years, quarters inside their year, one period per span, quarters that add up, no unit-scale jumps in any
// checked series.
// Pure; checks rows as published (the builder before writing, `dataset audit` after), for any list of series.
import { INVARIANTS, type Invariant } from "../../schemas/earnings.ts";
import type { SeriesSpec } from "./observations.ts";
import { dayNumber } from "./periods.ts";
import { compare } from "./reconcile.ts";
import { stepBetween } from "./scale.ts";

const YEAR_DAYS = 365.2425;
/** Dates within a week are the same day of a 52/53-week calendar (issue 14 "Period identity"). */
const WEEK = 7;
/** Neighbouring values of a steady series this close to a step of 1,000 are a unit-scale jump (scale.ts). */
const JUMP_SLACK = 2;
const SAME_SCALE = 30;

/** A published row as the invariants read it. */
export interface SeriesRow {
  fiscal_year: number;
  fiscal_quarter: string;
  months: number;
  period_start: string;
  period_end: string;
  reconciled: boolean | null;
  exceptions: readonly { rule: string; metric: string | null }[];
  metrics: Readonly<Record<string, { value: number; unit: string } | null>>;
}

/** One invariant broken by some rows: marked when every one of them carries the exception that explains it. */
export interface Violation {
  rule: Invariant;
  rows: number[];
  metric: string | null;
  message: string;
  marked: boolean;
}

/** Every violation of the invariants among the rows (their indices), marked or not. */
export function checkInvariants(rows: readonly SeriesRow[], series: Readonly<Record<string, SeriesSpec>>): Violation[] {
  const byLabel = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const key = `${r.fiscal_year} ${r.fiscal_quarter} (${r.months} months)`;
    const list = byLabel.get(key);
    if (list) list.push(i);
    else byLabel.set(key, [i]);
  });
  const laneList = lanes(rows);
  const found: Omit<Violation, "marked">[] = [
    ...uniqueLabels(rows, byLabel),
    ...onePeriodPerSpan(rows, laneList),
    ...consecutiveYears(rows, laneList),
    ...labelsInYears(rows),
    ...reconciled(rows, series, byLabel),
    ...scaleJumps(rows, series, laneList),
  ];
  return found.map((v) => ({ ...v, marked: isMarked(rows, v) }));
}

/**
 * A violation is marked when the data says so: an unreconciled year by `reconciled: false` (never a year marked so
 * whose quarters add up), a scale jump by a scale exception on either side, any other by an exception on every row.
 */
function isMarked(rows: readonly SeriesRow[], v: Omit<Violation, "marked">): boolean {
  if (v.rule === "reconciled") return v.metric !== null && rows[v.rows[0]!]!.reconciled === false;
  if (v.rule === "scale") return v.rows.some((i) => carries(rows[i]!, v.rule, v.metric));
  return v.rows.every((i) => carries(rows[i]!, v.rule, v.metric));
}

/** (fiscal_year, fiscal_quarter, months) names one period. */
function uniqueLabels(rows: readonly SeriesRow[], byLabel: ReadonlyMap<string, number[]>): Omit<Violation, "marked">[] {
  return [...byLabel]
    .filter(([, list]) => list.length > 1)
    .map(([label, list]) => ({ rule: "unique_labels", rows: list, metric: null, message: `${label} names ${list.map((i) => span(rows[i]!)).join(" and ")}` }));
}

/** Never two periods of one length ending within a week of each other. */
function onePeriodPerSpan(rows: readonly SeriesRow[], laneList: readonly number[][]): Omit<Violation, "marked">[] {
  const out: Omit<Violation, "marked">[] = [];
  for (const lane of laneList) {
    for (let k = 1; k < lane.length; k++) {
      const [a, b] = [lane[k - 1]!, lane[k]!];
      if (dayNumber(rows[b]!.period_end) - dayNumber(rows[a]!.period_end) <= WEEK) {
        out.push({ rule: "one_period_per_span", rows: [a, b], metric: null, message: `${span(rows[a]!)} and ${span(rows[b]!)} are one ${rows[a]!.months}-month span` });
      }
    }
  }
  return out;
}

/**
 * Consecutive fiscal years have consecutive labels: as many numbers apart as whole years, one more where a transition
 * period between them (a year-end change) carries the number in between.
 */
function consecutiveYears(rows: readonly SeriesRow[], laneList: readonly number[][]): Omit<Violation, "marked">[] {
  const years = laneList.find((lane) => rows[lane[0]!]!.months === 12) ?? [];
  const out: Omit<Violation, "marked">[] = [];
  for (let k = 1; k < years.length; k++) {
    const [a, b] = [rows[years[k - 1]!]!, rows[years[k]!]!];
    const whole = Math.round((dayNumber(b.period_end) - dayNumber(a.period_end)) / YEAR_DAYS);
    const gap = b.fiscal_year - a.fiscal_year;
    if (gap >= 1 && gap === whole) continue;
    const between = rows.some((r) => r.fiscal_year > a.fiscal_year && r.fiscal_year < b.fiscal_year && r.period_end > a.period_end && r.period_end < b.period_start);
    if (between && gap === whole + 1) continue;
    out.push({
      rule: "consecutive_years",
      rows: [years[k]!],
      metric: null,
      message: `fiscal year ${b.fiscal_year} (to ${b.period_end}) follows fiscal year ${a.fiscal_year} (to ${a.period_end})`,
    });
  }
  return out;
}

/** A quarter's or year-to-date's label lies inside its fiscal year's span, and no other fiscal year's span holds it. */
function labelsInYears(rows: readonly SeriesRow[]): Omit<Violation, "marked">[] {
  const years = rows.filter((r) => r.months === 12).map((y) => ({ y, from: dayNumber(y.period_start) + WEEK, to: dayNumber(y.period_end) + WEEK }));
  const byLabel = new Map(years.map((e) => [e.y.fiscal_year, e.y]));
  const out: Omit<Violation, "marked">[] = [];
  rows.forEach((r, i) => {
    if (r.months === 12) return;
    const end = dayNumber(r.period_end);
    const holder = years.find((e) => end > e.from && end <= e.to)?.y;
    const own = byLabel.get(r.fiscal_year);
    const outside = own !== undefined && (dayNumber(r.period_start) < dayNumber(own.period_start) - WEEK || end > dayNumber(own.period_end) + WEEK);
    if (outside || (holder !== undefined && holder.fiscal_year !== r.fiscal_year)) {
      const year = own ?? holder!;
      out.push({ rule: "label_in_year", rows: [i], metric: null, message: `${span(r)} is labelled ${r.fiscal_year} ${r.fiscal_quarter} but lies in fiscal year ${holder?.fiscal_year ?? "none"} (${span(year)})` });
    }
  });
  return out;
}

/** Q1+Q2+Q3+Q4 = FY within rounding for every additive series, or the year says `reconciled: false`. */
function reconciled(rows: readonly SeriesRow[], series: Readonly<Record<string, SeriesSpec>>, byLabel: ReadonlyMap<string, number[]>): Omit<Violation, "marked">[] {
  const out: Omit<Violation, "marked">[] = [];
  rows.forEach((year, i) => {
    if (year.months !== 12) return;
    const quarters = (["Q1", "Q2", "Q3", "Q4"] as const).map((q) => {
      const found = byLabel.get(`${year.fiscal_year} ${q} (3 months)`);
      return found ? rows[found[0]!] : undefined;
    });
    if (quarters.some((q) => !q)) return;
    const misses = Object.entries(series)
      .filter(([name, spec]) => spec.additive && year.metrics[name] && quarters.every((q) => q!.metrics[name]?.unit === year.metrics[name]!.unit))
      .map(([name]) => compare(name, year.metrics[name]!.value, quarters.map((q) => q!.metrics[name]!.value)))
      .filter((m) => m !== null);
    if (misses.length > 0) {
      const detail = misses.map((m) => `${m.series} ${m.quarters_sum} vs ${m.year_value}`).join("; ");
      out.push({ rule: "reconciled", rows: [i], metric: misses[0]!.series, message: `fiscal year ${year.fiscal_year}: Q1+Q2+Q3+Q4 ≠ FY (${detail})` });
    } else if (year.reconciled === false) {
      out.push({ rule: "reconciled", rows: [i], metric: null, message: `fiscal year ${year.fiscal_year} is marked unreconciled but its quarters add up` });
    }
  });
  return out;
}

/**
 * Neighbouring periods of one length never differ by a unit-scale step unless marked: in steady series, and in the
 * series checked against their neighbours although they can genuinely jump (income, EPS: marked when real).
 */
function scaleJumps(rows: readonly SeriesRow[], series: Readonly<Record<string, SeriesSpec>>, laneList: readonly number[][]): Omit<Violation, "marked">[] {
  const out: Omit<Violation, "marked">[] = [];
  for (const [name, spec] of Object.entries(series)) {
    if (!spec.steady && !spec.checkNeighbours) continue;
    for (const lane of laneList) {
      const withValue = lane.filter((i) => rows[i]!.metrics[name]);
      for (let k = 1; k < withValue.length; k++) {
        const [a, b] = [rows[withValue[k - 1]!]!, rows[withValue[k]!]!];
        const step = stepBetween(b.metrics[name]!.value, a.metrics[name]!.value, JUMP_SLACK, SAME_SCALE);
        if (step === null || step === 1) continue;
        out.push({
          rule: "scale",
          rows: [withValue[k - 1]!, withValue[k]!],
          metric: name,
          message: `${name} ${a.metrics[name]!.value} (${span(a)}) and ${b.metrics[name]!.value} (${span(b)}) differ by about ×${step}: a unit-scale slip or a real change the filings do not resolve`,
        });
      }
    }
  }
  return out;
}

/** How many rows carry each marked exception of `rules` (a year with `reconciled: false` counts under `reconciled`). */
export function countExceptions<R extends string = Invariant>(
  rows: readonly { reconciled: boolean | null; exceptions: readonly { rule: string }[] }[],
  rules: readonly R[] = INVARIANTS as unknown as readonly R[],
): Record<"periods" | R, number> {
  const counts = Object.fromEntries(["periods", ...rules].map((k) => [k, 0])) as Record<"periods" | R, number>;
  for (const row of rows) {
    const found = new Set(row.exceptions.map((e) => e.rule as R));
    if (row.reconciled === false) found.add("reconciled" as R);
    for (const rule of found) counts[rule]++;
    if (found.size > 0) counts.periods++;
  }
  return counts;
}

/** Rows by month class, each lane ordered by period end. */
function lanes(rows: readonly SeriesRow[]): number[][] {
  const byMonths = new Map<number, number[]>();
  rows.forEach((r, i) => {
    const lane = byMonths.get(r.months);
    if (lane) lane.push(i);
    else byMonths.set(r.months, [i]);
  });
  return [...byMonths.values()].map((lane) => lane.sort((a, b) => (rows[a]!.period_end < rows[b]!.period_end ? -1 : rows[a]!.period_end > rows[b]!.period_end ? 1 : 0)));
}

function carries(row: SeriesRow, rule: string, metric: string | null): boolean {
  return row.exceptions.some((e) => e.rule === rule && (metric === null || e.metric === metric));
}

function span(row: SeriesRow): string {
  return `${row.period_start}..${row.period_end}`;
}
