// One figure rounded two ways is not a restatement; a change, however round the figures, is.
import { describe, expect, it } from "vitest";
import { precision, sameFigure } from "./figures.ts";

describe("filed figures and their precision", () => {
  it("reads the rounding unit from the digits, up to a million", () => {
    expect([55_716_996, 55_717_000, 23_182_600_000, 23_183_000_000, 5e12, 0, 6.16].map(precision)).toEqual([1, 1_000, 100_000, 1_000_000, 1_000_000, 1, 1]);
  });

  it("figures within one unit of the coarser and a tenth of a percent of each other are one figure (rounded or cut)", () => {
    // SUNation (then Communications Systems): net income of the quarter to 2019-09-30, 1,737,859 in its 10-Q
    // (0000897101-19-000957) and 1,737,000 in the quarterly data of its 10-K/A of 2020-03-17 (0000897101-20-000171).
    expect(sameFigure(1_737_859, 1_737_000)).toBe(true);
    // McDonald's 2022 revenue: 23,182.6 ($ millions) in its 10-K of 2023, 23,183 in its 10-K of 2025.
    expect(sameFigure(23_182_600_000, 23_183_000_000)).toBe(true);
    // Walmart's net income for the quarter to 2012-07-31: 4,016 then 4,017 ($ millions), re-rounded.
    expect(sameFigure(4_016_000_000, 4_017_000_000)).toBe(true);
    expect(sameFigure(5_746_000, 5_746_182)).toBe(true); // the finer later
    expect(sameFigure(-1_544_732, -1_545_000)).toBe(true);
  });

  it("anything else is a change: more than a unit apart, or more than a tenth of a percent", () => {
    expect(sameFigure(1_737_859, 1_739_000)).toBe(false);
    expect(sameFigure(100_000, 110_000)).toBe(false); // one unit of the digits, but 10 %: round figures overstate their unit
    expect(sameFigure(100, 95)).toBe(false);
    expect(sameFigure(12_499, 12_000)).toBe(false); // a small figure in thousands: 4 %, left a change
    expect(sameFigure(0.56, 0.57)).toBe(false);
  });
});
