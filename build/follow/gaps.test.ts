// Which daily indexes a feed gap waits for (gaps.ts gapOf): weekdays only, and the next one from an evening on.
import { describe, expect, it } from "vitest";
import { gapOf } from "./gaps.ts";

describe("the days of a feed gap", () => {
  it("a gap within a weekday's business hours: that day", () => {
    // Wednesday 2026-11-25, 10:00–11:00 US Eastern (UTC−5 in November).
    expect(gapOf("2026-11-25T15:00:00.000Z", "2026-11-25T16:00:00.000Z").days).toEqual(["2026-11-25"]);
  });

  it("a gap reaching a Friday evening: Friday and the Monday EDGAR dates the evening's filings, never the weekend", () => {
    // Friday 2026-11-27, 17:32 US Eastern: past 17:30, so the next business day's index too.
    expect(gapOf("2026-11-27T22:32:39.999Z", "2026-11-27T22:32:40.000Z").days).toEqual(["2026-11-27", "2026-11-30"]);
  });

  it("a gap from a Friday evening past midnight: Friday and Monday, which EDGAR dates the evening's filings", () => {
    // Friday 2026-11-27 23:51 to Saturday 00:23 US Eastern (it failed the follower's test on a weekend: Friday only).
    expect(gapOf("2026-11-28T04:51:11.999Z", "2026-11-28T05:23:12.000Z").days).toEqual(["2026-11-27", "2026-11-30"]);
    // Friday 16:00 to Saturday 01:00: the same two.
    expect(gapOf("2026-11-27T21:00:00.000Z", "2026-11-28T06:00:00.000Z").days).toEqual(["2026-11-27", "2026-11-30"]);
  });

  it("a gap over a weekend: the weekdays on both sides; one that starts on a Saturday: the Monday", () => {
    expect(gapOf("2026-11-27T15:00:00.000Z", "2026-11-30T15:00:00.000Z").days).toEqual(["2026-11-27", "2026-11-30"]);
    expect(gapOf("2026-11-28T15:00:00.000Z", "2026-11-28T23:00:00.000Z").days).toEqual(["2026-11-30"]);
  });
});
