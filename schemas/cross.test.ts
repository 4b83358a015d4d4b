// Two screen values are one state only when every field agrees, and a state is stored and read back whole: the
// named comparison and the written-out stored order are checked against the schema's fields.
import { describe, expect, it } from "vitest";
import { readState, sameScreenValue, ScreenValue, storeState, StoredState } from "./cross.ts";

const VALUE: ScreenValue = {
  ...{ value: 94_930_000_000, unit: "USD", concept: "RevenueFromContractWithCustomerExcludingAssessedTax", fiscal_year: 2024, fiscal_quarter: "Q4", months: 3 },
  ...{ period_start: "2024-06-30", period_end: "2024-09-28", derived: false, restated: false, original_value: null, marks: ["scale_corrected"] },
  ...{ source_accession: "0000320193-24-000123", filed_at: "2024-11-01" },
};

/** A value of the field's own type that differs from VALUE's. */
const OTHER: { [K in keyof ScreenValue]: ScreenValue[K] } = {
  ...{ value: 1, unit: "USD/shares", concept: "Revenues", fiscal_year: 2023, fiscal_quarter: "Q3", months: 12 },
  ...{ period_start: "2024-07-01", period_end: "2024-09-30", derived: true, restated: true, original_value: 94_000_000_000, marks: ["sign"] },
  ...{ source_accession: "0000320193-25-000008", filed_at: "2025-01-31" },
};

describe("sameScreenValue", () => {
  it("holds for equal values and none, and fails when any one field of the schema differs", () => {
    expect(sameScreenValue(VALUE, { ...VALUE, marks: [...VALUE.marks] })).toBe(true);
    expect(sameScreenValue(null, null)).toBe(true);
    expect([sameScreenValue(VALUE, null), sameScreenValue(null, VALUE)]).toEqual([false, false]);
    const fields = Object.keys(ScreenValue.shape) as (keyof ScreenValue)[];
    expect(fields.sort()).toEqual(Object.keys(OTHER).sort());
    for (const field of fields) expect([field, sameScreenValue(VALUE, { ...VALUE, [field]: OTHER[field] })]).toEqual([field, false]);
    expect(sameScreenValue(VALUE, { ...VALUE, marks: ["scale_corrected", "sign"] })).toBe(false);
    expect(sameScreenValue(VALUE, { ...VALUE, marks: [] })).toBe(false);
  });
});

describe("storeState", () => {
  it("stores every field of the schema where readState and the stored schema read it", () => {
    for (const row of [VALUE, OTHER, null]) {
      const stored = storeState({ from: "2024-11-01", row });
      expect(StoredState.parse(stored)).toEqual(stored);
      expect(readState(stored)).toEqual({ from: "2024-11-01", row });
    }
    expect(storeState({ from: "2024-11-01", row: VALUE })).toHaveLength(1 + Object.keys(ScreenValue.shape).length);
  });
});
