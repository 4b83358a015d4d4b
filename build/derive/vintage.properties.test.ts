// Serving over time against its own definition: on every date, the value in effect is what the same rules give over
// the filings made by then — values filed later left out, values withdrawn by then (`until`) gone. For the served
// values of a fiscal year's periods (vintage.ts servedTimelines: random years of a few periods, concepts, annual and
// interim filings, sums of lines that a later total replaces) and for a derived quarter (quarters.ts quarterTimeline:
// random timelines of a year, its nine months, half and quarters, and a filed quarter).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quarterTimeline } from "./quarters.ts";
import { servedTimelines, type Entry, type FiledValue, type YearPeriod } from "./vintage.ts";

const DATES = ["2020-01-10", "2020-02-10", "2020-03-10", "2020-04-10", "2020-05-10", "2020-06-10"];
const CONCEPTS = ["us-gaap:A", "us-gaap:B", "us-gaap:C"];

/** One filing's value: its date, concept (or a sum of lines), whether an annual report filed it. */
const filedValue = fc.record({ day: fc.integer({ min: 0, max: 5 }), concept: fc.integer({ min: 0, max: 3 }), annual: fc.boolean(), value: fc.integer({ min: 1, max: 9 }) });

/**
 * A fiscal year: up to four periods, the first of them the year itself; each filing's value once per period. As
 * statement-values.ts makes them, a sum of lines (concept 3) stands until the first filing that tags one of the
 * series' own concepts for the period, and none is made after it.
 */
const fiscalYear = fc.array(fc.array(filedValue, { maxLength: 5 }), { minLength: 1, maxLength: 4 }).map((lists) =>
  lists.map((list, i): YearPeriod => {
    const values = list.map(({ day, concept, annual, value }, k): FiledValue => ({
      value,
      concept: concept === 3 ? "us-gaap:A+us-gaap:B" : CONCEPTS[concept]!,
      priority: concept,
      unit: "USD",
      form: annual ? "10-K" : "10-Q",
      annual,
      filed: DATES[day]!,
      accn: `0000000001-20-${String(i * 10 + k).padStart(6, "0")}`,
    }));
    const tagged = values.filter((v) => v.priority < 3).map((v) => v.filed).sort()[0];
    const filed = values.filter((v) => v.priority < 3 || tagged === undefined || v.filed < tagged).map((v) => (v.priority === 3 && tagged !== undefined ? { ...v, until: tagged } : v));
    return { year: i === 0, filed: filed.sort((a, b) => (a.filed < b.filed ? -1 : a.filed > b.filed ? 1 : a.accn < b.accn ? -1 : 1)) };
  }),
);

/** The entry in effect on a date (−: none). */
function inEffect(timeline: readonly Entry[], date: string): string {
  const e = timeline.findLast((x) => x.from <= date);
  return e ? `${e.value} ${e.concept} ${e.accn}` : "−";
}

describe("servedTimelines over time", () => {
  it("on every date, each period's value is the one the rules give over the filings made by then", () => {
    fc.assert(
      fc.property(fiscalYear, (periods) => {
        const { timelines } = servedTimelines(periods);
        for (const date of DATES) {
          // The filings made by then; a value withdrawn by then is gone, one withdrawn later still stands.
          const then = periods.map((p) => ({
            year: p.year,
            filed: p.filed.filter((f) => f.filed <= date && !(f.until !== undefined && f.until <= date)).map(({ until: _later, ...f }) => f),
          }));
          const ofThen = servedTimelines(then).timelines;
          periods.forEach((_, i) => expect(inEffect(timelines[i]!, date), `period ${i} on ${date}`).toBe(inEffect(ofThen[i]!, date)));
        }
      }),
      { numRuns: 2000, seed: 1127 },
    );
  });

  it("a fiscal year from annual reports from the first on; before it, the interim filings' value as it stood", () => {
    const year: YearPeriod = {
      year: true,
      filed: [
        { value: 0, concept: "us-gaap:CommercialPaper", priority: 0, unit: "USD", form: "10-Q", annual: false, accn: "0001193125-14-277160", filed: "2014-07-23" },
        { value: 0, concept: "us-gaap:CommercialPaper", priority: 0, unit: "USD", form: "10-K", annual: true, accn: "0001193125-14-383437", filed: "2014-10-27" },
        { value: 5, concept: "us-gaap:CommercialPaper", priority: 0, unit: "USD", form: "10-Q", annual: false, accn: "0001193125-15-000001", filed: "2015-01-28" },
      ],
    };
    const [timeline] = servedTimelines([year]).timelines;
    expect(timeline!.map((e) => [e.accn, e.from])).toEqual([
      ["0001193125-14-277160", "2014-07-23"],
      ["0001193125-14-383437", "2014-10-27"],
    ]);
  });

  it("a derived quarter on every date is what the timelines made by then give: the fewest periods that tile the months before it then", () => {
    // One concept throughout (a part in another concept is never subtracted: no value then, the last one standing here).
    const timeline = (seed: number) =>
      fc.array(fc.record({ day: fc.integer({ min: 0, max: 5 }), value: fc.integer({ min: 1, max: 40 }), form: fc.constantFrom("10-Q", "10-K", "10-Q/A") }), { maxLength: 3 }).map((list) =>
        list
          .sort((a, b) => a.day - b.day)
          .map(({ day, value, form }, k): Entry => ({ value: value * 10, concept: "us-gaap:A", unit: "USD", accn: `0000000002-20-${String(seed * 10 + k).padStart(6, "0")}`, form, filed: DATES[day]!, from: DATES[day]!, derived: false }))
          .filter((e, k, all) => k === 0 || e.filed !== all[k - 1]!.filed),
      );
    const inputs = fc.record({ year: timeline(0), nine: timeline(1), half: timeline(2), q1: timeline(3), q2: timeline(4), q3: timeline(5), filed: timeline(6) });
    const quarter = (i: { year: Entry[]; nine: Entry[]; half: Entry[]; q1: Entry[]; q2: Entry[]; q3: Entry[]; filed: Entry[] }) =>
      quarterTimeline(i.filed, i.year, [[i.nine], [i.half, i.q3], [i.q1, i.q2, i.q3]], [{ from: DATES[0]!, concept: "us-gaap:A" }]);
    fc.assert(
      fc.property(inputs, (i) => {
        const whole = quarter(i);
        for (const date of DATES) {
          const then = Object.fromEntries(Object.entries(i).map(([k, t]) => [k, t.filter((e) => e.from <= date)])) as typeof i;
          expect(inEffect(whole, date), `on ${date}`).toBe(inEffect(quarter(then), date));
        }
      }),
      { numRuns: 2000, seed: 1127 },
    );
  });
});
