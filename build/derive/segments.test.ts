// The series rules on segments (issue 43.2), on small hand-made filings: the latest presentation served, the original
// in the history; a recast marked; restatements; the fourth quarter of one segmentation and one vintage; as of a date.
import { describe, expect, it } from "vitest";
import { segmentPeriodAsOf } from "../../schemas/segments-history.ts";
import type { FiledSegmentFact, SegmentFiling } from "../../schemas/segments.ts";
import { deriveSegments, type LabelledPeriod } from "./segments.ts";

const FY22 = { start: "2021-10-03", end: "2022-10-01" };
const NINE22 = { start: "2021-10-03", end: "2022-07-02" };
const FY23 = { start: "2022-10-02", end: "2023-09-30" };
const NINE23 = { start: "2022-10-02", end: "2023-07-01" };
const label = (span: { start: string; end: string }, fiscal_year: number, fiscal_quarter: LabelledPeriod["fiscal_quarter"], months: LabelledPeriod["months"]): LabelledPeriod => ({
  fiscal_year,
  fiscal_quarter,
  months,
  period_start: span.start,
  period_end: span.end,
  calendar_frame: null,
  alternative_dates: [],
});
const PERIODS = [label(FY22, 2022, "FY", 12), label(NINE22, 2022, "Q3", 9), label({ start: "2022-07-03", end: "2022-10-01" }, 2022, "Q4", 3), label(FY23, 2023, "FY", 12), label(NINE23, 2023, "Q3", 9)];

/** A filing's revenue by business segment for spans, in millions: `{ A: 90, B: 60 }`, with a consolidated total. */
function filing(accession: string, form: string, filed_at: string, spans: [{ start: string; end: string }, Record<string, number>][]): SegmentFiling {
  const facts: FiledSegmentFact[] = [];
  const totals: SegmentFiling["totals"] = [];
  for (const [span, members] of spans) {
    for (const [member, value] of Object.entries(members)) {
      facts.push({ axis: "business", member: `x:${member}Member`, within: null, metric: "revenue", concept: "us-gaap:Revenues", unit: "USD", value, start: span.start, end: span.end });
    }
    const total = Object.values(members).reduce((a, b) => a + b, 0);
    totals.push({ member: null, metric: "revenue", concept: "us-gaap:Revenues", unit: "USD", value: total, start: span.start, end: span.end });
  }
  return { accession, form, filed_at, document: `${accession}.htm`, schema: null, facts, totals };
}

const Q3_22 = filing("0000000001-22-000003", "10-Q", "2022-08-01", [[NINE22, { A: 90, B: 60 }]]);
const K22 = filing("0000000001-22-000010", "10-K", "2022-11-01", [[FY22, { A: 120, B: 80 }]]);
// The next year's third-quarter 10-Q repeats the nine months of 2022 as filed; its 10-K recasts 2022 under segments A and C.
const Q3_23 = filing("0000000001-23-000003", "10-Q", "2023-08-01", [[NINE23, { A: 95, C: 70 }], [NINE22, { A: 90, B: 60 }]]);
const K23 = filing("0000000001-23-000010", "10-K", "2023-11-01", [[FY23, { A: 130, C: 100 }], [FY22, { A: 110, C: 90 }]]);

const rowOf = (rows: ReturnType<typeof deriveSegments>["rows"], end: string, months: number) => rows.find((r) => r.period_end === end && r.months === months)!;
const values = (r: { members: { member: string; revenue: { value: number } | null }[] }) => Object.fromEntries(r.members.map((m) => [m.member, m.revenue!.value]));

describe("segment series", () => {
  const { rows, history } = deriveSegments([K23, Q3_22, Q3_23, K22], PERIODS);

  it("serves a year as the latest filing presents it, marks the recast, keeps the original in the history", () => {
    const fy = rowOf(rows, FY22.end, 12);
    expect(fy).toMatchObject({ source_accession: K23.accession, original_accession: K22.accession, recast: true, fiscal_year: 2022, fiscal_quarter: "FY" });
    expect(values(fy)).toEqual({ "x:AMember": 110, "x:CMember": 90 });
    expect(fy.members[0]!.revenue).toMatchObject({ restated: true, original_value: 120 });
    expect(fy.members[1]!.revenue).toMatchObject({ restated: false, original_value: null });
    expect(history.rows[rows.indexOf(fy)]!.map((p) => p.accession)).toEqual([K22.accession, K23.accession]);
  });

  it("as of a date before the recast, the original presentation, not marked", () => {
    const i = rows.indexOf(rowOf(rows, FY22.end, 12));
    const then = segmentPeriodAsOf(rows[i]!, history.rows[i]!, history.names, "2023-01-01", false)!;
    expect(then).toMatchObject({ source_accession: K22.accession, recast: false });
    expect(values(then)).toEqual({ "x:AMember": 120, "x:BMember": 80 });
    expect(segmentPeriodAsOf(rows[i]!, history.rows[i]!, history.names, "2022-10-31", false)).toBeNull();
  });

  it("derives the fourth quarter from the year and nine months of one segmentation, and keeps it when a later year is recast", () => {
    const q4 = rowOf(rows, FY22.end, 3);
    expect(q4).toMatchObject({ derived: true, derived_from: [K22.accession, Q3_22.accession], source_accession: K22.accession, recast: false, fiscal_quarter: "Q4" });
    expect(values(q4)).toEqual({ "x:AMember": 30, "x:BMember": 20 });
    expect(q4.reconciliation.revenue).toMatchObject({ consolidated: 50, members_total: 50, difference: 0 });
    // The 10-Q of 2023 repeating the nine months is no new vintage; the recast year has other members: one presentation.
    expect(history.rows[rows.indexOf(q4)]).toHaveLength(1);
  });

  it("derives no fourth quarter where a member is missing from the year or the nine months", () => {
    const partial = filing("0000000001-22-000004", "10-Q", "2022-08-01", [[NINE22, { A: 90 }]]);
    const { rows: only } = deriveSegments([partial, K22], PERIODS);
    expect(only.filter((r) => r.months === 3)).toEqual([]);
  });

  it("derives it anew when a later filing restates the figures of one segmentation", () => {
    const restated = filing("0000000001-23-000011", "10-K", "2023-11-01", [[FY22, { A: 125, B: 80 }]]);
    const { rows: all, history: h } = deriveSegments([Q3_22, K22, restated], PERIODS);
    const q4 = rowOf(all, FY22.end, 3);
    expect(values(q4)).toEqual({ "x:AMember": 35, "x:BMember": 20 });
    expect(q4.members[0]!.revenue).toMatchObject({ restated: true, original_value: 30 });
    expect(h.rows[all.indexOf(q4)]!.map((p) => p.inputs)).toEqual([
      [K22.accession, Q3_22.accession],
      [restated.accession, Q3_22.accession],
    ]);
  });

  it("lists rows newest first, the shorter first at one end, and leaves out spans no earnings period has", () => {
    expect(rows.map((r) => `${r.period_end}/${r.months}`)).toEqual(["2023-09-30/3", "2023-09-30/12", "2023-07-01/9", "2022-10-01/3", "2022-10-01/12", "2022-07-02/9"]);
    // A fourth quarter the earnings do not have (here: no 2023 quarter among PERIODS) takes its year's label and its frame.
    expect(rows[0]).toMatchObject({ fiscal_year: 2023, fiscal_quarter: "Q4", period_start: "2023-07-02", calendar_frame: "CY2023Q3", derived: true });
    const stray = filing("0000000001-22-000020", "10-Q", "2022-05-01", [[{ start: "2022-01-02", end: "2022-04-02" }, { A: 1 }]]);
    expect(deriveSegments([stray], PERIODS)).toMatchObject({ rows: [], unlabelled: 1 });
  });
});
