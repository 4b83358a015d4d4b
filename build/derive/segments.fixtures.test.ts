// Segments on the real filings (issue 43.5), hand-checked against the published segment notes: each expected figure
// names the filing and note it is read from (USD millions). The fixtures are cuts of the shared filings set
// (test/fixtures/cut-xbrl.ts); the last suite checks, on the whole set, that a cut reads as its original.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { SegmentFiling, SegmentPeriod } from "../../schemas/segments.ts";
import { describeEdgar, describeFilings, FILINGS } from "../../test/_edgar.ts";
import { fixtureSegments, segmentFilingOf, xbrlDocuments } from "../../test/_segments.ts";
import { cutInlineXbrl, cutXbrlInstance } from "../../test/fixtures/cut-xbrl.ts";
import { parseInlineXbrl } from "../parse/inline-xbrl.ts";
import { parseXbrlInstance } from "../parse/xbrl-instance.ts";

const M = 1_000_000;
const AAPL = 320193;
const WMT = 104169;
const HD = 354950;
const GOOGL = 1652044;

/** A row by axis, fiscal year and quarter (one per span: the invariants below check it). */
function row(rows: readonly SegmentPeriod[], axis: SegmentPeriod["axis"], year: number, quarter: SegmentPeriod["fiscal_quarter"], months = quarter === "FY" ? 12 : 3): SegmentPeriod {
  const found = rows.filter((r) => r.axis === axis && r.fiscal_year === year && r.fiscal_quarter === quarter && r.months === months);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** Each member's revenue and operating income in millions, by name (`segment / name` for one within a segment). */
function figures(r: SegmentPeriod): Record<string, [number | null, number | null]> {
  return Object.fromEntries(r.members.map((m) => [m.segment ? `${m.segment.name} / ${m.name}` : m.name, [m.revenue && m.revenue.value / M, m.operating_income && m.operating_income.value / M]]));
}

describeEdgar("segments of Apple, from its 10-Ks for fiscal 2022–2024 and its 10-Qs", () => {
  const { rows, unlabelled } = fixtureSegments(AAPL);

  it("fiscal 2023 by reportable segment, as its 10-K's note 13 (0000320193-23-000106) states, served from the 10-K for fiscal 2024 that repeats it", () => {
    const fy = row(rows, "business", 2023, "FY");
    expect(figures(fy)).toEqual({
      Americas: [162_560, 60_508],
      Europe: [94_294, 36_098],
      "Greater China": [72_559, 30_328],
      Japan: [24_257, 11_888],
      "Rest of Asia Pacific": [29_615, 12_066],
    });
    expect(fy).toMatchObject({ source_accession: "0000320193-24-000123", original_accession: "0000320193-23-000106", recast: false, derived: false, period_start: "2022-09-25", period_end: "2023-09-30" });
    expect(fy.members[0]!).toMatchObject({ member: "aapl:AmericasSegmentMember", name: "Americas", revenue: { concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", unit: "USD", restated: false, original_value: null } });
    // Note 13's reconciliation: the segments' 150,888 less R&D 29,915 and other corporate expenses 6,672 is operating income
    // 114,301; Apple tags them as its "segment reconciling items" (R&D) and "corporate non-segment" (its labels).
    expect(fy.reconciliation.operating_income).toMatchObject({ consolidated: 114_301 * M, members_total: 150_888 * M, difference: 0 });
    expect(fy.reconciliation.operating_income!.reconciling_items.map((i) => [i.concept, i.name, i.value / M, i.enters])).toEqual([
      ["us-gaap:ResearchAndDevelopmentExpense", "Segment reconciling items", 29_915, -1],
      ["us-gaap:OtherGeneralAndAdministrativeExpense", "Corporate non-segment", 6_672, -1],
    ]);
    expect(fy.reconciliation.revenue).toMatchObject({ consolidated: 383_285 * M, members_total: 383_285 * M, subtotals: [], difference: 0 });
  });

  it("fiscal 2023 net sales by category (note 2), Products a subtotal of the four product lines, not a fifth", () => {
    const fy = row(rows, "product", 2023, "FY");
    expect(figures(fy)).toMatchObject({ iPhone: [200_583, null], Mac: [29_357, null], iPad: [28_300, null], "Wearables, Home and Accessories": [39_845, null], Services: [85_200, null], Products: [298_085, null] });
    expect(fy.reconciliation.revenue).toMatchObject({ consolidated: 383_285 * M, members_total: 383_285 * M, subtotals: ["us-gaap:ProductMember"], difference: 0 });
  });

  it("the fourth quarter of fiscal 2023 is the year (10-K 0000320193-23-000106) less the nine months (10-Q of 2023-07-01, 0000320193-23-000077), marked derived", () => {
    const q4 = row(rows, "business", 2023, "Q4");
    expect(q4).toMatchObject({ derived: true, derived_from: ["0000320193-23-000106", "0000320193-23-000077"], source_accession: "0000320193-23-000106", period_start: "2023-07-02", period_end: "2023-09-30" });
    // 162,560 − 122,445 = 40,115; Apple's Q4 2023 results: Americas net sales 40,115.
    expect(figures(q4).Americas).toEqual([40_115, 15_600]);
    expect(q4.members.every((m) => m.revenue!.derived && m.operating_income!.derived)).toBe(true);
    expect(q4.reconciliation.revenue).toMatchObject({ consolidated: 89_498 * M, difference: 0 });
  });

  it("keeps each period's fiscal labels the earnings give it, and places every span the filings report", () => {
    expect(unlabelled).toBe(0);
    expect(row(rows, "business", 2025, "Q2")).toMatchObject({ period_start: "2024-12-29", period_end: "2025-03-29", calendar_frame: "CY2025Q1", source_accession: "0000320193-25-000057" });
    expect(row(rows, "business", 2025, "Q3", 9)).toMatchObject({ months: 9, calendar_frame: null });
    expect(row(rows, "geography", 2024, "FY").members.map((m) => [m.member, m.revenue!.value / M])).toEqual([
      ["country:US", 142_196],
      ["country:CN", 66_952],
      ["aapl:OtherCountriesMember", 181_887],
    ]);
  });
});

describeEdgar("segments of Walmart, Home Depot and Alphabet, from their 10-Ks", () => {
  it("Walmart fiscal 2025 (10-K 0000104169-25-000021, note 13): segments tagged on the consolidation axis too, read as segments; corporate a reconciling item", () => {
    const fy = row(fixtureSegments(WMT).rows, "business", 2025, "FY");
    expect(figures(fy)).toEqual({ "Walmart US": [462_415, 23_882], "Walmart International": [121_885, 5_501], "Sams Club US": [90_238, 2_404] });
    expect(fy.reconciliation.operating_income).toMatchObject({ consolidated: 29_348 * M, members_total: 31_787 * M, difference: 0 });
    expect(fy.reconciliation.operating_income!.reconciling_items).toMatchObject([{ member: "wmt:CorporateAndReconcilingItemsMember", value: -2_439 * M, enters: 1 }]);
    expect(fy.reconciliation.revenue).toMatchObject({ concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", consolidated: 674_538 * M, difference: 0 });
  });

  it("Walmart's merchandise categories lie within its segments; International reports none, which the difference shows", () => {
    const fy = row(fixtureSegments(WMT).rows, "product", 2025, "FY");
    expect(figures(fy)["Walmart US / Grocery"]).toEqual([276_003, null]);
    expect(fy.reconciliation.revenue).toMatchObject({ members_total: 552_653 * M, difference: 121_885 * M });
  });

  it("Home Depot fiscal 2024 (10-K 0000354950-25-000085): its reportable segments aggregated, and all other", () => {
    const fy = row(fixtureSegments(HD).rows, "business", 2024, "FY");
    expect(figures(fy)).toEqual({ "Reportable Segment Aggregation Before Other Operating Segment": [153_108, 21_313], "All Other Segments": [6_406, 213] });
    expect(fy.reconciliation.operating_income).toMatchObject({ consolidated: 21_526 * M, difference: 0 });
  });

  it("Alphabet 2024 (10-K 0001652044-25-000014, note 15): Google Cloud, YouTube ads within Google Services, hedging gains left as the difference", () => {
    const { rows } = fixtureSegments(GOOGL);
    const fy = row(rows, "business", 2024, "FY");
    expect(figures(fy)).toEqual({ "Google Services": [304_930, 121_263], "Google Cloud": [43_229, 6_112], "All Other Segments": [1_648, -4_444] });
    expect(fy.reconciliation.revenue).toMatchObject({ consolidated: 350_018 * M, members_total: 349_807 * M, difference: 211 * M });
    expect(fy.reconciliation.operating_income).toMatchObject({ consolidated: 112_390 * M, difference: 0 });
    const products = row(rows, "product", 2024, "FY");
    expect(figures(products)["Google Services / You Tube Advertising Revenue"]).toEqual([36_147, null]);
    // Search 198,084 + YouTube ads 36,147 + Network 30,359 = Google advertising 264,590, a subtotal; with subscriptions,
    // platforms and devices 40,340 they make Google Services' 304,930, and the rest (Cloud, Other Bets, hedging) is shown.
    expect(products.reconciliation.revenue).toMatchObject({ subtotals: ["goog:GoogleAdvertisingRevenueMember"], members_total: 304_930 * M, difference: 45_088 * M });
  });
});

describeEdgar("the invariants, over every company with segments", () => {
  const companies = [AAPL, WMT, HD, GOOGL].map((cik) => ({ cik, rows: fixtureSegments(cik).rows }));

  it("members plus the stated reconciling items equal the consolidated figure, or the difference is shown (and each non-zero one is known)", () => {
    const differences: string[] = [];
    for (const { cik, rows } of companies) {
      for (const r of rows) {
        for (const [metric, rec] of Object.entries(r.reconciliation)) {
          if (!rec || rec.consolidated === null) continue;
          const stated = rec.reconciling_items.reduce((s, i) => s + i.enters * i.value, 0);
          expect(Math.abs(rec.consolidated - rec.members_total - stated - rec.difference!)).toBeLessThan(0.5);
          if (rec.difference !== 0) differences.push(`${cik} ${r.axis} FY${r.fiscal_year} ${r.fiscal_quarter} ${metric} ${rec.difference! / M}`);
        }
      }
    }
    // Alphabet's hedging gains in 2022–2024 (1,960, 236, 211: in its revenue, in no segment or region), its revenue outside
    // Google Services (no product breakdown); Walmart International's merchandise categories (not reported).
    expect(differences.sort()).toEqual([
      `${WMT} product FY2023 FY revenue 100983`,
      `${WMT} product FY2024 FY revenue 114641`,
      `${WMT} product FY2025 FY revenue 121885`,
      `${GOOGL} business FY2022 FY revenue 1960`,
      `${GOOGL} business FY2023 FY revenue 236`,
      `${GOOGL} business FY2024 FY revenue 211`,
      `${GOOGL} geography FY2022 FY revenue 1960`,
      `${GOOGL} geography FY2023 FY revenue 236`,
      `${GOOGL} geography FY2024 FY revenue 211`,
      `${GOOGL} product FY2022 FY revenue 29308`, // Cloud 26,280 + Other Bets 1,068 + hedging 1,960
      `${GOOGL} product FY2023 FY revenue 34851`, // Cloud 33,088 + Other Bets 1,527 + hedging 236
      `${GOOGL} product FY2024 FY revenue 45088`, // Cloud 43,229 + Other Bets 1,648 + hedging 211
    ]);
  });

  it("one row per axis and span, one value per member and row", () => {
    for (const { rows } of companies) {
      const spans = rows.map((r) => `${r.axis}|${r.period_end}|${r.months}`);
      expect(new Set(spans).size).toBe(spans.length);
      for (const r of rows) {
        const members = r.members.map((m) => `${m.segment?.member ?? ""}>${m.member}`);
        expect(new Set(members).size).toBe(members.length);
      }
    }
  });

  it("no unit-scale jumps: a member's quarters never differ from the next by about 1,000× or more", () => {
    for (const { rows } of companies) {
      const series = new Map<string, number[]>();
      for (const r of [...rows].filter((x) => x.months === 3).reverse()) {
        for (const m of r.members) {
          for (const metric of ["revenue", "operating_income"] as const) {
            const v = m[metric]?.value;
            if (v) series.set(`${r.axis}|${m.member}|${metric}`, [...(series.get(`${r.axis}|${m.member}|${metric}`) ?? []), v]);
          }
        }
      }
      for (const values of series.values()) for (let i = 1; i < values.length; i++) expect(Math.abs(Math.log10(Math.abs(values[i]! / values[i - 1]!)))).toBeLessThan(2.5);
    }
  });
});

describeFilings("the fixtures' cuts read as the shared set's documents", () => {
  it("every segment fact of each document, cut or whole; an inline filing and its extracted instance alike", () => {
    for (const cik of [AAPL, WMT, HD, GOOGL]) {
      for (const doc of xbrlDocuments(cik, FILINGS.dir)) {
        const whole = canonical(segmentFilingOf(doc));
        const cut = canonical(segmentFilingOf({ ...doc, text: doc.path.endsWith(".htm") ? cutInlineXbrl(doc.text) : cutXbrlInstance(doc.text) }));
        expect(cut, doc.path).toEqual(whole);
        expect(whole.facts.length, doc.path).toBeGreaterThan(10);
      }
    }
    const folder = "Archives/edgar/data/320193/000032019325000057/";
    const inline = segmentFilingOf({ accession: "0000320193-25-000057", path: `${folder}aapl-20250329.htm`, text: readFileSync(join(FILINGS.dir, folder, "aapl-20250329.htm"), "utf8") });
    const instance = segmentFilingOf({ accession: "0000320193-25-000057", path: `${folder}aapl-20250329_htm.xml`, text: readFileSync(join(FILINGS.dir, folder, "aapl-20250329_htm.xml"), "utf8") });
    expect(canonical({ ...instance, document: inline.document })).toEqual(canonical(inline));
  });

  it("reads every XBRL document of the set, Apple's pre-inline instances of 2010 and 2015 too", () => {
    const docs = ["320193/000119312510238044/aapl-20100925.xml", "320193/000119312515356351/aapl-20150926.xml"];
    for (const doc of docs) {
      const read = parseXbrlInstance(readFileSync(join(FILINGS.dir, "Archives/edgar/data", doc), "utf8"), { path: doc });
      expect(read.facts.length).toBeGreaterThan(500);
      expect(read.unreadable).toEqual([]);
    }
    for (const cik of [AAPL, WMT, HD, GOOGL]) for (const doc of xbrlDocuments(cik, FILINGS.dir)) if (doc.path.endsWith(".htm")) expect(parseInlineXbrl(doc.text, {}).unreadable).toEqual([]);
  });
});

/**
 * A filing's facts in one order: an instance's parser groups facts by concept in the order each concept first appears,
 * which a cut (or the inline form) changes; the facts themselves are what must be equal.
 */
function canonical(filing: SegmentFiling): SegmentFiling {
  const sort = <T,>(list: T[]) => list.map((x) => JSON.stringify(x)).sort().map((x) => JSON.parse(x) as T);
  return { ...filing, facts: sort(filing.facts), totals: sort(filing.totals) };
}
