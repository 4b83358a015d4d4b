// Statement rules the real files do not exercise cleanly, on small hand-made company facts run through the parser.
import { describe, expect, it } from "vitest";
import { LATEST } from "../../schemas/earnings-history.ts";
import { financialAsOf } from "../../schemas/financials-history.ts";
import type { FinancialPeriod } from "../../schemas/financials.ts";
import { companyFacts, filing, findRow, type Fact } from "../../test/_facts.ts";
import { deriveEarningsBase } from "./earnings.ts";
import { checkFinancials } from "./financial-invariants.ts";
import { deriveFinancials } from "./statements.ts";

/** Filings of a calendar-year company for 2023 and 2024: three 10-Qs and a 10-K each. */
const q1 = filing("0000001234-23-000001", "10-Q", "2023-05-01", 2023, "Q1");
const q2 = filing("0000001234-23-000002", "10-Q", "2023-08-01", 2023, "Q2");
const q3 = filing("0000001234-23-000003", "10-Q", "2023-11-01", 2023, "Q3");
const k23 = filing("0000001234-24-000004", "10-K", "2024-02-20", 2023, "FY");
const q124 = filing("0000001234-24-000005", "10-Q", "2024-05-01", 2024, "Q1");
const q224 = filing("0000001234-24-000006", "10-Q", "2024-08-01", 2024, "Q2");
const q324 = filing("0000001234-24-000007", "10-Q", "2024-11-01", 2024, "Q3");
const k24 = filing("0000001234-25-000008", "10-K", "2025-02-20", 2024, "FY");

/** Revenue filed as discrete quarters and years (the income statement the statements sit on). */
function revenue(): Fact[] {
  const out: Fact[] = [];
  const quarters = [["01-01", "03-31"], ["04-01", "06-30"], ["07-01", "09-30"]] as const;
  for (const [year, filings, k] of [[2023, [q1, q2, q3], k23], [2024, [q124, q224, q324], k24]] as const) {
    quarters.forEach(([s, e], i) => out.push(filings[i]!(`${year}-${s}`, `${year}-${e}`, 101)));
    out.push(k(`${year}-01-01`, `${year}-12-31`, 404));
  }
  return out;
}

function derive(usGaap: Record<string, Fact[]>, extra: { dei?: Record<string, Fact[]>; ifrs?: Record<string, Fact[]> } = {}) {
  const inUnit = (concepts: Record<string, Fact[]>, unit: string) => Object.fromEntries(Object.entries(concepts).map(([name, facts]) => [name, { [unit]: facts }]));
  const facts = companyFacts({
    dei: inUnit(extra.dei ?? {}, "shares"),
    "us-gaap": inUnit({ Revenues: revenue(), ...usGaap }, "USD"),
    ...(extra.ifrs ? { "ifrs-full": inUnit(extra.ifrs, "USD") } : {}),
  });
  return deriveFinancials(facts, deriveEarningsBase(facts));
}

function find(periods: FinancialPeriod[], start: string, end: string, ttm = false): FinancialPeriod {
  return findRow(periods, start, end, (x) => (x.ttm !== null) === ttm);
}

describe("cash flows filed year to date", () => {
  // Operating cash flow as 10-Qs and 10-Ks file it: Q1, then the half and nine months to date, then the year (2023:
  // quarters 101, 203, 303, 404). The 2024 filings restate 2023: its nine months to 758 (the 10-Q of 2024's third
  // quarter) and the year to 1,112 (the 2024 10-K); no filing restates its half or first quarter.
  const ocf = [
    q1("2023-01-01", "2023-03-31", 101),
    q2("2023-01-01", "2023-06-30", 304),
    q3("2023-01-01", "2023-09-30", 607),
    k23("2023-01-01", "2023-12-31", 1011),
    q324("2023-01-01", "2023-09-30", 758),
    k24("2023-01-01", "2023-12-31", 1112),
    q124("2024-01-01", "2024-03-31", 121),
    q224("2024-01-01", "2024-06-30", 263),
    q324("2024-01-01", "2024-09-30", 457),
    k24("2024-01-01", "2024-12-31", 709),
  ];
  // Capex filed as a negative number by one 10-Q (a sign slip: the taxonomy's payments are positive).
  const capex = [q1("2023-01-01", "2023-03-31", 41), q2("2023-01-01", "2023-06-30", -93), q3("2023-01-01", "2023-09-30", 151), k23("2023-01-01", "2023-12-31", 203)];
  const { periods, history } = derive({ NetCashProvidedByUsedInOperatingActivities: ocf, PaymentsToAcquirePropertyPlantAndEquipment: capex });

  it("serves discrete quarters: Q2 = half − Q1, Q3 = nine months − half, Q4 = year − nine months, each derived; years to date as such", () => {
    const quarter = (s: string, e: string) => find(periods, s, e).cash_flow!.operating_cash_flow!;
    expect(quarter("2024-01-01", "2024-03-31")).toMatchObject({ value: 121, derived: false });
    expect(quarter("2024-04-01", "2024-06-30")).toMatchObject({ value: 142, derived: true, source_accession: "0000001234-24-000006" });
    expect(quarter("2024-07-01", "2024-09-30")).toMatchObject({ value: 194, derived: true });
    expect(quarter("2024-10-01", "2024-12-31")).toMatchObject({ value: 252, derived: true, source_accession: "0000001234-25-000008" });
    const half = find(periods, "2024-01-01", "2024-06-30");
    expect(half).toMatchObject({ months: 6, fiscal_quarter: "Q2", balance: null });
    expect(half.cash_flow!.operating_cash_flow).toMatchObject({ value: 263, derived: false });
    expect(find(periods, "2024-01-01", "2024-12-31").reconciled).toBe(true);
  });

  it("pairs the restated year with the nine months of its own vintage, and marks a year whose quarters no longer add up", () => {
    // Q4 2023: 1,112 − 758 (the restating filings), not 1,112 − 607. Q3 stays 607 − 304: the half was never restated.
    expect(find(periods, "2023-10-01", "2023-12-31").cash_flow!.operating_cash_flow).toMatchObject({ value: 354, derived: true });
    expect(find(periods, "2023-07-01", "2023-09-30").cash_flow!.operating_cash_flow).toMatchObject({ value: 303, derived: true });
    const year = find(periods, "2023-01-01", "2023-12-31");
    expect(year.cash_flow!.operating_cash_flow).toMatchObject({ value: 1112, restated: true, original_value: 1011 });
    expect(year.reconciled).toBe(false);
    expect(year.reconciliation).toEqual([{ metric: "operating_cash_flow", quarters_sum: 961, year_value: 1112, difference: -151 }]);
    // As of the first 10-K the year was 1,011 and its quarters added up: Q4 = 1,011 − 607.
    const i = periods.indexOf(year);
    expect(financialAsOf(year, history[i]!, "2024-03-01", false)).toMatchObject({ reconciled: true, cash_flow: { operating_cash_flow: { value: 1011 } } });
    const q4 = periods.findIndex((p) => p.period_start === "2023-10-01" && p.ttm === null);
    expect(financialAsOf(periods[q4]!, history[q4]!, "2024-03-01", false)!.cash_flow!.operating_cash_flow!.value).toBe(404);
  });

  it("serves an outflow filed negative as positive, marked as a flipped sign, and differences it as such", () => {
    const half = find(periods, "2023-01-01", "2023-06-30").cash_flow!.capital_expenditure!;
    expect(half).toMatchObject({ value: 93, scale_corrected: { factor: -1, value_as_filed: -93 } });
    expect(find(periods, "2023-04-01", "2023-06-30").cash_flow!.capital_expenditure).toMatchObject({ value: 52, derived: true });
    expect(find(periods, "2023-04-01", "2023-06-30").cash_flow!.free_cash_flow).toMatchObject({ value: 151, derived: true });
  });

  it("TTM: the year at its end, four quarters otherwise; null with the reason where a year does not add up", () => {
    expect(find(periods, "2024-01-01", "2024-12-31", true)).toMatchObject({ ttm: { basis: "fiscal_year" }, cash_flow: { operating_cash_flow: { value: 709 } } });
    // To 2024-09-30: Q4 2023 (354) + 121 + 142 + 194 — but fiscal 2023 does not add up in operating cash flow.
    const ttm = find(periods, "2023-10-01", "2024-09-30", true);
    expect(ttm.cash_flow!.operating_cash_flow).toBeNull();
    expect(ttm.ttm!.unavailable).toContainEqual({ metric: "operating_cash_flow", reason: "unreconciled", message: expect.stringContaining("fiscal 2023") });
    expect(ttm.ttm!.periods.map((p) => `${p.fiscal_quarter} ${p.fiscal_year}`)).toEqual(["Q4 2023", "Q1 2024", "Q2 2024", "Q3 2024"]);
    expect(ttm.income!.revenue).toMatchObject({ value: 404, derived: true });
    // To 2023-09-30 no quarter precedes 2023: no flow, each with its reason. Its dates are twelve months' all the same,
    // not the three quarters that chain (no third quarter of 2022 is known: a calendar year before its end).
    const early = find(periods, "2022-10-01", "2023-09-30", true);
    expect(early).toMatchObject({ months: 12, duration_days: 365 });
    expect(early.ttm!.periods.map((p) => p.fiscal_quarter)).toEqual(["Q1", "Q2", "Q3"]);
    expect(early.income!.revenue).toBeNull();
    expect(early.ttm!.unavailable).toContainEqual(expect.objectContaining({ metric: "revenue", reason: "missing_quarter" }));
    expect(checkFinancials(periods).filter((v) => !v.marked)).toEqual([]);
  });
});

describe("a partnership's distributions to its limited partners", () => {
  const paid = [q1("2023-01-01", "2023-03-31", 1000), q2("2023-01-01", "2023-06-30", 2010), q3("2023-01-01", "2023-09-30", 3030), k23("2023-01-01", "2023-12-31", 4060)];

  it("are its dividends paid, filed year to date like any cash flow, their quarters derived", () => {
    const { periods } = derive({ DistributionMadeToLimitedPartnerCashDistributionsPaid: paid });
    expect(find(periods, "2023-01-01", "2023-12-31").cash_flow!.dividends_paid).toMatchObject({ value: 4060, concept: "us-gaap:DistributionMadeToLimitedPartnerCashDistributionsPaid" });
    expect(find(periods, "2023-04-01", "2023-06-30").cash_flow!.dividends_paid).toMatchObject({ value: 1010, derived: true });
  });

  it("give way to a filing's dividends paid", () => {
    const { periods } = derive({ DistributionMadeToLimitedPartnerCashDistributionsPaid: paid, PaymentsOfDividends: [k23("2023-01-01", "2023-12-31", 4500)] });
    expect(find(periods, "2023-01-01", "2023-12-31").cash_flow!.dividends_paid).toMatchObject({ value: 4500, concept: "us-gaap:PaymentsOfDividends" });
  });
});

describe("dividends paid where the statement shows no total", () => {
  // PNC's 2020 cash flow statement shows common and preferred dividends on lines of their own, 1,980 and 229 million,
  // and no total (10-K 0000713676-21-000025): hand-made here as 100 and 10 a quarter, filed year to date.
  const common = [q1("2023-01-01", "2023-03-31", 100), q2("2023-01-01", "2023-06-30", 200), q3("2023-01-01", "2023-09-30", 300), k23("2023-01-01", "2023-12-31", 400)];
  const preferred = [q1("2023-01-01", "2023-03-31", 10), q2("2023-01-01", "2023-06-30", 20), q3("2023-01-01", "2023-09-30", 30), k23("2023-01-01", "2023-12-31", 40)];
  const dividends = (usGaap: Record<string, Fact[]>, start = "2023-01-01", end = "2023-12-31") => find(derive(usGaap).periods, start, end).cash_flow!.dividends_paid;

  it("are common + preferred, marked derived with both lines; quarters are differences of the sums", () => {
    const { periods } = derive({ PaymentsOfDividendsCommonStock: common, PaymentsOfDividendsPreferredStockAndPreferenceStock: preferred });
    expect(find(periods, "2023-01-01", "2023-12-31").cash_flow!.dividends_paid).toMatchObject({
      value: 440,
      derived: true,
      concept: "us-gaap:PaymentsOfDividendsCommonStock+us-gaap:PaymentsOfDividendsPreferredStockAndPreferenceStock",
      components: [
        { concept: "us-gaap:PaymentsOfDividendsCommonStock", value: 400 },
        { concept: "us-gaap:PaymentsOfDividendsPreferredStockAndPreferenceStock", value: 40 },
      ],
    });
    expect(find(periods, "2023-04-01", "2023-06-30").cash_flow!.dividends_paid).toMatchObject({ value: 110, derived: true });
    expect(find(periods, "2023-10-01", "2023-12-31").cash_flow!.dividends_paid).toMatchObject({ value: 110, derived: true });
    expect(checkFinancials(periods).filter((v) => !v.marked)).toEqual([]);
  });

  it("are a filing's own total where it tags one, under either of the taxonomy's names for it", () => {
    expect(dividends({ PaymentsOfDividendsCommonStock: common, PaymentsOfDividendsPreferredStockAndPreferenceStock: preferred, PaymentsOfDividends: [k23("2023-01-01", "2023-12-31", 440)] })).toMatchObject({ value: 440, derived: false, concept: "us-gaap:PaymentsOfDividends" });
    // Simon Property's 2018: 2,449,071,000 under PaymentsOfOrdinaryDividends, common and preferred (10-K 0001558370-19-000875).
    expect(dividends({ PaymentsOfOrdinaryDividends: [k23("2023-01-01", "2023-12-31", 2_449_071_000)] })).toMatchObject({ value: 2_449_071_000, concept: "us-gaap:PaymentsOfOrdinaryDividends" });
    // Common dividends alone are served as tagged, not marked derived.
    expect(dividends({ PaymentsOfDividendsCommonStock: common })).toMatchObject({ value: 400, derived: false, concept: "us-gaap:PaymentsOfDividendsCommonStock" });
  });

  it("restate as any filing's do when a later filing tags the year's lines instead of the total", () => {
    // Walmart's 10-K for fiscal 2022 (0000104169-22-000012) tags fiscal 2020's 6,048 million as common dividends; its
    // 10-K for fiscal 2020 (0000104169-20-000011) had tagged it PaymentsOfDividends. The latest filing is the source.
    const year = dividends({ PaymentsOfDividends: [k23("2023-01-01", "2023-12-31", 400)], PaymentsOfDividendsCommonStock: [k24("2023-01-01", "2023-12-31", 400)] });
    expect(year).toMatchObject({ value: 400, concept: "us-gaap:PaymentsOfDividendsCommonStock", source_accession: "0000001234-25-000008", restated: false });
  });

  it("never the noncontrolling interests' or an operating partnership's outside unitholders' distributions", () => {
    const partners = [k23("2023-01-01", "2023-12-31", 60)];
    expect(dividends({ PaymentsOfDividendsCommonStock: common, DistributionMadeToLimitedPartnerCashDistributionsPaid: partners, PaymentsOfDividendsMinorityInterest: partners })).toMatchObject({ value: 400, concept: "us-gaap:PaymentsOfDividendsCommonStock" });
  });

  it("a quarter filed on its own gives way to the difference of a later vintage, for a sum of lines as for a total", () => {
    // The first half's 10-Q also tags its second quarter alone (100); the next year's 10-Qs restate the first quarter to
    // 95 and the half to 215, so from then the quarter is 215 − 95 = 120 (as McDonald's 2009 dividends, quarters.ts).
    const restated = [...common.slice(0, 2), q2("2023-04-01", "2023-06-30", 100), q124("2023-01-01", "2023-03-31", 95), q224("2023-01-01", "2023-06-30", 215)];
    const { periods, history } = derive({ PaymentsOfDividendsCommonStock: restated });
    const i = periods.findIndex((p) => p.period_start === "2023-04-01" && p.period_end === "2023-06-30");
    expect(periods[i]!.cash_flow!.dividends_paid).toMatchObject({ value: 120, derived: true, source_accession: "0000001234-24-000006" });
    expect(financialAsOf(periods[i]!, history[i]!, "2023-09-01", false)!.cash_flow!.dividends_paid).toMatchObject({ value: 100, derived: false });
  });
});

describe("one line under two of the taxonomy's names (StatementSpec.sameLine)", () => {
  const ytd = (values: readonly [number, number, number]) => [q1("2023-01-01", "2023-03-31", values[0]), q2("2023-01-01", "2023-06-30", values[1]), q3("2023-01-01", "2023-09-30", values[2])];
  const flow = (periods: FinancialPeriod[], start: string, end: string, metric: "dividends_paid" | "operating_cash_flow") => find(periods, start, end).cash_flow![metric];

  it("dividends: 10-Qs under PaymentsOfOrdinaryDividends, the 10-K under PaymentsOfDividends, still give the fourth quarter", () => {
    // Duke Energy's 10-Qs tag its "dividends paid" line as ordinary dividends, its 10-Ks as dividends: hand-made here.
    const { periods } = derive({ PaymentsOfOrdinaryDividends: ytd([100, 200, 300]), PaymentsOfDividends: [k23("2023-01-01", "2023-12-31", 410)] });
    expect(flow(periods, "2023-10-01", "2023-12-31", "dividends_paid")).toMatchObject({ value: 110, derived: true, concept: "us-gaap:PaymentsOfDividends", source_accession: "0000001234-24-000004" });
    expect(flow(periods, "2023-07-01", "2023-09-30", "dividends_paid")).toMatchObject({ value: 100, concept: "us-gaap:PaymentsOfOrdinaryDividends" });
    expect(checkFinancials(periods).filter((v) => !v.marked)).toEqual([]);
  });

  it("operating cash flow: continuing operations' is the total where the filing shows no discontinued operations' line", () => {
    // Texas Instruments' 10-Qs of 2009 tag 2008's nine months as NetCashProvidedByUsedInOperatingActivities, its 10-K
    // for 2009 the year as ...ContinuingOperations, beside no discontinued operations (the real figures: statements.test.ts).
    const { periods } = derive({ NetCashProvidedByUsedInOperatingActivities: ytd([100, 200, 300]), NetCashProvidedByUsedInOperatingActivitiesContinuingOperations: [k23("2023-01-01", "2023-12-31", 420)] });
    expect(flow(periods, "2023-10-01", "2023-12-31", "operating_cash_flow")).toMatchObject({ value: 120, derived: true });
  });

  it("share repurchases: all equity repurchased is the common stock's, unless the filing shows preferred stock repurchased", () => {
    const usGaap = { PaymentsForRepurchaseOfEquity: ytd([100, 200, 300]), PaymentsForRepurchaseOfCommonStock: [k23("2023-01-01", "2023-12-31", 450)] };
    expect(find(derive(usGaap).periods, "2023-10-01", "2023-12-31").cash_flow!.share_repurchases).toMatchObject({ value: 150, derived: true, concept: "us-gaap:PaymentsForRepurchaseOfCommonStock" });
    const preferred = { PaymentsForRepurchaseOfPreferredStockAndPreferenceStock: [q3("2023-01-01", "2023-09-30", 40)] };
    expect(find(derive({ ...usGaap, ...preferred }).periods, "2023-10-01", "2023-12-31").cash_flow!.share_repurchases).toBeNull();
  });

  it("a filing showing discontinued operations keeps continuing operations' its own line, whatever ties the two elsewhere", () => {
    // Fiscal 2023: the 10-Qs' nine months as the total, 300; the 10-K's year as continuing operations', 420, beside 8 of
    // discontinued operations (the total 428). A year later the 10-K re-tags 2023 so, and tags 2024 under both names
    // alike (450, no discontinued line): as Disney's 10-Ks of 2023 and 2025. 2023's fourth quarter is never 420 − 300.
    const { periods } = derive({
      NetCashProvidedByUsedInOperatingActivities: [...ytd([100, 200, 300]), k24("2024-01-01", "2024-12-31", 450)],
      NetCashProvidedByUsedInOperatingActivitiesContinuingOperations: [k23("2023-01-01", "2023-12-31", 420), k24("2023-01-01", "2023-12-31", 420), k24("2024-01-01", "2024-12-31", 450)],
      CashProvidedByUsedInOperatingActivitiesDiscontinuedOperations: [k23("2023-01-01", "2023-12-31", 8), k24("2023-01-01", "2023-12-31", 8)],
    });
    expect(flow(periods, "2023-10-01", "2023-12-31", "operating_cash_flow")).toBeNull();
  });

  it("operating cash flow: never continuing operations' less the total where the filing shows discontinued operations", () => {
    const q4 = (discontinued: number) =>
      flow(
        derive({
          NetCashProvidedByUsedInOperatingActivities: ytd([100, 200, 300]),
          NetCashProvidedByUsedInOperatingActivitiesContinuingOperations: [k23("2023-01-01", "2023-12-31", 420)],
          CashProvidedByUsedInOperatingActivitiesDiscontinuedOperations: [k23("2023-01-01", "2023-12-31", discontinued)],
        }).periods,
        "2023-10-01",
        "2023-12-31",
        "operating_cash_flow",
      );
    expect(q4(25)).toBeNull();
    // A zero discontinued line makes continuing operations' the total too, and the year's 10-Qs tag the total: Disney's
    // 10-K for fiscal 2024 (0001744489-24-000276), the real figures in statements.test.ts.
    expect(q4(0)).toMatchObject({ value: 120, derived: true, source_accession: "0000001234-24-000004" });
  });
});

describe("one line under two names the company's own filings tie (tagged-alike.ts)", () => {
  // The 10-Qs tag capex as PP&E for the years to date, the 10-K the year as productive assets: the first quarter's
  // 10-Q tags both, 50 each, so the two are one line from that filing on, and Q4 = 210 − 150.
  const capex = (q1Both: number | null) => ({
    PaymentsToAcquirePropertyPlantAndEquipment: [q1("2023-01-01", "2023-03-31", 50), q2("2023-01-01", "2023-06-30", 100), q3("2023-01-01", "2023-09-30", 150)],
    PaymentsToAcquireProductiveAssets: [k23("2023-01-01", "2023-12-31", 210), ...(q1Both === null ? [] : [q1("2023-01-01", "2023-03-31", q1Both)])],
  });
  const q4 = (q1Both: number | null) => find(derive(capex(q1Both)).periods, "2023-10-01", "2023-12-31").cash_flow!.capital_expenditure;

  it("tied by one filing: the fourth quarter is the year − nine months, derived", () => {
    expect(q4(50)).toMatchObject({ value: 60, derived: true, concept: "us-gaap:PaymentsToAcquireProductiveAssets", source_accession: "0000001234-24-000004" });
  });

  it("untied, or tagged apart in the filing that tags both: two lines, and no fourth quarter", () => {
    expect(q4(null)).toBeNull();
    expect(q4(55)).toBeNull();
  });
});

describe("a quarter's cash flow neither filed nor derivable: null with the reason not_derivable", () => {
  // No 10-Q gives the half of 2023 (its 10-Q is not in XBRL, say): Q2 = the half − Q1 and Q3 = nine months − the half
  // cannot be made until the 10-Q of August 2024 gives the half of 2023 as its prior-year column.
  const ocf = [q1("2023-01-01", "2023-03-31", 100), q3("2023-01-01", "2023-09-30", 300), k23("2023-01-01", "2023-12-31", 400), q224("2023-01-01", "2023-06-30", 190)];

  it("names the flow and free cash flow, from the day the year first reports the flow, until the quarter has it", () => {
    const { periods, history } = derive({ NetCashProvidedByUsedInOperatingActivities: ocf, PaymentsToAcquirePropertyPlantAndEquipment: [k23("2023-01-01", "2023-12-31", 40)] });
    const i = periods.findIndex((p) => !p.ttm && p.period_start === "2023-04-01" && p.period_end === "2023-06-30");
    const asOf = (date: string) => financialAsOf(periods[i]!, history[i]!, date, false)!;
    expect(asOf("2024-05-01").cash_flow!.operating_cash_flow).toBeNull();
    expect(asOf("2024-05-01").unavailable.map((u) => [u.metric, u.reason])).toEqual([
      ["operating_cash_flow", "not_derivable"],
      ["capital_expenditure", "not_derivable"],
      ["free_cash_flow", "not_derivable"],
    ]);
    expect(asOf("2024-08-01").cash_flow!.operating_cash_flow).toMatchObject({ value: 90, derived: true });
    expect(asOf("2024-08-01").unavailable.map((u) => [u.metric, u.reason])).toEqual([
      ["capital_expenditure", "not_derivable"],
      ["free_cash_flow", "not_derivable"],
    ]);
    // The fourth quarter is the year − nine months: derived, no reason. A metric the year never reports has none.
    const q4 = find(periods, "2023-10-01", "2023-12-31");
    expect(q4.cash_flow!.operating_cash_flow).toMatchObject({ value: 100, derived: true });
    expect(q4.unavailable.map((u) => u.metric)).toEqual(["capital_expenditure", "free_cash_flow"]);
    expect(find(periods, "2023-04-01", "2023-06-30").unavailable.some((u) => u.metric === "dividends_paid")).toBe(false);
  });
});

describe("a payout line a 10-Q's cash flow statement leaves out", () => {
  // Each 10-Q of 2024 tags its operating cash flow for its year to date and for the prior year's (its two columns).
  const ocf = [
    q124("2024-01-01", "2024-03-31", 100), q124("2023-01-01", "2023-03-31", 90),
    q224("2024-01-01", "2024-06-30", 200), q224("2023-01-01", "2023-06-30", 180),
    q324("2024-01-01", "2024-09-30", 300), q324("2023-01-01", "2023-09-30", 270),
    k23("2023-01-01", "2023-12-31", 360), k24("2024-01-01", "2024-12-31", 400),
  ];
  // Dividends paid twice a year, in the second and the fourth quarter (as Disney's, in January and July): the first
  // quarter's 10-Q has no dividends line, and the third quarter's shows the half's figure again.
  const twiceYearly = [k23("2023-01-01", "2023-12-31", 980), q224("2024-01-01", "2024-06-30", 500), q224("2023-01-01", "2023-06-30", 480), q324("2024-01-01", "2024-09-30", 500), q324("2023-01-01", "2023-09-30", 480), k24("2024-01-01", "2024-12-31", 1000)];
  const dividends = (periods: FinancialPeriod[], start: string, end: string) => find(periods, start, end).cash_flow!.dividends_paid;

  it("is zero, marked derived, from that 10-Q: the quarters are then differences like any", () => {
    const { periods, history } = derive({ NetCashProvidedByUsedInOperatingActivities: ocf, PaymentsOfDividends: twiceYearly });
    expect(dividends(periods, "2024-01-01", "2024-03-31")).toMatchObject({ value: 0, derived: true, concept: "us-gaap:PaymentsOfDividends", source_accession: "0000001234-24-000005" });
    expect(dividends(periods, "2024-04-01", "2024-06-30")).toMatchObject({ value: 500, derived: true });
    expect(dividends(periods, "2024-07-01", "2024-09-30")).toMatchObject({ value: 0, derived: true });
    expect(dividends(periods, "2024-10-01", "2024-12-31")).toMatchObject({ value: 500, derived: true });
    // As of the first quarter's 10-Q: only the filings before it said the company reports dividends.
    const i = periods.findIndex((p) => p.period_start === "2024-01-01" && p.period_end === "2024-03-31" && p.ttm === null);
    expect(financialAsOf(periods[i]!, history[i]!, "2024-05-02", false)!.cash_flow!.dividends_paid).toMatchObject({ value: 0, source_accession: "0000001234-24-000005" });
    expect(checkFinancials(periods).filter((v) => !v.marked)).toEqual([]);
  });

  it("is zero where the 10-Q tags the line for the prior year's column only (the current one \"—\")", () => {
    const { periods } = derive({ NetCashProvidedByUsedInOperatingActivities: ocf, PaymentsForRepurchaseOfCommonStock: [q124("2023-01-01", "2023-03-31", 75), k23("2023-01-01", "2023-12-31", 300)] });
    expect(find(periods, "2024-01-01", "2024-03-31").cash_flow!.share_repurchases).toMatchObject({ value: 0, derived: true, source_accession: "0000001234-24-000005" });
  });

  it("is zero for a year to date within a longer one of zero, from that filing: a payout is never negative", () => {
    // As Apple's 10-K for fiscal 2013 (0001193125-13-416534) tags fiscal 2011's repurchases as 0, its quarters untagged.
    const repurchases = (facts: Fact[], start: string, end: string) =>
      find(derive({ NetCashProvidedByUsedInOperatingActivities: ocf, PaymentsForRepurchaseOfCommonStock: facts }).periods, start, end).cash_flow!.share_repurchases;
    const year = [k24("2024-01-01", "2024-12-31", 0)];
    for (const [start, end] of [["2024-01-01", "2024-03-31"], ["2024-01-01", "2024-06-30"], ["2024-01-01", "2024-09-30"]] as const) {
      expect(repurchases(year, start, end), end).toMatchObject({ value: 0, derived: true, source_accession: "0000001234-25-000008" });
    }
    expect(repurchases(year, "2024-07-01", "2024-09-30")).toMatchObject({ value: 0, derived: true });
    // A year to date a filing tags keeps its figure, even beside a year of zero that does not hold it.
    expect(repurchases([...year, q224("2024-01-01", "2024-06-30", 5)], "2024-01-01", "2024-06-30")).toMatchObject({ value: 5, derived: false });
  });

  it("is zero for a quarter within a span of zero where no two years to date of its fiscal year give it as their difference", () => {
    // A company whose first report is its third quarter's 10-Q (as Snowflake's, 0001640147-20-000023): its nine months
    // and year, no half. The second and third quarters were null, not derivable, before this rule.
    const ytd = [q324("2024-01-01", "2024-09-30", 300), k24("2024-01-01", "2024-12-31", 400)];
    const { periods, history } = derive({ NetCashProvidedByUsedInOperatingActivities: ytd, PaymentsForRepurchaseOfCommonStock: [q324("2024-01-01", "2024-09-30", 0)] });
    for (const [start, end] of [["2024-04-01", "2024-06-30"], ["2024-07-01", "2024-09-30"]] as const) {
      const row = find(periods, start, end);
      expect(row.cash_flow!.share_repurchases, end).toMatchObject({ value: 0, derived: true, source_accession: "0000001234-24-000007" });
      expect(row.unavailable.some((u) => u.metric === "share_repurchases"), end).toBe(false);
      // From the 10-Q that tagged the nine months, not before.
      const i = periods.indexOf(row);
      expect(financialAsOf(row, history[i]!, "2024-10-31", false)?.cash_flow?.share_repurchases ?? null).toBeNull();
    }
    // The operating cash flow of those quarters stays unknown: only a payout's zero holds for every part.
    expect(find(periods, "2024-07-01", "2024-09-30").cash_flow!.operating_cash_flow).toBeNull();
    // Nothing known of the fourth quarter's repurchases: the year tags none.
    expect(find(periods, "2024-10-01", "2024-12-31").cash_flow!.share_repurchases).toBeNull();
    expect(checkFinancials(periods).filter((v) => !v.marked)).toEqual([]);
  });

  it("an annual report's too: the year is zero from that report, never where a shorter span of the year had a payout", () => {
    // As Disney's 10-K for fiscal 2023 (0001744489-23-000216): no dividends line, none paid since 2020; its 10-K for
    // 2022 had tagged the year as 0. Here the 10-K for 2023 tags 0, and the 10-Qs and 10-K of 2024 have no line.
    const withComparative = [...ocf, k24("2023-01-01", "2023-12-31", 360)];
    const none = derive({ NetCashProvidedByUsedInOperatingActivities: withComparative, PaymentsOfDividends: [k23("2023-01-01", "2023-12-31", 0)] }).periods;
    expect(dividends(none, "2024-01-01", "2024-12-31")).toMatchObject({ value: 0, derived: true, source_accession: "0000001234-25-000008" });
    expect(dividends(none, "2024-10-01", "2024-12-31")).toMatchObject({ value: 0, derived: true });
    expect(find(none, "2024-01-01", "2024-12-31", true).cash_flow!.dividends_paid).toMatchObject({ value: 0 });
    // The 10-Qs tag 500 for the half and the nine months, and the 10-K has no line: it moved out of the concepts read
    // (Hertz's 2021, 239 million in its 10-Qs, none in its 10-K 0001657853-22-000012). No zero, so no negative Q4.
    const paid = [k23("2023-01-01", "2023-12-31", 0), q224("2024-01-01", "2024-06-30", 500), q324("2024-01-01", "2024-09-30", 500)];
    const moved = derive({ NetCashProvidedByUsedInOperatingActivities: withComparative, PaymentsOfDividends: paid }).periods;
    expect(dividends(moved, "2024-01-01", "2024-12-31")).toBeNull();
    expect(dividends(moved, "2024-10-01", "2024-12-31")).toBeNull();
  });

  it("is not known where the line may be under another concept, or the company never tagged it, or the 10-Q tags it for other spans", () => {
    // The prior year's first quarter paid 240, which this 10-Q's comparative column would show: the line is there,
    // under a concept not read.
    const switched = derive({ NetCashProvidedByUsedInOperatingActivities: ocf, PaymentsOfDividends: [q1("2023-01-01", "2023-03-31", 240), ...twiceYearly] }).periods;
    expect(dividends(switched, "2024-01-01", "2024-03-31")).toBeNull();
    // No filing before the first quarter's 10-Q tagged dividends: nothing says the company reports the line.
    const first = derive({ NetCashProvidedByUsedInOperatingActivities: ocf, PaymentsOfDividends: twiceYearly.slice(1) }).periods;
    expect(dividends(first, "2024-01-01", "2024-03-31")).toBeNull();
    // The 10-Q tags its dividends by quarter, not for its year to date (as Apple's of July 2013): the line is there.
    const byQuarter = [...twiceYearly.filter((f) => f.accn !== "0000001234-24-000007"), q324("2024-07-01", "2024-09-30", 0), q324("2023-07-01", "2023-09-30", 0)];
    const quarterly = derive({ NetCashProvidedByUsedInOperatingActivities: ocf, PaymentsOfDividends: byQuarter }).periods;
    expect(dividends(quarterly, "2024-01-01", "2024-09-30")).toBeNull();
  });
});

describe("a year-to-date figure a later filing tags with a neighbouring period", () => {
  // Operating cash flow as filed: the half (300) and the nine months (450). A year later the 10-Q of 2024-11-01 tags the
  // half to 2023-06-30 with the nine months' 450, as the 10-Q of 2023-11-01 gave it: misdated, not a restatement. Its
  // nine months to 2023-09-30 are restated to 470, a figure of their own: a restatement.
  const ocf = [q1("2023-01-01", "2023-03-31", 140), q2("2023-01-01", "2023-06-30", 300), q3("2023-01-01", "2023-09-30", 450), q324("2023-01-01", "2023-06-30", 450), q324("2023-01-01", "2023-09-30", 470)];
  const { periods } = derive({ NetCashProvidedByUsedInOperatingActivities: ocf });

  it("is not served: the half keeps its own 300, and its third quarter is not the nine months less themselves (0)", () => {
    expect(find(periods, "2023-01-01", "2023-06-30").cash_flow!.operating_cash_flow).toMatchObject({ value: 300, restated: false });
    // The half's vintage pairs with the nine months as first filed (vintage.ts): 450 − 300.
    expect(find(periods, "2023-07-01", "2023-09-30").cash_flow!.operating_cash_flow).toMatchObject({ value: 150, derived: true });
    expect(find(periods, "2023-01-01", "2023-09-30").cash_flow!.operating_cash_flow).toMatchObject({ value: 470, restated: true, original_value: 450 });
  });

  it("a misdated column's EPS and share count go with its flows; alone, a share count may honestly repeat", () => {
    // The 10-Q of 2024-11-01 gives the half to 2023-06-30 the nine months' net income (90) and EPS (0.9).
    const facts = companyFacts({
      "us-gaap": {
        Revenues: { USD: revenue() },
        NetIncomeLoss: { USD: [q2("2023-01-01", "2023-06-30", 61), q3("2023-01-01", "2023-09-30", 90), q324("2023-01-01", "2023-06-30", 90)] },
        EarningsPerShareBasic: { "USD/shares": [q2("2023-01-01", "2023-06-30", 0.61), q3("2023-01-01", "2023-09-30", 0.9), q324("2023-01-01", "2023-06-30", 0.9)] },
      },
    });
    const half = find(deriveFinancials(facts, deriveEarningsBase(facts)).periods, "2023-01-01", "2023-06-30").income!;
    expect([half.net_income!.value, half.eps_basic!.value, half.eps_basic!.restated]).toEqual([61, 0.61, false]);
  });

  it("a share count may be the same for a half and its nine months: never judged so", () => {
    const shares = (val: number) => [q2("2023-01-01", "2023-06-30", 1234), q3("2023-01-01", "2023-09-30", val), q324("2023-01-01", "2023-06-30", val)];
    const facts = companyFacts({
      "us-gaap": {
        Revenues: { USD: revenue() },
        WeightedAverageNumberOfSharesOutstandingBasic: { shares: shares(1250) },
      },
    });
    const rows = deriveFinancials(facts, deriveEarningsBase(facts)).periods;
    expect(find(rows, "2023-01-01", "2023-06-30").income!.basic_shares).toMatchObject({ value: 1250, restated: true, original_value: 1234 });
  });
});

describe("IFRS cash flow lines beside the usual ones", () => {
  const year = (value: number) => [k23("2023-01-01", "2023-12-31", value)];
  const cashFlow = (ifrs: Record<string, Fact[]>) => find(derive({}, { ifrs }).periods, "2023-01-01", "2023-12-31").cash_flow!;

  it("capital expenditure from one line for PP&E, intangibles and other non-current assets, where the filing has no PP&E line", () => {
    const combined = "PurchaseOfPropertyPlantAndEquipmentIntangibleAssetsOtherThanGoodwillInvestmentPropertyAndOtherNoncurrentAssets";
    expect(cashFlow({ [combined]: year(300) }).capital_expenditure).toMatchObject({ value: 300, concept: `ifrs-full:${combined}` });
    expect(cashFlow({ [combined]: year(300), PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities: year(250) }).capital_expenditure).toMatchObject({ value: 250 });
  });

  it("dividends paid to the parent's shareholders, or classified in operating activities; the statement's total first", () => {
    expect(cashFlow({ DividendsPaidToEquityHoldersOfParentClassifiedAsFinancingActivities: year(90) }).dividends_paid).toMatchObject({ value: 90, concept: "ifrs-full:DividendsPaidToEquityHoldersOfParentClassifiedAsFinancingActivities" });
    expect(cashFlow({ DividendsPaidClassifiedAsOperatingActivities: year(80) }).dividends_paid).toMatchObject({ value: 80, concept: "ifrs-full:DividendsPaidClassifiedAsOperatingActivities" });
    expect(cashFlow({ DividendsPaidToEquityHoldersOfParentClassifiedAsFinancingActivities: year(90), DividendsPaidClassifiedAsFinancingActivities: year(95) }).dividends_paid).toMatchObject({ value: 95 });
  });
});

describe("balance sheets", () => {
  const usGaap = {
    // No total liabilities line: liabilities and equity, equity, a noncontrolling interest and a redeemable one.
    LiabilitiesAndStockholdersEquity: [k23(undefined, "2023-12-31", 1000), q124(undefined, "2024-03-31", 1100), q124(undefined, "2023-12-31", 1000)],
    StockholdersEquity: [k23(undefined, "2023-12-31", 300), q124(undefined, "2024-03-31", 320), q124(undefined, "2023-12-31", 300)],
    MinorityInterest: [k23(undefined, "2023-12-31", 50), q124(undefined, "2024-03-31", 55), q124(undefined, "2023-12-31", 50)],
    RedeemableNoncontrollingInterestEquityCarryingAmount: [k23(undefined, "2023-12-31", 20)],
    Assets: [k23(undefined, "2023-12-31", 1000), q124(undefined, "2024-03-29", 1100), q124(undefined, "2023-12-31", 1000)],
    // One filing's total current debt beats another's sum of lines for the same date.
    DebtCurrent: [k23(undefined, "2023-12-31", 0)],
    CommercialPaper: [q124(undefined, "2023-12-31", 70), q124(undefined, "2024-03-31", 60)],
    LongTermDebtCurrent: [q124(undefined, "2024-03-31", 15)],
    LongTermDebtNoncurrent: [k23(undefined, "2023-12-31", 400), q124(undefined, "2024-03-31", 410), q124(undefined, "2023-12-31", 400)],
  };
  const cover = { EntityCommonStockSharesOutstanding: [k23(undefined, "2024-02-10", 5000), q124(undefined, "2024-04-20", 5100), q224(undefined, "2023-06-30", 4900)] };
  const { periods } = derive(usGaap, { dei: cover });

  it("derives total liabilities from the same filing: liabilities and equity − equity − NCI − redeemable NCI", () => {
    const year = find(periods, "2023-01-01", "2023-12-31").balance!;
    // The year's date takes annual reports' values: the 10-K's, with its redeemable NCI (the next 10-Q omits it).
    expect(year.total_liabilities).toMatchObject({ value: 630, derived: true, source_accession: "0000001234-24-000004" });
    expect(find(periods, "2024-01-01", "2024-03-31").balance!.total_liabilities).toMatchObject({
      value: 725,
      concept: "us-gaap:LiabilitiesAndStockholdersEquity−us-gaap:StockholdersEquity−us-gaap:MinorityInterest",
      components: [
        { concept: "us-gaap:LiabilitiesAndStockholdersEquity", value: 1100 },
        { concept: "us-gaap:StockholdersEquity", value: -320 },
        { concept: "us-gaap:MinorityInterest", value: -55 },
      ],
    });
  });

  it("the fiscal year's balance is its fourth quarter's; a balance dated a few days off the period end is that date's", () => {
    expect(find(periods, "2023-10-01", "2023-12-31").balance).toEqual(find(periods, "2023-01-01", "2023-12-31").balance);
    expect(find(periods, "2024-01-01", "2024-03-31").balance!.total_assets!.value).toBe(1100);
  });

  it("a total some filing tags beats a later filing's lines; total debt is current + non-current of the row", () => {
    const year = find(periods, "2023-01-01", "2023-12-31").balance!;
    expect(year.debt_current).toMatchObject({ value: 0, concept: "us-gaap:DebtCurrent" });
    expect(year.total_debt).toMatchObject({ value: 400 });
    const q = find(periods, "2024-01-01", "2024-03-31").balance!;
    expect(q.debt_current).toMatchObject({ value: 75, derived: true, concept: "us-gaap:CommercialPaper+us-gaap:LongTermDebtCurrent" });
    expect(q.total_debt).toMatchObject({ value: 485, derived: true });
  });

  it("two kinds of current borrowings at the very same amount in one filing are one line tagged twice: counted once", () => {
    const debt = derive({
      // The 10-K tags its one current line under both concepts; the first 10-Q has two lines of their own.
      ShortTermBorrowings: [k23(undefined, "2023-12-31", 50), q124(undefined, "2024-03-31", 50)],
      LongTermDebtCurrent: [k23(undefined, "2023-12-31", 50), q124(undefined, "2024-03-31", 30)],
      LongTermDebtNoncurrent: [k23(undefined, "2023-12-31", 400), q124(undefined, "2024-03-31", 400)],
    }).periods;
    const year = find(debt, "2023-01-01", "2023-12-31").balance!;
    expect(year.debt_current).toMatchObject({ value: 50, concept: "us-gaap:ShortTermBorrowings" });
    expect(year.total_debt).toMatchObject({ value: 450 });
    expect(find(debt, "2024-01-01", "2024-03-31").balance!.debt_current).toMatchObject({ value: 80, concept: "us-gaap:ShortTermBorrowings+us-gaap:LongTermDebtCurrent" });
  });

  it("where a side of debt is not tagged, total debt is the filing's own total of borrowings (ifrs-full:Borrowings), served like a metric", () => {
    const debt = derive(
      // The 10-K tags current debt alone, the next 10-Q both sides (and the year end again, restating nothing).
      { DebtCurrent: [k23(undefined, "2023-12-31", 30), q124(undefined, "2024-03-31", 40), q124(undefined, "2023-12-31", 30)], LongTermDebtNoncurrent: [q124(undefined, "2024-03-31", 450)] },
      // Its total of borrowings: the 10-K's, then a 10-Q's other figure for the year end, which the year does not take
      // (a year end is served from annual reports, as every balance metric's).
      { ifrs: { Borrowings: [k23(undefined, "2023-12-31", 500), q124(undefined, "2023-12-31", 505)] } },
    ).periods;
    const year = find(debt, "2023-01-01", "2023-12-31").balance!;
    expect(year.debt_noncurrent).toBeNull();
    expect(year.total_debt).toMatchObject({ value: 500, concept: "ifrs-full:Borrowings", source_accession: "0000001234-24-000004", derived: false });
    expect(find(debt, "2023-10-01", "2023-12-31").balance!.total_debt).toEqual(year.total_debt);
    // Both sides tagged: their sum, derived; the internal series is published nowhere.
    const q = find(debt, "2024-01-01", "2024-03-31").balance!;
    expect(q.total_debt).toMatchObject({ value: 490, derived: true, concept: "us-gaap:DebtCurrent+us-gaap:LongTermDebtNoncurrent" });
    expect(Object.keys(q)).not.toContain("_borrowings");
  });

  it("an unclassified balance sheet's total debt is the filing's own total (us-gaap), never beside two sides of its own", () => {
    const debt = derive({
      // The 10-K: only the total of debt and finance leases; the 10-Q: both sides, and the total beside them.
      DebtAndCapitalLeaseObligations: [k23(undefined, "2023-12-31", 900), q124(undefined, "2024-03-31", 950)],
      DebtCurrent: [q124(undefined, "2024-03-31", 100)],
      LongTermDebtNoncurrent: [q124(undefined, "2024-03-31", 800)],
    }).periods;
    const year = find(debt, "2023-01-01", "2023-12-31").balance!;
    expect([year.debt_current, year.debt_noncurrent]).toEqual([null, null]);
    expect(year.total_debt).toMatchObject({ value: 900, concept: "us-gaap:DebtAndCapitalLeaseObligations", derived: false });
    expect(find(debt, "2024-01-01", "2024-03-31").balance!.total_debt).toMatchObject({ value: 900, derived: true, concept: "us-gaap:DebtCurrent+us-gaap:LongTermDebtNoncurrent" });
  });

  it("long-term debt (us-gaap:LongTermDebt) is the non-current side only where the filing tags no current portion of it; else there is no total", () => {
    const debt = derive({
      // The 10-K tags commercial paper and long-term debt alone: there is no current portion. The first 10-Q tags a
      // current portion beside long-term debt, which may or may not include it: no non-current side is made of them.
      CommercialPaper: [k23(undefined, "2023-12-31", 60), q124(undefined, "2024-03-31", 70)],
      LongTermDebt: [k23(undefined, "2023-12-31", 900), q124(undefined, "2024-03-31", 950), q224(undefined, "2024-06-30", 900)],
      LongTermDebtCurrent: [q124(undefined, "2024-03-31", 100)],
      // The second 10-Q tags the non-current line itself, and long-term debt beside it: the line is served.
      LongTermDebtNoncurrent: [q224(undefined, "2024-06-30", 800)],
    }).periods;
    const year = find(debt, "2023-01-01", "2023-12-31").balance!;
    expect(year.debt_noncurrent).toMatchObject({ value: 900, concept: "us-gaap:LongTermDebt", derived: false });
    expect(year.total_debt).toMatchObject({ value: 960, derived: true, concept: "us-gaap:CommercialPaper+us-gaap:LongTermDebt" });
    const q1 = find(debt, "2024-01-01", "2024-03-31").balance!;
    expect(q1.debt_noncurrent).toBeNull();
    expect(q1.debt_current).toMatchObject({ value: 170, derived: true });
    // The current side alone would be short by an unknown part: no total.
    expect(q1.total_debt).toBeNull();
    expect(find(debt, "2024-04-01", "2024-06-30").balance!.debt_noncurrent).toMatchObject({ value: 800, concept: "us-gaap:LongTermDebtNoncurrent" });
  });

  it("the current side alone is no total debt where a maturity table shows debt due after a year: a bank's long-term line under its own tag", () => {
    // Fulton Financial's 10-K for 2020 (0000700564-21-000014, $ thousands): short-term borrowings 630,066 and no
    // long-term line in company facts; its maturity table, after the next twelve months: 178,857 in year two, 214,241,
    // 489,190, 24,675, and 389,300 after year five — 1,296,263, its liabilities less deposits and its other lines.
    const table = (filed: typeof k23, date: string, years: number[]) =>
      Object.fromEntries(["InYearTwo", "InYearThree", "InYearFour", "InYearFive", "AfterYearFive"].map((y, i) => [`LongTermDebtMaturitiesRepaymentsOfPrincipal${y}`, [filed(undefined, date, years[i]!)]]));
    const fulton = derive({
      ShortTermBorrowings: [q3(undefined, "2023-09-30", 600), k23(undefined, "2023-12-31", 630_066), q124(undefined, "2024-03-31", 700), q224(undefined, "2024-06-30", 650)],
      ...table(k23, "2023-12-31", [178_857, 214_241, 489_190, 24_675, 389_300]),
    }).periods;
    const at = (start: string, end: string) => find(fulton, start, end).balance!;
    expect(at("2023-01-01", "2023-12-31").debt_current).toMatchObject({ value: 630_066, concept: "us-gaap:ShortTermBorrowings" });
    expect(at("2023-01-01", "2023-12-31").total_debt).toBeNull();
    // The annual table's years three on are still due after a year at the next quarters' ends; before it, nothing says so.
    expect(at("2024-01-01", "2024-03-31").total_debt).toBeNull();
    expect(at("2024-04-01", "2024-06-30").total_debt).toBeNull();
    expect(at("2023-07-01", "2023-09-30").total_debt).toMatchObject({ value: 600, concept: "us-gaap:ShortTermBorrowings" });
    // Debt due only in the table's second year may be current at the next quarter end: the current side stands alone.
    const soon = derive({ ShortTermBorrowings: [k23(undefined, "2023-12-31", 630)], ...table(k23, "2023-12-31", [500, 0, 0, 0, 0]) }).periods;
    expect(find(soon, "2023-01-01", "2023-12-31").balance!.total_debt).toMatchObject({ value: 630 });
    // A 10-Q's table (its years are fiscal years, the first a part of the current one) speaks only for its own date.
    const quarterly = derive({ ShortTermBorrowings: [q3(undefined, "2023-09-30", 600), k23(undefined, "2023-12-31", 630)], ...table(q3, "2023-09-30", [0, 100, 0, 0, 0]) }).periods;
    expect(find(quarterly, "2023-07-01", "2023-09-30").balance!.total_debt).toBeNull();
    expect(find(quarterly, "2023-01-01", "2023-12-31").balance!.total_debt).toMatchObject({ value: 630 });
  });

  it("unsecured and secured long-term debt, the two traits with no kind beside them, are the non-current side together", () => {
    // Goldman Sachs' 10-K for 2020 (0001193125-21-049380, $ millions) at 2020-12-31: unsecured long-term borrowings
    // 213,481 and secured long-term financings 12,537; its unsecured borrowings in all 266,351
    // (DebtLongtermAndShorttermCombinedAmount); the current portion of its long-term debt, 25,914, tagged
    // UnsecuredDebtCurrent, and other short-term borrowings, 2,048, are parts of its short-term line, not read.
    const gs = find(
      derive({
        UnsecuredLongTermDebt: [k23(undefined, "2023-12-31", 213_481)],
        SecuredLongTermDebt: [k23(undefined, "2023-12-31", 12_537)],
        DebtLongtermAndShorttermCombinedAmount: [k23(undefined, "2023-12-31", 266_351)],
        UnsecuredDebtCurrent: [k23(undefined, "2023-12-31", 25_914)],
        OtherShortTermBorrowings: [k23(undefined, "2023-12-31", 2_048)],
      }).periods,
      "2023-01-01",
      "2023-12-31",
    ).balance!;
    expect(gs.debt_noncurrent).toMatchObject({ value: 226_018, derived: true, concept: "us-gaap:SecuredLongTermDebt+us-gaap:UnsecuredLongTermDebt" });
    expect(gs.debt_current).toBeNull();
    expect(gs.total_debt).toMatchObject({ value: 266_351, concept: "us-gaap:DebtLongtermAndShorttermCombinedAmount" });
  });

  it("debt lines by kind add up where no debt total is tagged; a secured figure is their part unless it is larger; long-term debt beside current lines is no side", () => {
    const debt = derive({
      // The 10-K: current notes and a credit line, secured debt of 80 (their footnote's part: they add up to more), and
      // non-current notes beside long-term debt that may hold the current lines (no side is made of it).
      NotesPayableCurrent: [k23(undefined, "2023-12-31", 100)],
      LinesOfCreditCurrent: [k23(undefined, "2023-12-31", 50)],
      SecuredDebtCurrent: [k23(undefined, "2023-12-31", 80)],
      LongTermNotesPayable: [k23(undefined, "2023-12-31", 300), q124(undefined, "2024-03-31", 100)],
      LongTermDebt: [k23(undefined, "2023-12-31", 450)],
      // The 10-Q: secured debt larger than the notes beside it is a line of its own; loans payable beside a smaller
      // current portion of long-term debt add to it.
      SecuredLongTermDebt: [q124(undefined, "2024-03-31", 500)],
      LoansPayableCurrent: [q124(undefined, "2024-03-31", 40)],
      LongTermDebtCurrent: [q124(undefined, "2024-03-31", 10)],
    }).periods;
    const year = find(debt, "2023-01-01", "2023-12-31").balance!;
    expect(year.debt_current).toMatchObject({ value: 150, derived: true, concept: "us-gaap:NotesPayableCurrent+us-gaap:LinesOfCreditCurrent" });
    expect(year.debt_noncurrent).toMatchObject({ value: 300, concept: "us-gaap:LongTermNotesPayable" });
    expect(year.total_debt).toMatchObject({ value: 450, derived: true });
    const q = find(debt, "2024-01-01", "2024-03-31").balance!;
    expect(q.debt_noncurrent).toMatchObject({ value: 600, components: [{ concept: "us-gaap:LongTermNotesPayable", value: 100 }, { concept: "us-gaap:SecuredLongTermDebt", value: 500 }] });
    expect(q.debt_current).toMatchObject({ value: 50, concept: "us-gaap:LongTermDebtCurrent+us-gaap:LoansPayableCurrent" });
    expect(q.total_debt!.value).toBe(650);
  });

  it("a partnership's equity is its partners' capital, an LLC's its members' equity; liabilities are derived from them alike", () => {
    const partnership = derive({
      // No stockholders' equity: partners' capital, a noncontrolling interest and the partnership's total capital.
      LiabilitiesAndStockholdersEquity: [k23(undefined, "2023-12-31", 1000), q124(undefined, "2024-03-31", 1100)],
      PartnersCapital: [k23(undefined, "2023-12-31", 300), q124(undefined, "2024-03-31", 320)],
      PartnersCapitalAttributableToNoncontrollingInterest: [k23(undefined, "2023-12-31", 50)],
      PartnersCapitalIncludingPortionAttributableToNoncontrollingInterest: [q124(undefined, "2024-03-31", 380)],
    }).periods;
    const year = find(partnership, "2023-01-01", "2023-12-31").balance!;
    expect(year.equity).toMatchObject({ value: 300, concept: "us-gaap:PartnersCapital" });
    expect(year.total_liabilities).toMatchObject({ value: 650, derived: true, concept: "us-gaap:LiabilitiesAndStockholdersEquity−us-gaap:PartnersCapital−us-gaap:PartnersCapitalAttributableToNoncontrollingInterest" });
    expect(find(partnership, "2024-01-01", "2024-03-31").balance!.total_liabilities).toMatchObject({ value: 720, concept: "us-gaap:LiabilitiesAndStockholdersEquity−us-gaap:PartnersCapitalIncludingPortionAttributableToNoncontrollingInterest" });
    const llc = derive({
      LiabilitiesAndStockholdersEquity: [k23(undefined, "2023-12-31", 1000)],
      MembersEquity: [k23(undefined, "2023-12-31", 400)],
      // A corporation's own line wins where a filing tags both (an operating partnership's capital in a note).
      StockholdersEquity: [q124(undefined, "2024-03-31", 410)],
      PartnersCapital: [q124(undefined, "2024-03-31", 90)],
    }).periods;
    expect(find(llc, "2023-01-01", "2023-12-31").balance!.equity).toMatchObject({ value: 400, concept: "us-gaap:MembersEquity" });
    expect(find(llc, "2023-01-01", "2023-12-31").balance!.total_liabilities!.value).toBe(600);
    expect(find(llc, "2024-01-01", "2024-03-31").balance!.equity).toMatchObject({ value: 410, concept: "us-gaap:StockholdersEquity" });
  });

  it("a sum of lines is one concept whichever of its optional lines a filing tags: a later filing that adds one corrects the sum", () => {
    // 2023's 10-Qs and 10-K tag liabilities and equity and the parent's equity only; the 2024 10-K tags the 2023 year
    // end again with its redeemable noncontrolling interest (mezzanine), which the first sums left inside liabilities.
    const ends = [[q1, "2023-03-31", 900], [q2, "2023-06-30", 950], [q3, "2023-09-30", 980], [k23, "2023-12-31", 1000]] as const;
    const liabilities = derive({
      LiabilitiesAndStockholdersEquity: [...ends.map(([f, end, total]) => f(undefined, end, total)), k24(undefined, "2023-12-31", 1000)],
      StockholdersEquity: [...ends.map(([f, end]) => f(undefined, end, 300)), k24(undefined, "2023-12-31", 300)],
      RedeemableNoncontrollingInterestEquityCarryingAmount: [k24(undefined, "2023-12-31", 20)],
    }).periods;
    expect(find(liabilities, "2023-01-01", "2023-12-31").balance!.total_liabilities).toMatchObject({
      value: 680,
      concept: "us-gaap:LiabilitiesAndStockholdersEquity−us-gaap:StockholdersEquity−us-gaap:RedeemableNoncontrollingInterestEquityCarryingAmount",
      source_accession: "0000001234-25-000008",
      restated: true,
      original_value: 700,
      original_accession: "0000001234-24-000004",
    });
    // The quarters no later filing tagged keep their own sums.
    expect(find(liabilities, "2023-07-01", "2023-09-30").balance!.total_liabilities).toMatchObject({ value: 680, restated: false, source_accession: "0000001234-23-000003" });
  });

  it("mezzanine equity leaves derived liabilities whole: both its parts where no line totals them, and under the taxonomy's retired names", () => {
    const liabilities = derive({
      LiabilitiesAndStockholdersEquity: [k23(undefined, "2023-12-31", 1000), q124(undefined, "2024-03-31", 1100)],
      StockholdersEquity: [k23(undefined, "2023-12-31", 300), q124(undefined, "2024-03-31", 320)],
      // The 10-K: a redeemable noncontrolling interest and redeemable preferred stock, no total of the two.
      RedeemableNoncontrollingInterestEquityCarryingAmount: [k23(undefined, "2023-12-31", 20)],
      TemporaryEquityCarryingAmountAttributableToParent: [k23(undefined, "2023-12-31", 50)],
      // The 10-Q: the whole, under the name the taxonomy retired in 2012.
      TemporaryEquityCarryingAmount: [q124(undefined, "2024-03-31", 60)],
    }).periods;
    expect(find(liabilities, "2023-01-01", "2023-12-31").balance!.total_liabilities).toMatchObject({
      value: 630,
      components: [
        { concept: "us-gaap:LiabilitiesAndStockholdersEquity", value: 1000 },
        { concept: "us-gaap:StockholdersEquity", value: -300 },
        { concept: "us-gaap:RedeemableNoncontrollingInterestEquityCarryingAmount", value: -20 },
        { concept: "us-gaap:TemporaryEquityCarryingAmountAttributableToParent", value: -50 },
      ],
    });
    expect(find(liabilities, "2024-01-01", "2024-03-31").balance!.total_liabilities).toMatchObject({
      value: 720,
      concept: "us-gaap:LiabilitiesAndStockholdersEquity−us-gaap:StockholdersEquity−us-gaap:TemporaryEquityCarryingAmount",
    });
  });

  it("shares outstanding come from the filing's cover page, with its date; a cover dated before its period is stale", () => {
    expect(find(periods, "2023-01-01", "2023-12-31").balance!.shares_outstanding).toMatchObject({ value: 5000, as_of: "2024-02-10", concept: "dei:EntityCommonStockSharesOutstanding" });
    expect(find(periods, "2024-01-01", "2024-03-31").balance!.shares_outstanding).toMatchObject({ value: 5100, as_of: "2024-04-20" });
    expect(find(periods, "2023-04-01", "2023-06-30").balance?.shares_outstanding ?? null).toBeNull();
  });

  it("every row is its history read as of today, and the invariants hold", () => {
    expect(checkFinancials(periods).filter((v) => !v.marked)).toEqual([]);
    for (const p of periods) expect(p.balance === null || p.months === 3 || p.months === 12).toBe(true);
    expect(LATEST).toBe("9999-12-31");
  });
});

describe("a balance figure a later filing tags with a neighbouring date", () => {
  // Cash at each quarter end from its own 10-Q; a year later, each 10-Q repeats last year's. The 10-Q of 2024-08-01
  // tags cash at 2023-06-30 with 2023-09-30's figure (330, as the 10-Q of 2023-11-01 gave it): misdated, not a
  // restatement. The 10-Q of 2024-05-01 restates cash at 2023-03-31 to a figure no other date has: a restatement.
  const cash = [
    q1(undefined, "2023-03-31", 100),
    q2(undefined, "2023-06-30", 200),
    q3(undefined, "2023-09-30", 330),
    q124(undefined, "2023-03-31", 111),
    q124(undefined, "2024-03-31", 400),
    q224(undefined, "2023-06-30", 330),
    q224(undefined, "2024-06-30", 500),
    // Equal only to a figure of its own filing (at 2024-09-30), none earlier: a restatement, kept.
    q324(undefined, "2023-09-30", 600),
    q324(undefined, "2024-09-30", 600),
  ];
  const { periods, history } = derive({ CashAndCashEquivalentsAtCarryingValue: cash });

  it("is not served: the date keeps the figure its own filings gave", () => {
    const q2023 = find(periods, "2023-04-01", "2023-06-30");
    expect(q2023.balance!.cash).toMatchObject({ value: 200, restated: false, source_accession: "0000001234-23-000002" });
    expect(history[periods.indexOf(q2023)]!.metrics.cash!.map((e) => e.value)).toEqual([200]);
  });

  it("a restatement to a figure of its own is served, and so is one equal only to its own filing's figure of another date", () => {
    expect(find(periods, "2023-01-01", "2023-03-31").balance!.cash).toMatchObject({ value: 111, restated: true, original_value: 100 });
    expect(find(periods, "2023-07-01", "2023-09-30").balance!.cash).toMatchObject({ value: 600, restated: true, original_value: 330 });
  });
});

describe("an amendment without a balance sheet (Part III, a cover page)", () => {
  // The 10-K for 2023 and, after it, two amendments. A 10-K/A adding Part III: its pay-versus-performance table tags
  // 2023's net income rounded (1,000 for 1,004) and 2022's, and its cover counts shares on a later date. A 10-K/A
  // restating the statements.
  const partIII = filing("0000001234-24-000010", "10-K/A", "2024-04-29", 2023, "FY");
  const restating = filing("0000001234-24-000012", "10-K/A", "2024-06-03", 2023, "FY");
  const usGaap = {
    NetIncomeLoss: [k23("2023-01-01", "2023-12-31", 1004), partIII("2023-01-01", "2023-12-31", 1000), partIII("2022-01-01", "2022-12-31", 900)],
    Assets: [k23(undefined, "2023-12-31", 5000), q124(undefined, "2024-03-31", 5100), q124(undefined, "2023-12-31", 5000)],
    StockholdersEquity: [k23(undefined, "2023-12-31", 2000), restating(undefined, "2023-12-31", 1900)],
  };
  const cover = {
    EntityCommonStockSharesOutstanding: [k23(undefined, "2024-02-10", 5000), partIII(undefined, "2024-04-22", 5300)],
  };
  const restatingAssets = { Assets: [...usGaap.Assets, restating(undefined, "2023-12-31", 4900)] };
  const { periods } = derive({ ...usGaap, ...restatingAssets }, { dei: cover });

  it("restates nothing: the year's net income and shares outstanding stay the 10-K's", () => {
    const year = find(periods, "2023-01-01", "2023-12-31");
    expect(year.income!.net_income).toMatchObject({ value: 1004, restated: false, source_accession: "0000001234-24-000004" });
    expect(year.balance!.shares_outstanding).toMatchObject({ value: 5000, restated: false, as_of: "2024-02-10", source_accession: "0000001234-24-000004" });
    // Its table's earlier year is no fiscal year the statements report.
    expect(periods.some((p) => p.period_start === "2022-01-01")).toBe(false);
  });

  it("an amendment with a balance sheet restates as any filing does", () => {
    const year = find(periods, "2023-01-01", "2023-12-31").balance!;
    expect(year.total_assets).toMatchObject({ value: 4900, restated: true, original_value: 5000, source_accession: "0000001234-24-000012" });
    expect(year.equity).toMatchObject({ value: 1900, restated: true, source_accession: "0000001234-24-000012" });
  });
});

describe("a period's cover count, and a later filing's", () => {
  // The first quarter of 2024: its 10-Q counts 510 shares on 2024-04-20 (a slip of 5,100); a 10-Q/A restating the
  // statements mends the count for that date. The 10-K for 2023 counts 5,000 on 2024-02-10; a restating 10-K/A counts
  // 5,400 on 2024-06-01, a later date.
  const quarterFix = filing("0000001234-24-000020", "10-Q/A", "2024-05-20", 2024, "Q1");
  const yearRestated = filing("0000001234-24-000021", "10-K/A", "2024-06-05", 2023, "FY");
  const { periods } = derive(
    {
      Assets: [k23(undefined, "2023-12-31", 5000), q124(undefined, "2024-03-31", 5100), quarterFix(undefined, "2024-03-31", 5100), yearRestated(undefined, "2023-12-31", 4900)],
      NetIncomeLoss: [q124("2024-01-01", "2024-03-31", 40), quarterFix("2024-01-01", "2024-03-31", 40), k23("2023-01-01", "2023-12-31", 160), yearRestated("2023-01-01", "2023-12-31", 150)],
    },
    { dei: { EntityCommonStockSharesOutstanding: [k23(undefined, "2024-02-10", 5000), q124(undefined, "2024-04-20", 510), quarterFix(undefined, "2024-04-20", 5100), yearRestated(undefined, "2024-06-01", 5400)] } },
  );

  it("a count dated later is no restatement: the year keeps its own report's", () => {
    expect(find(periods, "2023-01-01", "2023-12-31").balance!.shares_outstanding).toMatchObject({ value: 5000, as_of: "2024-02-10", restated: false, source_accession: "0000001234-24-000004" });
  });

  it("a count of the same date corrects it", () => {
    expect(find(periods, "2024-01-01", "2024-03-31").balance!.shares_outstanding).toMatchObject({ value: 5100, as_of: "2024-04-20", restated: true, original_value: 510, source_accession: "0000001234-24-000020" });
  });
});

describe("capital expenditure summed from the kinds of PP&E a filing tags", () => {
  // An oil and gas producer's cash flow statement has no capex total: additions to oil and gas properties, and beside them
  // additions to other PP&E (EOG's 10-K for 2020, 0000821189-21-000017: 3,243,474 and 221,226 thousand). Here 2023 is
  // filed so, year to date; 2024's 10-Qs add a PP&E total; 2024's 10-K tags other PP&E alone.
  const oilAndGas = [q1("2023-01-01", "2023-03-31", 150), q2("2023-01-01", "2023-06-30", 310), q3("2023-01-01", "2023-09-30", 480), k23("2023-01-01", "2023-12-31", 640)];
  const other = [
    q1("2023-01-01", "2023-03-31", 12),
    q2("2023-01-01", "2023-06-30", 20),
    q3("2023-01-01", "2023-09-30", 31),
    k23("2023-01-01", "2023-12-31", 44),
    q124("2024-01-01", "2024-03-31", 9),
    q224("2024-01-01", "2024-06-30", 18),
    k24("2024-01-01", "2024-12-31", 40),
  ];
  const total = [q124("2024-01-01", "2024-03-31", 170), q224("2024-01-01", "2024-06-30", 350)];
  const ocf = [q1("2023-01-01", "2023-03-31", 300), q2("2023-01-01", "2023-06-30", 600), q3("2023-01-01", "2023-09-30", 900), k23("2023-01-01", "2023-12-31", 1200), q124("2024-01-01", "2024-03-31", 310), k24("2024-01-01", "2024-12-31", 1250)];
  const { periods, history } = derive({
    NetCashProvidedByUsedInOperatingActivities: ocf,
    PaymentsToAcquireOilAndGasPropertyAndEquipment: oilAndGas,
    PaymentsToAcquireOtherPropertyPlantAndEquipment: other,
    PaymentsToAcquirePropertyPlantAndEquipment: total,
    PaymentsToAcquireOilAndGasProperty: [k23("2023-01-01", "2023-12-31", 75)], // acquisitions: a part of the oil and gas additions, never added again
  });
  const capex = (start: string, end: string) => find(periods, start, end).cash_flow!.capital_expenditure;

  it("adds the class the filing tags and its other PP&E, listing both, with its quarters derived and no reason for a null", () => {
    const year = find(periods, "2023-01-01", "2023-12-31");
    expect(year.cash_flow!.capital_expenditure).toMatchObject({
      value: 684,
      concept: "us-gaap:PaymentsToAcquireOilAndGasPropertyAndEquipment+us-gaap:PaymentsToAcquireOtherPropertyPlantAndEquipment",
      components: [
        { concept: "us-gaap:PaymentsToAcquireOilAndGasPropertyAndEquipment", value: 640 },
        { concept: "us-gaap:PaymentsToAcquireOtherPropertyPlantAndEquipment", value: 44 },
      ],
      derived: true,
      source_accession: "0000001234-24-000004",
    });
    expect(year.cash_flow!.free_cash_flow).toMatchObject({ value: 1200 - 684 });
    expect(capex("2023-01-01", "2023-03-31")).toMatchObject({ value: 162 });
    expect(capex("2023-04-01", "2023-06-30")).toMatchObject({ value: 330 - 162, derived: true });
    expect(capex("2023-10-01", "2023-12-31")).toMatchObject({ value: 684 - 511, derived: true });
    expect(year.reconciled).toBe(true);
    expect(year.unavailable).toEqual([]);
    // Other PP&E beside a class is no sign of a part: the document keeps no reason for any date.
    expect(history[periods.indexOf(year)]!.unavailable).toBeUndefined();
  });

  it("reads a PP&E figure smaller than the filing's oil and gas additions as a line beside them, and a larger one as their total", () => {
    // 2023's 10-K tags its other property under the PP&E concept: 25 beside 640 of oil and gas, which no total is below.
    // 2024's 10-K tags PP&E purchases of 700 beside 640 of oil and gas: the total, its part detailed in a note.
    const { periods: rows } = derive({
      PaymentsToAcquireOilAndGasPropertyAndEquipment: [k23("2023-01-01", "2023-12-31", 640), k24("2024-01-01", "2024-12-31", 640)],
      PaymentsToAcquirePropertyPlantAndEquipment: [k23("2023-01-01", "2023-12-31", 25), k24("2024-01-01", "2024-12-31", 700)],
    });
    expect(find(rows, "2023-01-01", "2023-12-31").cash_flow!.capital_expenditure).toMatchObject({
      value: 665,
      concept: "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment+us-gaap:PaymentsToAcquireOilAndGasPropertyAndEquipment",
      derived: true,
    });
    expect(find(rows, "2024-01-01", "2024-12-31").cash_flow!.capital_expenditure).toMatchObject({ value: 700, concept: "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", derived: false });
  });

  it("takes a filing's PP&E total over its lines, and leaves other PP&E alone a null with its reason", () => {
    expect(capex("2024-01-01", "2024-03-31")).toMatchObject({ value: 170, concept: "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment" });
    const year = find(periods, "2024-01-01", "2024-12-31");
    expect(year.cash_flow!.capital_expenditure).toBeNull();
    expect(year.unavailable.map((u) => [u.metric, u.reason])).toEqual([
      ["capital_expenditure", "partial_capital_expenditure"],
      ["free_cash_flow", "partial_capital_expenditure"],
    ]);
  });
});

describe("a bank's cash: its cash flow statement's end balance", () => {
  // A bank's balance sheet shows cash and due from banks and interest-bearing deposits with no total; its cash flow
  // statement ends with cash and cash equivalents, restricted cash included by name (Fulton Financial's 10-K for 2020,
  // 0000700564-21-000014: 1,847,832 thousand beside 120,462 of cash and due from banks).
  const { periods } = derive({
    CashAndDueFromBanks: [k23(undefined, "2023-12-31", 120), q124(undefined, "2024-03-31", 100), k24(undefined, "2024-12-31", 130)],
    CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents: [
      k23(undefined, "2023-12-31", 1848),
      q124(undefined, "2024-03-31", 1662),
      q224(undefined, "2024-06-30", 1700), // a filing with no cash and due from banks: no bank's balance sheet to read it by
      k24(undefined, "2024-12-31", 1520),
    ],
    CashAndCashEquivalentsAtCarryingValue: [k24(undefined, "2024-12-31", 1500)],
  });
  const cash = (start: string, end: string) => find(periods, start, end).balance!.cash;

  it("is the end balance where the bank's filing gives no cash and cash equivalents line, and the line where it does", () => {
    const concept = "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents";
    expect(cash("2023-01-01", "2023-12-31")).toMatchObject({ value: 1848, concept, derived: false, source_accession: "0000001234-24-000004" });
    expect(cash("2024-01-01", "2024-03-31")).toMatchObject({ value: 1662, concept });
    expect(cash("2024-01-01", "2024-12-31")).toMatchObject({ value: 1500, concept: "us-gaap:CashAndCashEquivalentsAtCarryingValue" });
  });

  it("is never read without the bank's balance sheet: restricted cash is another company's own line", () => {
    expect(find(periods, "2024-04-01", "2024-06-30").balance?.cash ?? null).toBeNull();
  });
});

describe("TTM EPS of a company whose EPS divides less than its net income (preferred dividends)", () => {
  // 103 shares throughout (a count no rounding explains); net income 10 × 103 a quarter in 2023, 12 × 103 in 2024;
  // preferred dividends of 103 a quarter, so the income basic EPS divides is 9 × 103 and 11 × 103, and EPS 9 and 11 a
  // quarter. Filed as 10-Qs and 10-Ks do: quarters, years to date and the year. TTM to 2024-09-30 is reckoned over the
  // periods its shares are: (2023 − its nine months + 2024's nine months) ÷ 103 = 36 − 27 + 33 = 42 (net income would
  // give 40 − 30 + 36 = 46).
  const SHARES = 103;
  const spans = (year: number) => [
    [`${year}-01-01`, `${year}-03-31`, 1],
    [`${year}-04-01`, `${year}-06-30`, 1],
    [`${year}-07-01`, `${year}-09-30`, 1],
    [`${year}-01-01`, `${year}-06-30`, 2],
    [`${year}-01-01`, `${year}-09-30`, 3],
  ] as const;
  const byFiling = [q1, q2, q3, q2, q3];
  /** A flow of `perQuarter` × 103 a quarter in each year's periods, 2024's nine months `nineMonths2024` × 103 (null: not tagged). */
  const flow = (perQuarter: [number, number], nineMonths2024: number | null = 3 * perQuarter[1]): Fact[] => {
    const out: Fact[] = [];
    for (const [year, quarter, filings, k] of [[2023, perQuarter[0], byFiling, k23], [2024, perQuarter[1], [q124, q224, q324, q224, q324], null]] as const) {
      spans(year).forEach(([s, e, n], i) => {
        const value = year === 2024 && n === 3 && i === 4 ? nineMonths2024 : quarter * n;
        if (value !== null) out.push(filings[i]!(s, e, value * SHARES));
      });
      if (k) out.push(k(`${year}-01-01`, `${year}-12-31`, 4 * quarter * SHARES));
    }
    return out;
  };
  const perShare = (facts: Fact[]) => facts.map((f) => ({ ...f, val: f.val / SHARES }));
  const shares = (facts: Fact[]) => facts.map((f) => ({ ...f, val: SHARES }));
  /** A corporation's concepts, and a partnership's: per unit, its limited partners' share, its weighted units. */
  const CORPORATION = ["NetIncomeLossAvailableToCommonStockholdersBasic", "EarningsPerShareBasic", "EarningsPerShareDiluted", "WeightedAverageNumberOfSharesOutstandingBasic", "WeightedAverageNumberOfDilutedSharesOutstanding"] as const;
  const PARTNERSHIP = [
    "NetIncomeLossAllocatedToLimitedPartners",
    "NetIncomeLossPerOutstandingLimitedPartnershipUnitBasicNetOfTax",
    "NetIncomeLossNetOfTaxPerOutstandingLimitedPartnershipUnitDiluted",
    "WeightedAverageLimitedPartnershipUnitsOutstanding",
    "WeightedAverageLimitedPartnershipUnitsOutstandingDiluted",
  ] as const;
  function derived(numerator: Fact[], eps: Fact[], [numeratorConcept, basic, diluted, basicCount, dilutedCount]: readonly string[] = CORPORATION) {
    const income = flow([10, 12]);
    const facts = companyFacts({
      "us-gaap": {
        Revenues: { USD: revenue() },
        NetIncomeLoss: { USD: income },
        [numeratorConcept!]: { USD: numerator },
        [basic!]: { "USD/shares": perShare(eps) },
        [diluted!]: { "USD/shares": perShare(eps) },
        [basicCount!]: { shares: shares(income) },
        [dilutedCount!]: { shares: shares(income) },
      },
    });
    const { periods } = deriveFinancials(facts, deriveEarningsBase(facts));
    expect(checkFinancials(periods).filter((v) => !v.marked)).toEqual([]);
    return find(periods, "2023-10-01", "2024-09-30", true);
  }

  it("divides the numerator it tags, over the periods its shares are; diluted EPS the basic numerator its diluted EPS shows it divides", () => {
    const ttm = derived(flow([9, 11]), flow([9, 11]));
    expect(ttm.income!.net_income!.value).toBe(46 * SHARES);
    expect(ttm.income!.basic_shares!.value).toBe(SHARES);
    expect(ttm.income!.eps_basic).toMatchObject({ value: 42, concept: "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic÷us-gaap:WeightedAverageNumberOfSharesOutstandingBasic", derived: true });
    expect(ttm.income!.eps_diluted).toMatchObject({ value: 42, concept: "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic÷us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding" });
  });

  it("a period that tags none: its net income where its EPS is its net income ÷ its shares, else no TTM EPS and the reason", () => {
    // The nine months of 2024 tag no numerator; the preferred stock redeemed, their EPS is net income ÷ shares (36):
    // 36 − 27 + 36 = 45.
    const redeemed = derived(flow([9, 11], null), flow([9, 11], 36));
    expect(redeemed.income!.eps_basic).toMatchObject({ value: 45, concept: "(us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic+us-gaap:NetIncomeLoss)÷us-gaap:WeightedAverageNumberOfSharesOutstandingBasic" });
    // Still paying them (EPS 33): their net income is not the income their EPS divides.
    const paying = derived(flow([9, 11], null), flow([9, 11]));
    expect(paying.income!.basic_shares!.value).toBe(SHARES);
    expect([paying.income!.eps_basic, paying.income!.eps_diluted]).toEqual([null, null]);
    expect(paying.ttm!.unavailable.filter((u) => u.reason === "no_eps_numerator").map((u) => u.metric)).toEqual(["eps_basic", "eps_diluted"]);
  });

  it("a partnership: its limited partners' share of net income (its general partner takes the rest) ÷ its weighted units", () => {
    const ttm = derived(flow([9, 11]), flow([9, 11]), PARTNERSHIP);
    expect(ttm.income!.basic_shares).toMatchObject({ value: SHARES, concept: "us-gaap:WeightedAverageLimitedPartnershipUnitsOutstanding" });
    expect(ttm.income!.eps_basic).toMatchObject({ value: 42, concept: "us-gaap:NetIncomeLossAllocatedToLimitedPartners÷us-gaap:WeightedAverageLimitedPartnershipUnitsOutstanding" });
    expect(ttm.income!.eps_diluted).toMatchObject({ value: 42, concept: "us-gaap:NetIncomeLossAllocatedToLimitedPartners÷us-gaap:WeightedAverageLimitedPartnershipUnitsOutstandingDiluted" });
  });

  it("a numerator its period's EPS does not confirm is not divided: a corporation's income allocated to the limited partners of its operating partnership", () => {
    // A REIT's filings tag the income of its operating partnership's outside unitholders under the partnership concept;
    // its EPS (net income ÷ shares) shows that is no numerator of its own: TTM net income ÷ shares, 46.
    const ttm = derived(flow([1, 1]), flow([10, 12]), ["NetIncomeLossAllocatedToLimitedPartners", ...CORPORATION.slice(1)]);
    expect(ttm.income!.eps_basic).toMatchObject({ value: 46, concept: "us-gaap:NetIncomeLoss÷us-gaap:WeightedAverageNumberOfSharesOutstandingBasic" });
  });

  it("a company that tags no numerator: TTM net income, as before", () => {
    const ttm = derived([], flow([10, 12]));
    expect(ttm.income!.eps_basic).toMatchObject({ value: 46, concept: "us-gaap:NetIncomeLoss÷us-gaap:WeightedAverageNumberOfSharesOutstandingBasic" });
  });
});
