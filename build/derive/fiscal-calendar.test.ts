// The fiscal calendar on hand-made filings: year-ends, 52/53-week years, naming, mis-tagged filings, year-end changes.
import { describe, expect, it } from "vitest";
import { learnCalendar, type CalendarPeriod } from "./fiscal-calendar.ts";
import type { Filing } from "./observations.ts";
import { addDays, type Months } from "./periods.ts";

/** A stated fiscal year (an annual report's twelve months). */
const year = (start: string, end: string): CalendarPeriod => ({ start, end, months: 12, annual: true, filings: 2 });
/** A 10-K whose own period is the year ending `end`, tagged `fy`. */
const tenK = (end: string, fy: number, filed = addDays(end, 60)): Filing => ({ accn: `0000000001-${end.slice(2, 4)}-${end.slice(5, 7)}${end.slice(8)}00`, filed, form: "10-K", ownEnd: end, ownMonths: 12, fy, fp: "FY" });
/** A 10-Q whose own period is a quarter (and year-to-date of `months`) ending `end`. */
const tenQ = (end: string, fy: number, fp: string, months = 3): Filing => ({ accn: `0000000002-${end.slice(2, 4)}-${end.slice(5, 7)}${end.slice(8)}00`, filed: addDays(end, 40), form: "10-Q", ownEnd: end, ownMonths: months, fy, fp });
const quarter = (start: string, end: string, months: Months = 3) => ({ start, end, months });

describe("naming and 52/53-week years", () => {
  it("Walmart names a year by the calendar year it ends in", () => {
    const calendar = learnCalendar([year("2022-02-01", "2023-01-31"), year("2023-02-01", "2024-01-31")], [tenK("2023-01-31", 2023), tenK("2024-01-31", 2024)])!;
    expect(calendar.label(quarter("2023-02-01", "2023-04-30"))).toMatchObject({ fiscalYear: 2024, fiscalQuarter: "Q1", source: "calendar" });
    expect(calendar.label(quarter("2022-11-01", "2023-01-31"))).toMatchObject({ fiscalYear: 2023, fiscalQuarter: "Q4", source: "filing" });
    expect(calendar.label(quarter("2022-05-01", "2022-07-31"))).toMatchObject({ fiscalYear: 2023, fiscalQuarter: "Q2" });
    expect(calendar.label(quarter("2023-02-01", "2024-01-31", 12))).toMatchObject({ fiscalYear: 2024, fiscalQuarter: "FY", source: "filing" });
  });

  it("Home Depot names a year by the calendar year it begins in, through a 53-week year", () => {
    const calendar = learnCalendar(
      [year("2023-01-30", "2024-01-28"), year("2024-01-29", "2025-02-02")],
      [tenK("2024-01-28", 2023), tenK("2025-02-02", 2024)],
    )!;
    expect(calendar.label(quarter("2023-01-30", "2023-04-30"))).toMatchObject({ fiscalYear: 2023, fiscalQuarter: "Q1" });
    expect(calendar.label(quarter("2024-10-28", "2025-02-02"))).toMatchObject({ fiscalYear: 2024, fiscalQuarter: "Q4" });
    // The year in progress is projected: its quarters fall in fiscal 2025.
    expect(calendar.label(quarter("2025-02-03", "2025-05-04"))).toMatchObject({ fiscalYear: 2025, fiscalQuarter: "Q1" });
  });

  it("a 16+12+12+12 calendar: 112, 196, 280 and 364 days into the year are Q1–Q4", () => {
    const start = "2023-02-26";
    const calendar = learnCalendar([year("2022-02-27", "2023-02-25"), year(start, addDays(start, 363))], [tenK(addDays(start, 363), 2023)])!;
    for (const [days, q, months] of [[112, 1, 3], [196, 2, 6], [280, 3, 9], [364, 4, 12]] as const) {
      const at = calendar.locate(addDays(start, days - 1))!;
      expect([at.year.label, at.quarter]).toEqual([2023, q]);
      expect(calendar.label(quarter(start, addDays(start, days - 1), months))?.fiscalYear).toBe(2023);
    }
    expect(calendar.locate(addDays(start, -85))).toMatchObject({ year: { label: 2022 }, quarter: 3 });
  });
});

describe("filings that mis-tag their year", () => {
  const years = [2019, 2020, 2021, 2022, 2023].map((y) => year(`${y - 1}-02-01`, `${y}-01-31`));
  it("a 10-K tagged with last year's label is outvoted, and says what it carried", () => {
    const filings = [tenK("2019-01-31", 2019), tenK("2020-01-31", 2020), tenK("2021-01-31", 2020), tenK("2022-01-31", 2022), tenK("2023-01-31", 2023)];
    const calendar = learnCalendar(years, filings)!;
    expect(calendar.years.filter((y) => y.known).map((y) => y.label)).toEqual([2019, 2020, 2021, 2022, 2023]);
    expect(calendar.label(quarter("2020-02-01", "2021-01-31", 12))).toEqual({
      fiscalYear: 2021,
      fiscalQuarter: "FY",
      source: "calendar",
      labelAccession: null,
      filed: { fiscal_year: 2020, fiscal_quarter: "FY", accession: filings[2]!.accn },
    });
  });

  it("a company that changed how it names its years is named as it does now (recent filings weigh most)", () => {
    // Walmart's filings up to 2014 tag the year by its start, later ones by its end.
    const all = [2012, 2013, 2014, 2015, 2016, 2017, 2018].map((y) => year(`${y - 1}-02-01`, `${y}-01-31`));
    const filings = [tenK("2012-01-31", 2011), tenK("2013-01-31", 2012), tenK("2014-01-31", 2013), tenK("2015-01-31", 2015), tenK("2016-01-31", 2016), tenK("2017-01-31", 2017), tenK("2018-01-31", 2018)];
    const calendar = learnCalendar(all, filings)!;
    expect(calendar.years.filter((y) => y.known).map((y) => y.label)).toEqual([2012, 2013, 2014, 2015, 2016, 2017, 2018]);
  });
});

describe("a fiscal-year-end change", () => {
  // Under Armour: calendar years to 2021, a 10-QT for January–March 2022, then years to March.
  const periods = [
    year("2020-01-01", "2020-12-31"),
    year("2021-01-01", "2021-12-31"),
    year("2022-04-01", "2023-03-31"),
    year("2023-04-01", "2024-03-31"),
    { start: "2021-04-01", end: "2021-09-30", months: 6 as const, annual: false, filings: 1 }, // a recast comparative
    { start: "2023-04-01", end: "2023-09-30", months: 6 as const, annual: false, filings: 1 },
  ];
  const filings = [
    tenK("2020-12-31", 2020),
    tenK("2021-12-31", 2021),
    { ...tenQ("2022-03-31", 2022, "Q1"), form: "10-QT" },
    tenK("2023-03-31", 2023),
    tenK("2024-03-31", 2024),
  ];
  const calendar = learnCalendar(periods, filings)!;

  it("the transition period is a span of its own, between the two calendars", () => {
    expect(calendar.years.map((y) => [y.start, y.end, y.label, y.transition])).toContainEqual(["2022-01-01", "2022-03-31", 2022, true]);
    expect(calendar.label(quarter("2022-01-01", "2022-03-31"))).toMatchObject({ fiscalYear: 2022, fiscalQuarter: "Q1", source: "filing" });
  });

  it("years on both calendars keep their labels; a recast comparative opens no year of its own", () => {
    expect(calendar.label(quarter("2021-07-01", "2021-09-30"))).toMatchObject({ fiscalYear: 2021, fiscalQuarter: "Q3" });
    expect(calendar.label(quarter("2021-04-01", "2021-09-30", 6))).toBeNull(); // six months ending in Q3: no fiscal period
    // …but placed by the fiscal year and quarter it ends in, with why it is no period of that year.
    expect(calendar.place(quarter("2021-04-01", "2021-09-30", 6))).toEqual({
      label: { fiscalYear: 2021, fiscalQuarter: "Q3", source: "calendar", labelAccession: null, filed: null },
      reason: expect.stringMatching(/^2021-04-01\.\.2021-09-30 \(6 months\) is no quarter, year-to-date or year of fiscal 2021 \(2021-01-01\.\.2021-12-31\)/),
    });
    expect(calendar.label(quarter("2022-04-01", "2023-03-31", 12))).toMatchObject({ fiscalYear: 2023, fiscalQuarter: "FY" });
    expect(calendar.label(quarter("2023-04-01", "2023-06-30"))).toMatchObject({ fiscalYear: 2024, fiscalQuarter: "Q1" });
  });
});

describe("little to learn from", () => {
  it("a company with 10-Qs only learns its year start from year-to-date periods", () => {
    const calendar = learnCalendar(
      [{ start: "2024-07-01", end: "2024-12-31", months: 6, annual: false, filings: 1 }, { start: "2024-10-01", end: "2024-12-31", months: 3, annual: false, filings: 1 }],
      [tenQ("2024-12-31", 2025, "Q2", 6)],
    )!;
    expect(calendar.label(quarter("2024-10-01", "2024-12-31"))).toMatchObject({ fiscalYear: 2025, fiscalQuarter: "Q2", source: "filing" });
  });

  it("a newly listed company's only filing, a Q1 10-Q: its year begins where its own quarter does", () => {
    const calendar = learnCalendar(
      [quarter("2024-02-01", "2024-04-30"), quarter("2023-02-01", "2023-04-30")].map((p) => ({ ...p, annual: false, filings: 1 })),
      [tenQ("2024-04-30", 2025, "Q1")],
    )!;
    expect(calendar.label(quarter("2024-02-01", "2024-04-30"))).toMatchObject({ fiscalYear: 2025, fiscalQuarter: "Q1", source: "filing" });
    expect(calendar.label(quarter("2023-02-01", "2023-04-30"))).toMatchObject({ fiscalYear: 2024, fiscalQuarter: "Q1", source: "calendar" });
    // A later quarter of the year in progress falls in place too.
    expect(calendar.label(quarter("2024-05-01", "2024-07-31"))).toMatchObject({ fiscalYear: 2025, fiscalQuarter: "Q2" });
  });

  it("a filing's own second quarter with nothing longer: the year begins a quarter before it", () => {
    const calendar = learnCalendar([{ ...quarter("2024-04-01", "2024-06-30"), annual: false, filings: 1 }], [tenQ("2024-06-30", 2024, "Q2")])!;
    expect(calendar.label(quarter("2024-04-01", "2024-06-30"))).toMatchObject({ fiscalYear: 2024, fiscalQuarter: "Q2", source: "filing" });
  });

  it("nothing to learn from: no calendar", () => {
    expect(learnCalendar([], [])).toBeNull();
  });
});
