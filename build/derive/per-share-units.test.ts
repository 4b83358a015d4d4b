// A per-share concept filed in the bare currency (issue 40 item 5): EDGAR's company facts served older per-share facts
// under `USD` rather than `USD/shares`; such a fact is the same per-share value and is never dropped.
import { expect, it } from "vitest";
import { describeEdgar, readEdgar } from "../../test/_edgar.ts";
import { readCompanyFacts } from "./company-facts.ts";
import { deriveEarningsBase } from "./earnings.ts";

const APPLE = "api/xbrl/companyfacts/CIK0000320193.json";
const EPS = ["EarningsPerShareBasic", "EarningsPerShareDiluted"];

interface FactsFile {
  facts: Record<string, Record<string, { units: Record<string, { filed: string }[]> }>>;
}

/** Apple's company facts with its EPS facts filed before `before` moved from `USD/shares` to the bare `USD`. */
function bareCurrencyEps(before: string): string {
  const file = JSON.parse(readEdgar(APPLE)) as FactsFile;
  for (const name of EPS) {
    const units = file.facts["us-gaap"]![name]!.units;
    const [moved, kept] = [units["USD/shares"]!.filter((f) => f.filed < before), units["USD/shares"]!.filter((f) => f.filed >= before)];
    file.facts["us-gaap"]![name]!.units = { USD: moved, ...(kept.length ? { "USD/shares": kept } : {}) };
  }
  return JSON.stringify(file);
}

describeEdgar("EPS filed in the bare currency (Apple's company facts, its EPS units key altered to USD)", () => {
  const asFiled = deriveEarningsBase(readCompanyFacts(readEdgar(APPLE))).series;

  it("is read as USD per share: every period comes out as with USD/shares", () => {
    const bare = deriveEarningsBase(readCompanyFacts(bareCurrencyEps("9999-12-31"))).series;
    expect(bare).toEqual(asFiled);
    // 10-K for fiscal 2023 (0000320193-23-000106): earnings per share basic 6.16, diluted 6.13.
    const fy2023 = bare.periods.find((p) => p.period_start === "2022-09-25" && p.period_end === "2023-09-30")!;
    expect(fy2023.metrics.eps_diluted).toMatchObject({ value: 6.13, unit: "USD/shares", concept: "us-gaap:EarningsPerShareDiluted" });
    expect(fy2023.metrics.eps_basic).toMatchObject({ value: 6.16, unit: "USD/shares" });
  });

  it("a capture with the older facts under USD and the newer under USD/shares: the same series, no restatement from the unit", () => {
    const mixed = deriveEarningsBase(readCompanyFacts(bareCurrencyEps("2015-01-01"))).series;
    expect(mixed).toEqual(asFiled);
    expect(mixed.periods.filter((p) => p.metrics.eps_diluted).length).toBe(asFiled.periods.filter((p) => p.metrics.eps_diluted).length);
  });
});
