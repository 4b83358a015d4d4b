import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addDays,
  calendarFrame,
  classifyMonths,
  durationDays,
  fitsQuarter,
  type Months,
} from "./periods.ts";

const from = "2023-01-01";
const spanOf = (days: number): [string, string] => [from, addDays(from, days - 1)];

describe("classifyMonths", () => {
  it.each<[number, Months | null, string]>([
    [30, null, "a month"],
    [84, 3, "12-week quarter (the 12s of a 16+12+12+12 calendar)"],
    [89, 3, "February–April calendar quarter"],
    [91, 3, "13-week quarter"],
    [98, 3, "14-week quarter of a 53-week year"],
    [112, 3, "16-week first quarter"],
    [120, null, "four months: no class"],
    [182, 6, "26-week half"],
    [196, 6, "16+12-week half"],
    [230, null, "seven and a half months"],
    [273, 9, "39-week nine months"],
    [280, 9, "16+12+12-week nine months"],
    [320, null, "ten and a half months"],
    [364, 12, "52-week year"],
    [365, 12, "calendar year"],
    [366, 12, "leap year"],
    [371, 12, "53-week year (Apple FY2023)"],
    [400, null, "longer than a 53-week year"],
  ])("%i days → %s (%s)", (days, months) => {
    expect(classifyMonths(...spanOf(days))).toBe(months);
  });
});

describe("durationDays and addDays", () => {
  it.each([
    ["2022-09-25", "2023-09-30", 371],
    ["2023-02-01", "2024-01-31", 365],
    ["2024-01-01", "2024-12-31", 366],
    ["2023-10-01", "2023-12-30", 91],
  ])("%s..%s is %i days inclusive", (start, end, days) => {
    expect(durationDays(start, end)).toBe(days);
    expect(addDays(start, days - 1)).toBe(end);
  });

  it("agrees with Date arithmetic on any day and offset (1900–2199)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -25_567, max: 83_000 }), fc.integer({ min: -800, max: 800 }), (day, offset) => {
        const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
        expect(addDays(date, offset)).toBe(new Date((day + offset) * 86_400_000).toISOString().slice(0, 10));
      }),
    );
  });

  it("crosses leap days and centuries", () => {
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2100-02-28", 1)).toBe("2100-03-01");
    expect(addDays("2000-03-01", -1)).toBe("2000-02-29");
  });
});

describe("calendarFrame: the calendar quarter a quarter overlaps most, the calendar year holding most of a year's month-ends", () => {
  it.each<[string, string, Months, string | null, string]>([
    ["2023-07-31", "2023-10-29", 3, "CY2023Q3", "DESIGN's example: 31 July–29 October"],
    ["2023-10-01", "2023-12-30", 3, "CY2023Q4", "Apple fiscal Q1 2024"],
    ["2022-09-25", "2022-12-31", 3, "CY2022Q4", "Apple's 14-week Q1 2023"],
    ["2024-02-04", "2024-05-25", 3, "CY2024Q1", "16-week Q1: 57 days in Q1, 55 in Q2"],
    ["2023-02-01", "2024-01-31", 12, "CY2023", "Walmart FY2024"],
    ["2022-09-25", "2023-09-30", 12, "CY2023", "Apple FY2023"],
    ["2015-07-01", "2016-06-30", 12, "CY2016", "June year: six month-ends in each year; EDGAR's frame for Celadon's is CY2016"],
    ["2014-06-29", "2015-06-27", 12, "CY2014", "52-week year to late June: seven month-ends in 2014, five in 2015"],
    ["2023-01-01", "2023-06-30", 6, null, "year-to-date has no frame"],
    ["2023-01-01", "2023-09-30", 9, null, "year-to-date has no frame"],
  ])("%s..%s (%i months) → %s: %s", (start, end, months, frame) => {
    expect(calendarFrame(start, end, months)).toBe(frame);
  });
});

describe("calendarFrame agrees with counting by Date on any quarter or year (1990–2039)", () => {
  /**
   * The rules written the plain way, a day at a time by Date: days of the period in each calendar quarter; for a
   * year, its month-ends (days whose next day is the 1st) in each calendar year; the last best.
   */
  function oracle(start: string, end: string, months: 3 | 12): string | null {
    let best: string | null = null;
    let most = 0;
    const counts = new Map<string, number>();
    for (let t = Date.parse(start); t <= Date.parse(end); t += 86_400_000) {
      const day = new Date(t);
      if (months === 12 && new Date(t + 86_400_000).getUTCDate() !== 1) continue;
      const name = months === 12 ? `CY${day.getUTCFullYear()}` : `CY${day.getUTCFullYear()}Q${Math.floor(day.getUTCMonth() / 3) + 1}`;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    for (const [name, n] of counts) if (n >= most) [best, most] = [name, n];
    return best;
  }
  it("for any start and length of its class", () => {
    fc.assert(
      fc.property(fc.integer({ min: 7305, max: 25_500 }), fc.constantFrom(3 as const, 12 as const), fc.integer({ min: 0, max: 30 }), (day, months, extra) => {
        const start = new Date(day * 86_400_000).toISOString().slice(0, 10);
        const end = addDays(start, (months === 3 ? 80 : 350) + extra);
        expect(calendarFrame(start, end, months)).toBe(oracle(start, end, months));
      }),
      { numRuns: 300 },
    );
  });
});

describe("fitsQuarter: year-to-date length matches the quarter it ends in", () => {
  it.each([
    [3, 1, true],
    [3, 4, true],
    [6, 2, true],
    [6, 3, false],
    [9, 3, true],
    [9, 4, false],
    [12, 4, true],
    [12, 2, false],
  ] as const)("%i months ending in Q%i → %s", (months, quarter, fits) => {
    expect(fitsQuarter(months, quarter)).toBe(fits);
  });
});
