// Rules the real files do not exercise (or not cleanly), on small hand-made company facts run through the parser.
import { describe, expect, it } from "vitest";
import { LATEST, periodAsOf } from "../../schemas/earnings-history.ts";
import { EarningsPeriod } from "../../schemas/earnings.ts";
import { companyFacts, filing, findRow, type Fact } from "../../test/_facts.ts";
import { NoXbrlHistoryError } from "../errors.ts";
import { deriveEarningsBase, type EarningsSeries } from "./earnings.ts";
import { addDays } from "./periods.ts";

type Concepts = Record<string, Record<string, Fact[]>>;

describe("a 16+12+12+12 fiscal calendar", () => {
  const start = "2023-02-26";
  const [q1, h1, nine, year] = [111, 195, 279, 363].map((d) => addDays(start, d)) as [string, string, string, string];
  const q1f = filing("0000001234-23-000001", "10-Q", "2023-07-10", 2023, "Q1");
  const q2f = filing("0000001234-23-000002", "10-Q", "2023-10-01", 2023, "Q2");
  const q3f = filing("0000001234-23-000003", "10-Q", "2023-12-20", 2023, "Q3");
  const kf = filing("0000001234-24-000004", "10-K", "2024-04-01", 2023, "FY");
  const periods = derive({
    "us-gaap:Revenues": {
      USD: [
        q1f(start, q1, 400),
        q2f(addDays(q1, 1), h1, 300),
        q2f(start, h1, 700),
        q3f(addDays(h1, 1), nine, 300),
        q3f(start, nine, 1000),
        kf(start, year, 1350),
      ],
    },
    "us-gaap:NetIncomeLoss": { USD: [q1f(start, q1, 40), q3f(start, nine, 100), kf(start, year, 140)] },
    "us-gaap:EarningsPerShareDiluted": { "USD/shares": [kf(start, year, 1.4)] },
  });

  it("classes the 16-week Q1, 28-week half and 40-week nine months, labelled by their own filings", () => {
    expect(find(periods, start, q1)).toMatchObject({ months: 3, duration_days: 112, fiscal_year: 2023, fiscal_quarter: "Q1" });
    expect(find(periods, start, h1)).toMatchObject({ months: 6, duration_days: 196, fiscal_quarter: "Q2", calendar_frame: null });
    expect(find(periods, start, nine)).toMatchObject({ months: 9, duration_days: 280, fiscal_quarter: "Q3" });
    expect(find(periods, start, year)).toMatchObject({ months: 12, duration_days: 364, fiscal_quarter: "FY" });
  });

  it("derives the 12-week Q4 from the fiscal year and nine months; never its EPS", () => {
    const q4 = find(periods, addDays(nine, 1), year);
    expect(q4).toMatchObject({ months: 3, duration_days: 84, fiscal_year: 2023, fiscal_quarter: "Q4", derived: true });
    expect(q4.label_accession).toBe("0000001234-24-000004");
    expect(q4.metrics.revenue).toMatchObject({ value: 350, derived: true, source_accession: "0000001234-24-000004" });
    expect(q4.metrics.net_income?.value).toBe(40);
    expect([q4.metrics.eps_diluted, q4.metrics.diluted_shares]).toEqual([null, null]);
  });

  it("lists newest first, the quarter before the year that ends with it", () => {
    expect(periods.slice(0, 2).map((p) => p.months)).toEqual([3, 12]);
    expect(periods[0]!.period_end).toBe(year);
  });
});

describe("restatements, comparatives and non-periodic forms", () => {
  const k23 = filing("0000001234-24-000010", "10-K", "2024-02-20", 2023, "FY");
  const k24 = filing("0000001234-25-000010", "10-K", "2025-02-20", 2024, "FY");
  const eightK = filing("0000001234-25-000020", "8-K", "2025-03-01", 2024, "FY");
  const proxy = filing("0000001234-25-000030", "DEF 14A", "2025-04-01", 0, "");
  const periods = derive({
    "us-gaap:NetIncomeLoss": {
      USD: [
        k23("2023-01-01", "2023-12-31", 100),
        k23("2022-01-01", "2022-12-31", 80),
        k23("2021-01-01", "2021-12-31", 70),
        k24("2024-01-01", "2024-12-31", 120),
        k24("2023-01-01", "2023-12-31", 95),
        k24("2022-01-01", "2022-12-31", 80),
        k24("2024-01-01", "2024-04-30", 33), // four months: no period
        { ...k24("2024-01-01", "2024-12-31", 1), start: undefined }, // an instant: no period
        eightK("2024-01-01", "2024-12-31", 999),
        eightK("2020-01-01", "2020-12-31", 50),
        proxy("2024-01-01", "2024-12-31", 120_000),
      ],
    },
  });

  it("takes the latest periodic filing's value and keeps the first reported one", () => {
    const fy2023 = find(periods, "2023-01-01", "2023-12-31");
    expect(fy2023.metrics.net_income).toMatchObject({
      value: 95,
      source_accession: "0000001234-25-000010",
      restated: true,
      original_value: 100,
      original_accession: "0000001234-24-000010",
    });
    expect(find(periods, "2022-01-01", "2022-12-31").metrics.net_income).toMatchObject({ value: 80, restated: false, original_value: null });
  });

  it("labels a period by its original filing, never by a comparative's fy", () => {
    expect(find(periods, "2023-01-01", "2023-12-31")).toMatchObject({
      fiscal_year: 2023,
      label_accession: "0000001234-24-000010",
      label_inferred: false,
    });
  });

  it("infers the labels of comparative-only periods from the company's calendar", () => {
    expect(find(periods, "2022-01-01", "2022-12-31")).toMatchObject({ fiscal_year: 2022, label_accession: null, label_inferred: true });
    expect(find(periods, "2021-01-01", "2021-12-31")).toMatchObject({ fiscal_year: 2021, label_inferred: true });
  });

  it("ignores 8-K and proxy facts, instants and durations of no class", () => {
    expect(find(periods, "2024-01-01", "2024-12-31").metrics.net_income).toMatchObject({ value: 120, restated: false });
    expect(periods.map((p) => `${p.period_start}/${p.period_end}`)).toEqual([
      "2024-01-01/2024-12-31",
      "2023-01-01/2023-12-31",
      "2022-01-01/2022-12-31",
      "2021-01-01/2021-12-31",
    ]);
  });

  it("a company with facts only from non-periodic forms has no earnings history", () => {
    expect(() => derive({ "us-gaap:NetIncomeLoss": { USD: [eightK("2024-01-01", "2024-12-31", 9)] } })).toThrow(NoXbrlHistoryError);
  });
});

describe("stock splits", () => {
  const k21 = filing("0000001234-22-000001", "10-K", "2022-02-01", 2021, "FY");
  const k22 = filing("0000001234-23-000001", "10-K", "2023-02-01", 2022, "FY");
  const k23 = filing("0000001234-24-000001", "10-K", "2024-02-01", 2023, "FY"); // after a 4-for-1 split
  const year = (y: number): [string, string] => [`${y}-01-01`, `${y}-12-31`];
  const periods = derive({
    "us-gaap:EarningsPerShareDiluted": {
      "USD/shares": [
        k21(...year(2021), 4),
        k21(...year(2020), 3),
        k22(...year(2022), 5),
        k22(...year(2021), 4),
        k23(...year(2023), 1.5),
        k23(...year(2022), 1.25),
        k23(...year(2021), 1),
      ],
    },
  });

  it("flags the period last filed before the split, not those re-reported after it", () => {
    expect(find(periods, ...year(2020))).toMatchObject({ split_unadjusted: true });
    for (const y of [2021, 2022, 2023]) expect(find(periods, ...year(y)).split_unadjusted).toBe(false);
    expect(find(periods, ...year(2022)).metrics.eps_diluted).toMatchObject({ value: 1.25, restated: true, original_value: 5 });
  });

  it("one EPS restated by a round ratio is a restatement, not a split", () => {
    const single = derive({
      "us-gaap:EarningsPerShareDiluted": {
        "USD/shares": [k21(...year(2020), 3), k22(...year(2021), 2), k23(...year(2021), 1)],
      },
    });
    expect(single.map((p) => p.split_unadjusted)).toEqual([false, false]);
  });
});

describe("a filed Q4 share count", () => {
  const q3 = filing("0000001234-23-000003", "10-Q", "2023-11-01", 2023, "Q3");
  const k = filing("0000001234-24-000004", "10-K", "2024-02-01", 2023, "FY");
  const periods = derive({
    "us-gaap:NetIncomeLoss": { USD: [q3("2023-01-01", "2023-09-30", 300), k("2023-01-01", "2023-12-31", 400)] },
    "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding": {
      shares: [k("2023-10-01", "2023-12-31", 50), k("2023-01-01", "2023-12-31", 49)],
    },
  });

  it("keeps the filed Q4, derives its net income and diluted EPS = net income ÷ shares", () => {
    const q4 = find(periods, "2023-10-01", "2023-12-31");
    expect(q4).toMatchObject({ derived: false, fiscal_quarter: "Q4", fiscal_year: 2023 });
    expect(q4.metrics.diluted_shares).toMatchObject({ value: 50, derived: false });
    expect(q4.metrics.net_income).toMatchObject({ value: 100, derived: true });
    expect(q4.metrics.eps_diluted).toMatchObject({ value: 2, derived: true, unit: "USD/shares" });
    expect(q4.metrics.eps_basic).toBeNull();
  });

  it("derives no Q4 EPS where the year's own EPS divides less than its net income (preferred dividends)", () => {
    // The year: 403 ÷ 49 = 8.22 a share, but its EPS is 7.82: (403 − 20 of preferred dividends) ÷ 49.
    const withPreferred = derive({
      "us-gaap:NetIncomeLoss": { USD: [q3("2023-01-01", "2023-09-30", 301), k("2023-01-01", "2023-12-31", 403)] },
      "us-gaap:EarningsPerShareDiluted": { "USD/shares": [k("2023-01-01", "2023-12-31", 7.82)] },
      "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding": {
        shares: [k("2023-10-01", "2023-12-31", 50), k("2023-01-01", "2023-12-31", 49)],
      },
    });
    const q4 = find(withPreferred, "2023-10-01", "2023-12-31");
    expect(q4.metrics.net_income).toMatchObject({ value: 102, derived: true });
    expect(q4.metrics.eps_diluted).toBeNull();
    // Its EPS 8.22 is its net income ÷ its shares: the quarter's is derived, 102 ÷ 50.
    const plain = derive({
      "us-gaap:NetIncomeLoss": { USD: [q3("2023-01-01", "2023-09-30", 301), k("2023-01-01", "2023-12-31", 403)] },
      "us-gaap:EarningsPerShareDiluted": { "USD/shares": [k("2023-01-01", "2023-12-31", 8.22)] },
      "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding": {
        shares: [k("2023-10-01", "2023-12-31", 50), k("2023-01-01", "2023-12-31", 49)],
      },
    });
    expect(find(plain, "2023-10-01", "2023-12-31").metrics.eps_diluted).toMatchObject({ value: 2.04, derived: true });
  });
});

describe("concept choice per filing and period", () => {
  const k = filing("0000001234-24-000001", "10-K", "2024-02-01", 2023, "FY");
  const revenueOf = (concepts: Concepts) => derive(concepts)[0]!.metrics.revenue;

  it.each([
    ["priority when the candidates agree", { "us-gaap:SalesRevenueNet": 900, "us-gaap:Revenues": 900 }, "us-gaap:Revenues", 900],
    ["the total over a slice tagged with a total tag", { "us-gaap:Revenues": 200, "us-gaap:SalesRevenueGoodsNet": 1000 }, "us-gaap:SalesRevenueGoodsNet", 1000],
    [
      "net of taxes over gross of taxes",
      { "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax": 1000, "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax": 1100 },
      "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
      1000,
    ],
    ["a service company's pre-2018 total", { "us-gaap:SalesRevenueServicesNet": 700 }, "us-gaap:SalesRevenueServicesNet", 700],
    ["the total over a services slice", { "us-gaap:SalesRevenueNet": 1000, "us-gaap:SalesRevenueServicesNet": 60 }, "us-gaap:SalesRevenueNet", 1000],
    ["gross of taxes when it is all there is", { "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax": 1100 }, "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax", 1100],
    // Xcel Energy 2020 (10-K 0000072903-21-000012): its total operating revenues, tagged under no other revenue concept.
    ["a utility's regulated and unregulated operating revenue", { "us-gaap:RegulatedAndUnregulatedOperatingRevenue": 11_526_000_000 }, "us-gaap:RegulatedAndUnregulatedOperatingRevenue", 11_526_000_000],
    // Southern Company 2020 (10-K 0000092122-21-000006): Revenues 20,375 million beside 21,097 million of revenue from
    // contracts with customers including assessed taxes.
    [
      "a utility's total over a larger figure gross of taxes",
      { "us-gaap:Revenues": 20_375_000_000, "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax": 21_097_000_000 },
      "us-gaap:Revenues",
      20_375_000_000,
    ],
  ])("revenue: %s", (_name, values, concept, value) => {
    const concepts = Object.fromEntries(Object.entries(values).map(([c, v]) => [c, { USD: [k("2023-01-01", "2023-12-31", v)] }]));
    expect(revenueOf(concepts)).toMatchObject({ concept, value });
  });

  it("net income is the parent's share, never ProfitLoss", () => {
    const [p] = derive({
      "us-gaap:ProfitLoss": { USD: [k("2023-01-01", "2023-12-31", 130)] },
      "us-gaap:NetIncomeLoss": { USD: [k("2023-01-01", "2023-12-31", 100)] },
    });
    expect(p!.metrics.net_income).toMatchObject({ value: 100, concept: "us-gaap:NetIncomeLoss" });
  });

  it("uses the dominant currency and its per-share unit throughout", () => {
    const twd = filing("0000001234-24-000001", "20-F", "2024-04-01", 2023, "FY");
    const [p] = deriveIfrs({
      Revenue: { TWD: [twd("2023-01-01", "2023-12-31", 2000), twd("2022-01-01", "2022-12-31", 1800)], USD: [twd("2023-01-01", "2023-12-31", 65)] },
      BasicEarningsLossPerShare: { "TWD/shares": [twd("2023-01-01", "2023-12-31", 30)], "USD/shares": [twd("2023-01-01", "2023-12-31", 1)] },
    });
    expect(p!.metrics.revenue).toMatchObject({ value: 2000, unit: "TWD", concept: "ifrs-full:Revenue" });
    expect(p!.metrics.eps_basic).toMatchObject({ value: 30, unit: "TWD/shares" });
  });
});

describe("one line under two names: the company's own filings tie them", () => {
  // The 10-Qs tag revenue as the ASC 606 total; the 10-K the year as Revenues. A Q4 needs the year and the nine months
  // in one concept: the two are one line where a filing tags both for a period with the same value.
  const q1 = filing("0000001234-23-000001", "10-Q", "2023-04-25", 2023, "Q1");
  const q3 = filing("0000001234-23-000003", "10-Q", "2023-10-25", 2023, "Q3");
  const k = filing("0000001234-24-000004", "10-K", "2024-02-01", 2023, "FY");
  const facts = (q1Both: number | null): Concepts => ({
    "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax": { USD: [q1("2023-01-01", "2023-03-31", 100), q3("2023-01-01", "2023-09-30", 330)] },
    "us-gaap:Revenues": { USD: [k("2023-01-01", "2023-12-31", 450), ...(q1Both === null ? [] : [q1("2023-01-01", "2023-03-31", q1Both)])] },
  });
  const q4Of = (concepts: Concepts) => deriveBase(concepts).periods.find((p) => p.period_start === "2023-10-01" && p.period_end === "2023-12-31");

  it("tied: Q4 = the year − the nine months, derived from the 10-K's day", () => {
    const series = deriveBase(facts(100));
    const i = series.periods.findIndex((p) => p.period_start === "2023-10-01" && p.period_end === "2023-12-31");
    expect(series.periods[i]!.metrics.revenue).toMatchObject({ value: 120, derived: true, concept: "us-gaap:Revenues", source_accession: "0000001234-24-000004" });
    expect(periodAsOf(series.periods[i]!, series.history[i]!, "2024-01-31", false)).toBeNull();
    expect(periodAsOf(series.periods[i]!, series.history[i]!, "2024-02-01", false)!.metrics.revenue?.value).toBe(120);
  });

  it("tied by a later filing re-reporting a year's figure under the new name: Q4 from that filing's day", () => {
    // Hand-made on Xcel Energy's pattern: its 10-K for 2019 tags the years it shows only as
    // RegulatedAndUnregulatedOperatingRevenue, its 10-Qs of 2019 tagged Revenues. Here the 10-K for 2018 tags the year
    // as Revenues, and the 10-K for 2019 re-reports that figure under the new name beside 2019's.
    const k18 = filing("0000001234-19-000001", "10-K", "2019-02-20", 2018, "FY");
    const q319 = filing("0000001234-19-000003", "10-Q", "2019-10-25", 2019, "Q3");
    const k19 = filing("0000001234-20-000004", "10-K", "2020-02-20", 2019, "FY");
    const series = deriveBase({
      "us-gaap:Revenues": { USD: [k18("2018-01-01", "2018-12-31", 1000), q319("2019-01-01", "2019-09-30", 900)] },
      "us-gaap:RegulatedAndUnregulatedOperatingRevenue": { USD: [k19("2019-01-01", "2019-12-31", 1200), k19("2018-01-01", "2018-12-31", 1000)] },
    });
    const q4 = series.periods.find((p) => p.period_start === "2019-10-01" && p.period_end === "2019-12-31");
    expect(q4?.metrics.revenue).toMatchObject({ value: 300, derived: true, source_accession: "0000001234-20-000004" });
  });

  it("untied, or tagged apart by the filing that tags both, they are two lines: no Q4 revenue", () => {
    expect(q4Of(facts(null))?.metrics.revenue ?? null).toBeNull();
    expect(q4Of(facts(104))?.metrics.revenue ?? null).toBeNull();
  });
});

describe("a bank's revenue: net interest income + noninterest income, where it tags no total", () => {
  // Fulton Financial (CIK 700564), as EDGAR's company facts give it: its 10-K for 2018 (0000700564-19-000012) tags
  // InterestIncomeExpenseNet 630,456,000, NoninterestIncome 195,525,000 and, as its only revenue concept,
  // RevenueFromContractWithCustomerIncludingAssessedTax 195,488,000 (the fees in ASC 606's scope); its 10-Q for the
  // first quarter (0000700564-18-000019) 151,318,000 and 45,875,000, and no revenue concept. NetIncomeLoss: 49,480,000
  // for the quarter and 208,393,000 for the year, in the same filings.
  const fultonK = filing("0000700564-19-000012", "10-K", "2019-03-01", 2018, "FY");
  const fultonQ1 = filing("0000700564-18-000019", "10-Q", "2018-05-08", 2018, "Q1");
  const fulton = deriveBase({
    "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax": { USD: [fultonK("2018-01-01", "2018-12-31", 195_488_000)] },
    "us-gaap:NetIncomeLoss": { USD: [fultonQ1("2018-01-01", "2018-03-31", 49_480_000), fultonK("2018-01-01", "2018-12-31", 208_393_000)] },
    "us-gaap:InterestIncomeExpenseNet": { USD: [fultonQ1("2018-01-01", "2018-03-31", 151_318_000), fultonK("2018-01-01", "2018-12-31", 630_456_000)] },
    "us-gaap:NoninterestIncome": { USD: [fultonQ1("2018-01-01", "2018-03-31", 45_875_000), fultonK("2018-01-01", "2018-12-31", 195_525_000)] },
  });
  const SUM = "us-gaap:InterestIncomeExpenseNet+us-gaap:NoninterestIncome";

  it("is the sum of the filing's two lines, derived, with its terms; not the ASC 606 slice (Fulton Financial 2018)", () => {
    const { periods, history } = fulton;
    expect(find(periods, "2018-01-01", "2018-12-31").metrics.revenue).toMatchObject({
      value: 825_981_000,
      concept: SUM,
      source_accession: "0000700564-19-000012",
      derived: true,
      components: [
        { concept: "us-gaap:InterestIncomeExpenseNet", value: 630_456_000 },
        { concept: "us-gaap:NoninterestIncome", value: 195_525_000 },
      ],
    });
    // The quarter's 10-Q tags no revenue concept at all: its two lines make it.
    expect(find(periods, "2018-01-01", "2018-03-31").metrics.revenue).toMatchObject({ value: 197_193_000, concept: SUM, source_accession: "0000700564-18-000019" });
    periods.forEach((p, i) => {
      EarningsPeriod.parse(p);
      expect(periodAsOf(p, history[i]!, LATEST, false)).toEqual(p);
      // Served, so never listed as a value filed but not served.
      expect(history[i]!.filed?.revenue ?? []).toEqual([]);
    });
    const listed = periodAsOf(find(periods, "2018-01-01", "2018-12-31"), history[periods.indexOf(find(periods, "2018-01-01", "2018-12-31"))]!, LATEST, true)!;
    expect(listed.metrics.revenue!.history!.map((e) => [e.value, e.served, e.components?.length])).toEqual([[825_981_000, undefined, 2]]);
  });

  it("Huntington Bancshares 2019 (10-K 0000049196-20-000010): 3,213 + 1,454 million, not its ASC 606 revenue of 939 million", () => {
    const k = filing("0000049196-20-000010", "10-K", "2020-02-14", 2019, "FY");
    const [p] = derive({
      "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax": { USD: [k("2019-01-01", "2019-12-31", 939_000_000)] },
      "us-gaap:InterestIncomeExpenseNet": { USD: [k("2019-01-01", "2019-12-31", 3_213_000_000)] },
      "us-gaap:NoninterestIncome": { USD: [k("2019-01-01", "2019-12-31", 1_454_000_000)] },
    });
    expect(p!.metrics.revenue).toMatchObject({ value: 4_667_000_000, concept: SUM, derived: true });
  });

  // Hand-made from here: the rules' edges.
  const q1 = filing("0000001234-23-000001", "10-Q", "2023-05-01", 2023, "Q1");
  const q2 = filing("0000001234-23-000002", "10-Q", "2023-08-01", 2023, "Q2");
  const q3 = filing("0000001234-23-000003", "10-Q", "2023-11-01", 2023, "Q3");
  const k = filing("0000001234-24-000004", "10-K", "2024-02-20", 2023, "FY");

  it("a bank's own total of the same amount is served as tagged, not as a sum", () => {
    const [p] = derive({
      "us-gaap:Revenues": { USD: [k("2023-01-01", "2023-12-31", 1000)] },
      "us-gaap:InterestIncomeExpenseNet": { USD: [k("2023-01-01", "2023-12-31", 700)] },
      "us-gaap:NoninterestIncome": { USD: [k("2023-01-01", "2023-12-31", 300)] },
    });
    expect(p!.metrics.revenue).toMatchObject({ value: 1000, concept: "us-gaap:Revenues", derived: false });
    expect(p!.metrics.revenue!.components).toBeUndefined();
  });

  it("a company's net interest expense alone is no revenue: its own revenue stands, and none is made where it has none", () => {
    const [p] = derive({
      "us-gaap:Revenues": { USD: [k("2023-01-01", "2023-12-31", 1000)] },
      "us-gaap:InterestIncomeExpenseNet": { USD: [k("2023-01-01", "2023-12-31", -50)] },
    });
    expect(p!.metrics.revenue).toMatchObject({ value: 1000, concept: "us-gaap:Revenues" });
    const [q] = derive({
      "us-gaap:NetIncomeLoss": { USD: [k("2023-01-01", "2023-12-31", 80)] },
      "us-gaap:InterestIncomeExpenseNet": { USD: [k("2023-01-01", "2023-12-31", 1200)] },
    });
    expect(q!.metrics.revenue).toBeNull();
  });

  it("quarters as any revenue: discrete from the 10-Qs, the fourth derived as the year − nine months of the same sum; no span of its own", () => {
    const periods = derive({
      "us-gaap:NetIncomeLoss": { USD: [q1("2023-01-01", "2023-03-31", 10), q3("2023-01-01", "2023-09-30", 30), k("2023-01-01", "2023-12-31", 40)] },
      "us-gaap:InterestIncomeExpenseNet": {
        USD: [q1("2023-01-01", "2023-03-31", 70), q3("2023-01-01", "2023-09-30", 210), k("2023-01-01", "2023-12-31", 290), q2("2023-02-01", "2023-03-31", 45)],
      },
      "us-gaap:NoninterestIncome": { USD: [q1("2023-01-01", "2023-03-31", 30), q3("2023-01-01", "2023-09-30", 95), k("2023-01-01", "2023-12-31", 130), q2("2023-02-01", "2023-03-31", 20)] },
    });
    expect(find(periods, "2023-01-01", "2023-03-31").metrics.revenue).toMatchObject({ value: 100, concept: SUM });
    expect(find(periods, "2023-01-01", "2023-09-30").metrics.revenue).toMatchObject({ value: 305, concept: SUM });
    expect(find(periods, "2023-10-01", "2023-12-31").metrics.revenue).toMatchObject({ value: 115, concept: SUM, derived: true });
    // The two months the lines alone were tagged for (no income statement metric): no period.
    expect(periods.some((p) => p.period_start === "2023-02-01")).toBe(false);
  });
});

describe("a partnership's net income per limited partner unit", () => {
  // Hand-made on the shape of Enterprise Products Partners' company facts (CIK 1061219): per-unit earnings under the
  // partnership concepts, in the bare unit USD until its 10-K for 2020 and in USD/shares from its 10-Q of May 2021
  // (2020: 1.71; first quarters of 2020 and 2021: 0.61 each).
  const basic = "NetIncomeLossPerOutstandingLimitedPartnershipUnitBasicNetOfTax";
  const diluted = "NetIncomeLossNetOfTaxPerOutstandingLimitedPartnershipUnitDiluted";
  const q120 = filing("0000001234-20-000022", "10-Q", "2020-05-08", 2020, "Q1");
  const k20 = filing("0000001234-21-000009", "10-K", "2021-03-01", 2020, "FY");
  const q121 = filing("0000001234-21-000017", "10-Q", "2021-05-07", 2021, "Q1");
  const perUnit = (value20q1: number) => ({
    USD: [q120("2020-01-01", "2020-03-31", value20q1), k20("2020-01-01", "2020-12-31", 1.71)],
    "USD/shares": [q121("2020-01-01", "2020-03-31", 0.61), q121("2021-01-01", "2021-03-31", 0.61)],
  });
  const periods = derive({
    "us-gaap:NetIncomeLoss": { USD: [q120("2020-01-01", "2020-03-31", 1_375), k20("2020-01-01", "2020-12-31", 3_885), q121("2021-01-01", "2021-03-31", 1_362)] },
    [`us-gaap:${basic}`]: perUnit(0.61),
    [`us-gaap:${diluted}`]: perUnit(0.61),
  });

  it("is its EPS, basic and diluted, read in the per-share unit whichever unit the filing used", () => {
    const year = find(periods, "2020-01-01", "2020-12-31").metrics;
    expect(year.eps_basic).toMatchObject({ value: 1.71, unit: "USD/shares", concept: `us-gaap:${basic}`, source_accession: "0000001234-21-000009" });
    expect(year.eps_diluted).toMatchObject({ value: 1.71, unit: "USD/shares", concept: `us-gaap:${diluted}` });
    expect(find(periods, "2021-01-01", "2021-03-31").metrics.eps_diluted).toMatchObject({ value: 0.61, unit: "USD/shares" });
    // The same figure in the other unit is no restatement.
    expect(find(periods, "2020-01-01", "2020-03-31").metrics.eps_basic).toMatchObject({ value: 0.61, restated: false, source_accession: "0000001234-21-000017" });
  });

  it("gives way to a filing's EPS, which is read in the bare currency too", () => {
    const k = filing("0000001234-24-000001", "10-K", "2024-02-01", 2023, "FY");
    const [p] = derive({
      "us-gaap:EarningsPerShareBasic": { "USD/shares": [k("2023-01-01", "2023-12-31", 3)] },
      [`us-gaap:${basic}`]: { USD: [k("2023-01-01", "2023-12-31", 2.5)] },
      "us-gaap:EarningsPerShareDiluted": { USD: [k("2023-01-01", "2023-12-31", 2.9)] },
    });
    expect(p!.metrics.eps_basic).toMatchObject({ value: 3, concept: "us-gaap:EarningsPerShareBasic" });
    expect(p!.metrics.eps_diluted).toMatchObject({ value: 2.9, unit: "USD/shares", concept: "us-gaap:EarningsPerShareDiluted" });
  });
});

describe("fiscal labels a filing got wrong", () => {
  const k = filing("0000001234-24-000001", "10-K", "2024-02-20", 2023, "FY");
  const taggedFy = filing("0000001234-24-000002", "10-Q", "2024-05-01", 2024, "FY"); // Disney's fiscal 2022 10-Qs
  const wrongYear = filing("0000001234-24-000003", "10-Q", "2024-08-01", 2023, "Q3"); // Under Armour's 2020 Q1 10-Q
  const periods = derive({
    "us-gaap:NetIncomeLoss": {
      USD: [k("2023-01-01", "2023-12-31", 10), taggedFy("2024-01-01", "2024-03-31", 3), wrongYear("2024-04-01", "2024-06-30", 4)],
    },
  });

  it("reads the quarter from the filing's own period lengths when fp says FY on a 10-Q", () => {
    expect(find(periods, "2024-01-01", "2024-03-31")).toMatchObject({
      fiscal_year: 2024,
      fiscal_quarter: "Q1",
      label_accession: "0000001234-24-000002",
      label_inferred: false,
    });
  });

  it("infers the labels from the calendar when fy and fp both contradict it", () => {
    expect(find(periods, "2024-04-01", "2024-06-30")).toMatchObject({ fiscal_year: 2024, fiscal_quarter: "Q2", label_inferred: true, label_accession: null });
  });
});

describe("a newly listed company: its only periodic filing is a Q1 10-Q", () => {
  it("labels the quarter and its comparative from the filing's own fy/fp (calendar year)", () => {
    const q1 = filing("0000001234-24-000001", "10-Q", "2024-05-10", 2024, "Q1");
    const periods = derive({
      "us-gaap:Revenues": { USD: [q1("2024-01-01", "2024-03-31", 500), q1("2023-01-01", "2023-03-31", 400)] },
      "us-gaap:NetIncomeLoss": { USD: [q1("2024-01-01", "2024-03-31", 50), q1("2023-01-01", "2023-03-31", 40)] },
    });
    expect(periods.map((p) => [p.period_start, p.fiscal_year, p.fiscal_quarter, p.label_source, p.metrics.revenue?.value])).toEqual([
      ["2024-01-01", 2024, "Q1", "filing", 500],
      ["2023-01-01", 2023, "Q1", "calendar", 400],
    ]);
    expect(periods[0]!.label_accession).toBe("0000001234-24-000001");
  });

  it("a July–June fiscal year named by the year it ends in: July–September 2024 is fiscal 2025 Q1", () => {
    const q1 = filing("0000001234-24-000002", "10-Q", "2024-11-12", 2025, "Q1");
    const periods = derive({ "us-gaap:NetIncomeLoss": { USD: [q1("2024-07-01", "2024-09-30", -7), q1("2023-07-01", "2023-09-30", -9)] } });
    expect(periods.map((p) => [p.period_end, p.fiscal_year, p.fiscal_quarter])).toEqual([
      ["2024-09-30", 2025, "Q1"],
      ["2023-09-30", 2024, "Q1"],
    ]);
  });

  it("without a year, a year-to-date or a filing's own fiscal quarter, the error says so", () => {
    const untagged = filing("0000001234-24-000003", "10-Q", "2024-05-10", 2024, "");
    expect(() => derive({ "us-gaap:NetIncomeLoss": { USD: [untagged("2024-01-01", "2024-03-31", 5)] } })).toThrow(/no fiscal calendar/);
  });
});

describe("unit-scale slips in any metric: the evidence decides which value is wrong", () => {
  // Four 10-Ks, each reporting its own year only: 1,000,000,000 diluted shares, diluted EPS 2, net income 2,000,000,000,
  // revenue 10,000,000,000, gross profit 4,000,000,000, operating income 3,000,000,000; `slip` changes one value.
  const years = [2020, 2021, 2022, 2023];
  const k = (y: number) => filing(`0000001234-${y - 1999}-000001`, "10-K", `${y + 1}-02-20`, y, "FY");
  type Slip = Partial<Record<"NetIncomeLoss" | "EarningsPerShareDiluted" | "GrossProfit" | "OperatingIncomeLoss" | "WeightedAverageNumberOfDilutedSharesOutstanding", Record<number, number>>>;
  const company = (slip: Slip, base: { shares?: number; income?: (y: number) => number } = {}) => {
    const shares = base.shares ?? 1_000_000_000;
    const income = base.income ?? (() => 2_000_000_000);
    const of = (concept: keyof Slip, y: number, value: number) => slip[concept]?.[y] ?? value;
    const facts = (concept: keyof Slip | "Revenues", value: (y: number) => number) =>
      years.map((y) => k(y)(`${y}-01-01`, `${y}-12-31`, concept === "Revenues" ? value(y) : of(concept, y, value(y))));
    return derive({
      "us-gaap:Revenues": { USD: facts("Revenues", () => 10_000_000_000) },
      "us-gaap:GrossProfit": { USD: facts("GrossProfit", () => 4_000_000_000) },
      "us-gaap:OperatingIncomeLoss": { USD: facts("OperatingIncomeLoss", () => 3_000_000_000) },
      "us-gaap:NetIncomeLoss": { USD: facts("NetIncomeLoss", income) },
      "us-gaap:EarningsPerShareDiluted": { "USD/shares": facts("EarningsPerShareDiluted", (y) => Math.round((income(y) / shares) * 100) / 100) },
      "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding": { shares: facts("WeightedAverageNumberOfDilutedSharesOutstanding", () => shares) },
    });
  };
  const year = (periods: EarningsPeriod[], y: number) => find(periods, `${y}-01-01`, `${y}-12-31`);
  const scaleMarks = (periods: EarningsPeriod[]) => periods.flatMap((p) => p.exceptions.filter((e) => e.rule === "scale").map((e) => `${p.fiscal_year} ${e.metric}`));

  it("a net income filed in thousands is corrected; the share count it contradicts is not", () => {
    const periods = company({ NetIncomeLoss: { 2022: 2_000_000 } });
    expect(year(periods, 2022).metrics.net_income).toMatchObject({ value: 2_000_000_000, scale_corrected: { factor: 0.001, value_as_filed: 2_000_000 } });
    for (const y of years) expect(year(periods, y).metrics.diluted_shares).toMatchObject({ value: 1_000_000_000, scale_corrected: null });
    expect(scaleMarks(periods)).toEqual([]);
  });

  it("the latest year's net income filed in thousands, with one neighbour only: net income = EPS × shares shows it", () => {
    const periods = company({ NetIncomeLoss: { 2023: 2_000_000 } });
    expect(year(periods, 2023).metrics.net_income).toMatchObject({ value: 2_000_000_000, scale_corrected: { factor: 0.001 } });
    expect(year(periods, 2023).metrics.diluted_shares).toMatchObject({ value: 1_000_000_000, scale_corrected: null });
  });

  it("an EPS filed 1,000 times too big is corrected; the share count is not", () => {
    const periods = company({ EarningsPerShareDiluted: { 2022: 2000 } });
    expect(year(periods, 2022).metrics.eps_diluted).toMatchObject({ value: 2, scale_corrected: { factor: 1000, value_as_filed: 2000 } });
    for (const y of years) expect(year(periods, y).metrics.diluted_shares).toMatchObject({ value: 1_000_000_000, scale_corrected: null });
  });

  it("a share count in thousands beside net income and EPS as filed is corrected (share counts first)", () => {
    const periods = company({ WeightedAverageNumberOfDilutedSharesOutstanding: { 2021: 1_000_000 } });
    expect(year(periods, 2021).metrics.diluted_shares).toMatchObject({ value: 1_000_000_000, scale_corrected: { factor: 0.001 } });
    expect(year(periods, 2021).metrics.net_income).toMatchObject({ value: 2_000_000_000, scale_corrected: null });
  });

  it("a gross profit a thousandth of its neighbours in one filing: marked, not corrected (income can near zero)", () => {
    const periods = company({ GrossProfit: { 2022: 4_000_000 } });
    expect(year(periods, 2022).metrics.gross_profit).toMatchObject({ value: 4_000_000, scale_corrected: null });
    expect(year(periods, 2022).exceptions).toContainEqual(expect.objectContaining({ rule: "scale", metric: "gross_profit" }));
    expect(scaleMarks(periods).filter((m) => !m.endsWith("gross_profit"))).toEqual([]);
  });

  it("an operating income a thousandth of its neighbours: marked, not corrected", () => {
    const periods = company({ OperatingIncomeLoss: { 2021: 3_000_000 } });
    expect(year(periods, 2021).metrics.operating_income).toMatchObject({ value: 3_000_000, scale_corrected: null });
    expect(year(periods, 2021).exceptions).toContainEqual(expect.objectContaining({ rule: "scale", metric: "operating_income" }));
  });

  it("a year near breakeven (EPS 0.00) is not corrected: marked as unclear", () => {
    const periods = company({ NetIncomeLoss: { 2022: 2_000_000 }, EarningsPerShareDiluted: { 2022: 0 } });
    expect(year(periods, 2022).metrics.net_income).toMatchObject({ value: 2_000_000, scale_corrected: null });
    expect(year(periods, 2022).exceptions).toContainEqual(expect.objectContaining({ rule: "scale", metric: "net_income" }));
  });

  it("a genuine thousandfold fall in income that EPS × shares confirms is kept, and marked as a real change", () => {
    // One million shares: net income 2,000,000,000 (EPS 2,000) in three years, 2,000,000 (EPS 2) in 2022.
    const periods = company({}, { shares: 1_000_000, income: (y) => (y === 2022 ? 2_000_000 : 2_000_000_000) });
    expect(year(periods, 2022).metrics.net_income).toMatchObject({ value: 2_000_000, scale_corrected: null });
    expect(year(periods, 2022).metrics.eps_diluted).toMatchObject({ value: 2, scale_corrected: null });
    expect(year(periods, 2022).exceptions.map((e) => [e.metric, /a real change/.test(e.message)])).toEqual([
      ["net_income", true],
      ["net_income", true],
      ["eps_diluted", true],
      ["eps_diluted", true],
    ]);
  });
});

function derive(concepts: Concepts): EarningsPeriod[] {
  return deriveBase(concepts).periods;
}

function deriveBase(concepts: Concepts): EarningsSeries {
  return deriveEarningsBase(companyFacts({ "us-gaap": Object.fromEntries(Object.entries(concepts).map(([key, units]) => [key.replace("us-gaap:", ""), units])) })).series;
}

function deriveIfrs(concepts: Record<string, Record<string, Fact[]>>): EarningsPeriod[] {
  return deriveEarningsBase(companyFacts({ "ifrs-full": concepts })).series.periods;
}

function find(periods: EarningsPeriod[], start: string, end: string): EarningsPeriod {
  return findRow(periods, start, end);
}
