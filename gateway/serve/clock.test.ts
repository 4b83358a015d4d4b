import { describe, expect, it } from "vitest";
import { isoAt } from "./clock.ts";

describe("isoAt", () => {
  it("writes what Date's toISOString writes, across second, day, year and epoch boundaries", () => {
    const starts = [Date.UTC(2026, 11, 31, 23, 59, 58), Date.UTC(2024, 1, 28, 23, 59, 59), 0, -2_000, Date.UTC(9999, 11, 31, 23, 59, 59)];
    for (const start of starts) {
      for (let ms = start; ms < start + 2_500; ms += 7) expect(isoAt(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it("drops a fraction of a millisecond as Date does, and answers the same text for the same millisecond", () => {
    const ms = Date.UTC(2026, 10, 23, 1, 2, 3, 456);
    expect(isoAt(ms + 0.75)).toBe("2026-11-23T01:02:03.456Z");
    expect(isoAt(ms)).toBe("2026-11-23T01:02:03.456Z");
    for (const before1970 of [-0.5, -1500.25, -999.9]) expect(isoAt(before1970)).toBe(new Date(before1970).toISOString());
    expect(isoAt(ms - 1000)).toBe(new Date(ms - 1000).toISOString()); // back in time: the second's prefix is remade
  });

  it("refuses an invalid time as Date does", () => {
    expect(() => isoAt(Number.NaN)).toThrow(RangeError);
    expect(() => isoAt(8.64e15 + 1)).toThrow(RangeError);
  });
});
