// Period arithmetic: classing a (start, end) duration, SEC calendar frames, day numbers, how close two dates of one period are.
// Pure date arithmetic on YYYY-MM-DD strings (UTC days): no clock, no I/O, no knowledge of filings.

/** The month classes a period can have (DESIGN "Field names": months 3, 6, 9 or 12). */
export type Months = 3 | 6 | 9 | 12;
/** The fiscal quarter a period ends in: 1–4 (4 is also the fiscal year's end). */
export type QuarterIndex = 1 | 2 | 3 | 4;
/**
 * Two durations of one month class whose starts and ends are this close are the same period (issue 14 "Period
 * identity"; period-identity.ts merges them, observations.ts tells a misdated figure from a neighbouring period by it).
 */
export const SAME_PERIOD_DAYS = 7;

// Inclusive day counts per class. Quarters are 12, 13, 14 or 16 weeks (84, 91, 98, 112 days) or calendar
// quarters (89–92): a 16-week Q1 (16+12+12+12 calendars, e.g. grocers) is still a quarter, so 80–115 is a quarter
// and a four-month period (~120 days) is not. Half years: 24–28 weeks or 181–184 days (16+12 = 196). Nine months:
// 36–40 weeks or 273–274 days (16+12+12 = 280). Years: 52/53 weeks (364/371) or 365/366 days (pitfall 19).
// Gaps between the classes (4–5, 7–8, 10–11 months, or longer than a 53-week year) are not periods we publish.
const CLASSES: readonly { months: Months; min: number; max: number }[] = [
  { months: 3, min: 80, max: 115 },
  { months: 6, min: 165, max: 205 },
  { months: 9, min: 250, max: 295 },
  { months: 12, min: 350, max: 380 },
];

/** Inclusive length of a period in days: 2022-09-25..2023-09-30 (Apple FY2023, 53 weeks) is 371. */
export function durationDays(start: string, end: string): number {
  return dayNumber(end) - dayNumber(start) + 1;
}

/** The month class of a duration (3, 6, 9 or 12), or null when it fits none (see CLASSES for the tolerances). */
export function classifyMonths(start: string, end: string): Months | null {
  const days = durationDays(start, end);
  for (const c of CLASSES) if (days >= c.min && days <= c.max) return c.months;
  return null;
}

/** The date `days` after `date` (negative goes back), by integer arithmetic (no Date object: a hot call). */
export function addDays(date: string, days: number): string {
  // Civil from days (H. Hinnant), the inverse of dayNumber.
  const z = dayNumber(date) + days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${y}-${m < 10 ? "0" : ""}${m}-${d < 10 ? "0" : ""}${d}`;
}

/**
 * The SEC frame a period would file under (pitfall 4, DESIGN `CY2023Q4`): a quarter → the calendar quarter it
 * overlaps most (31 Jul–29 Oct → CY…Q3), a fiscal year → the calendar year holding most of its month-ends (EDGAR's
 * own frames: Celadon's years from July to June, 184 days in the first calendar year and 181 or 182 in the second,
 * are the second's — six month-ends each), year-to-date → null. On a tie the later calendar period wins (the one
 * holding the period's end).
 */
export function calendarFrame(start: string, end: string, months: Months): string | null {
  if (months === 6 || months === 9) return null;
  if (months === 12) return yearFrame(start, end);
  const [first, last] = [dayNumber(start), dayNumber(end)];
  let best: string | null = null;
  let bestOverlap = 0;
  for (let y = Number(start.slice(0, 4)); y <= Number(end.slice(0, 4)); y++) {
    for (let from = 1; from <= 12; from += 3) {
      const to = from + 3; // the month after the quarter (13: January of the next year)
      const overlap = Math.min(last, daysFromCivil(to === 13 ? y + 1 : y, to === 13 ? 1 : to, 1) - 1) - Math.max(first, daysFromCivil(y, from, 1)) + 1;
      if (overlap > 0 && overlap >= bestOverlap) [best, bestOverlap] = [`CY${y}Q${(from + 2) / 3}`, overlap];
    }
  }
  return best;
}

/** The calendar year holding most of a fiscal year's month-ends, the later on a tie. */
function yearFrame(start: string, end: string): string {
  const [first, last] = [dayNumber(start), dayNumber(end)];
  let best = Number(end.slice(0, 4));
  let most = -1;
  for (let y = Number(start.slice(0, 4)); y <= Number(end.slice(0, 4)); y++) {
    let count = 0;
    for (let m = 1; m <= 12; m++) {
      const monthEnd = daysFromCivil(m === 12 ? y + 1 : y, m === 12 ? 1 : m + 1, 1) - 1;
      if (monthEnd >= first && monthEnd <= last) count++;
    }
    if (count > 0 && count >= most) [best, most] = [y, count];
  }
  return `CY${best}`;
}

/** True when a period's length fits the quarter it ends in: year-to-date 6, 9, 12 months end in Q2, Q3, Q4. */
export function fitsQuarter(months: Months, quarter: QuarterIndex): boolean {
  return months === 3 || months / 3 === quarter;
}

/** Days since 1970-01-01 of a YYYY-MM-DD string, by integer arithmetic (the hottest call of a derivation). */
export function dayNumber(date: string): number {
  // charCodeAt − 48 per digit, written out: a helper closure here costs more than the arithmetic.
  const y = date.charCodeAt(0) * 1000 + date.charCodeAt(1) * 100 + date.charCodeAt(2) * 10 + date.charCodeAt(3) - 53_328;
  const m = date.charCodeAt(5) * 10 + date.charCodeAt(6) - 528;
  const d = date.charCodeAt(8) * 10 + date.charCodeAt(9) - 528;
  return daysFromCivil(y, m, d);
}

/** Days since 1970-01-01 of a year, month (1–12) and day (H. Hinnant's days from civil: March-based years put the leap day last). */
function daysFromCivil(year: number, m: number, d: number): number {
  const y = m <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}
