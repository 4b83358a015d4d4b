// Changes of reporting entity: found where a filing's balance sheet shares no line with the earlier filings' for a date
// (a reverse merger), never for a restatement or a unit-scale slip; and the rows they split, marked as of any date.
import { describe, expect, it } from "vitest";
import { oneEntityException, type EntityChange } from "../../schemas/entity-change.ts";
import { LATEST, periodAsOf } from "../../schemas/earnings-history.ts";
import { expandHistory, financialAsOf, financialsContext, storeHistory } from "../../schemas/financials-history.ts";
import type { CompanyFacts, EdgarFact } from "../parse/companyfacts.ts";
import { describeEdgar, listEdgar, readEdgar } from "../../test/_edgar.ts";
import { readCompanyFacts } from "./company-facts.ts";
import { deriveEarningsBase } from "./earnings.ts";
import { entityChanges } from "./entity-change.ts";
import { deriveFinancials } from "./statements.ts";

const FOLDER = "api/xbrl/companyfacts";

/** A company whose filings give total assets, cash and equity at 2021-12-31: one filing per row, filed in order. */
function company(filings: [accn: string, filed: string, assets: number, cash: number, equity: number][]): CompanyFacts {
  const at = (i: 2 | 3 | 4): EdgarFact[] => filings.map((f) => ({ end: "2021-12-31", val: f[i], accn: f[0], form: "10-Q", filed: f[1] }));
  return {
    cik: 1,
    entityName: "Example",
    concepts: { "us-gaap:Assets": { USD: at(2) }, "us-gaap:CashAndCashEquivalentsAtCarryingValue": { USD: at(3) }, "us-gaap:StockholdersEquity": { USD: at(4) } },
  };
}

describe("entityChanges", () => {
  it("finds a filing whose total assets, cash and equity each differ by more than a quarter from the latest earlier filing's", () => {
    const changes = entityChanges(
      company([
        ["0000000001-22-000001", "2022-03-01", 20_000_000, 3_500_000, 17_000_000],
        ["0000000001-22-000002", "2022-05-20", 2_800_000, 19_000, -8_600_000],
        ["0000000001-22-000003", "2022-08-20", 2_800_000, 19_000, -8_600_000], // the new entity's again: no change
      ]),
    );
    expect(changes).toEqual([
      { accession: "0000000001-22-000002", filed_at: "2022-05-20", date: "2021-12-31", total_assets: [20_000_000, 2_800_000], cash: [3_500_000, 19_000], equity: [17_000_000, -8_600_000] },
    ]);
  });

  it("a SPAC's merger: its amendment restating equity for warrants is no change, the target's comparative balance sheet is", () => {
    // The shape of a 2021 merger: the SPAC's 10-K (trust 229.7 M, cash 0.8 M, the classic equity of 5,000,010), its
    // 10-K/A after the SEC's statement on warrants (Class A shares moved to temporary equity: equity −15.2 M, total
    // assets and cash unchanged), then the combined company's first 10-Q giving the target's year end as comparative.
    const changes = entityChanges(
      company([
        ["0000000002-21-000010", "2021-03-25", 230_500_000, 800_000, 5_000_010],
        ["0000000002-21-000020", "2021-05-20", 230_500_000, 800_000, -15_200_000],
        ["0000000002-21-000030", "2021-11-12", 120_000_000, 40_000_000, 60_000_000],
      ]),
    );
    expect(changes.map((c) => [c.accession, c.total_assets, c.cash, c.equity])).toEqual([["0000000002-21-000030", [230_500_000, 120_000_000], [800_000, 40_000_000], [-15_200_000, 60_000_000]]]);
  });

  it("finds none where a line stays within a quarter (a restatement corrects lines, it does not replace all of them)", () => {
    expect(entityChanges(company([["0000000001-22-000001", "2022-03-01", 20_000_000, 3_500_000, 17_000_000], ["0000000001-22-000002", "2022-05-20", 2_800_000, 2_700_000, -8_600_000]]))).toEqual([]);
    expect(entityChanges(company([["0000000001-22-000001", "2022-03-01", 20_000_000, 3_500_000, 17_000_000], ["0000000001-22-000002", "2022-05-20", 19_000_000, 3_400_000, 16_000_000]]))).toEqual([]);
  });

  it("finds none where every line differs by one unit-scale step (a filing that slipped its scale)", () => {
    expect(entityChanges(company([["0000000001-22-000001", "2022-03-01", 20_000_000, 3_500_000, 17_000_000], ["0000000001-22-000002", "2022-05-20", 20_000, 3_500, 17_000]]))).toEqual([]);
  });

  it("compares only figures in one unit (a company that changed its reporting currency)", () => {
    const facts = company([["0000000001-22-000001", "2022-03-01", 20_000_000, 3_500_000, 17_000_000]]);
    const inTwd = (value: number): EdgarFact[] => [{ end: "2021-12-31", val: value, accn: "0000000001-22-000002", form: "20-F", filed: "2022-05-20" }];
    facts.concepts["us-gaap:Assets"]!.TWD = inTwd(600_000_000);
    facts.concepts["us-gaap:CashAndCashEquivalentsAtCarryingValue"]!.TWD = inTwd(105_000_000);
    facts.concepts["us-gaap:StockholdersEquity"]!.TWD = inTwd(510_000_000);
    expect(entityChanges(facts)).toEqual([]);
  });

  it("compares only with filings made before (a same-day filing is no earlier figure)", () => {
    expect(entityChanges(company([["0000000001-22-000001", "2022-03-01", 20_000_000, 3_500_000, 17_000_000], ["0000000001-22-000002", "2022-03-01", 2_800_000, 19_000, -8_600_000]]))).toEqual([]);
  });
});

describe("oneEntityException", () => {
  const change: EntityChange = { accession: "0000000001-22-000002", filed_at: "2022-05-20", date: "2021-12-31", total_assets: [20, 2], cash: [3, 1], equity: [17, -8] };
  const before = { source_accession: "0000000001-21-000005", filed_at: "2021-08-16" };
  const after = { source_accession: "0000000001-22-000007", filed_at: "2022-08-22" };

  it("marks values from both sides, naming each side's metrics and filings", () => {
    const mark = oneEntityException({ revenue: before, net_income: after, gross_profit: null }, [change], "9999-12-31");
    expect(mark?.rule).toBe("one_entity");
    expect(mark?.message).toMatch(/0000000001-22-000002 \(filed 2022-05-20\) gave the balance sheet at 2021-12-31 with total assets 20 → 2, cash 3 → 1 and equity 17 → -8/);
    expect(mark?.message).toMatch(/; revenue \(0000000001-21-000005\) describe the entity before it, net_income \(0000000001-22-000007\) the entity after$/);
  });

  it("leaves one side alone, and a change not yet filed on the date", () => {
    expect(oneEntityException({ revenue: before, net_income: before }, [change], "9999-12-31")).toBeNull();
    expect(oneEntityException({ revenue: after }, [change], "9999-12-31")).toBeNull();
    expect(oneEntityException({ revenue: before, net_income: after }, [change], "2022-05-19")).toBeNull();
  });
});

describeEdgar("changes of reporting entity in the real filings", () => {
  const changesOf = (file: string) => entityChanges(readCompanyFacts(readEdgar(`${FOLDER}/${file}`)));

  it("SUNation: Pineapple Energy's first 10-Q after its reverse merger into Communications Systems, and nothing else", () => {
    // Company facts of the 10-K filed 2022-03-14 (0000022701-22-000004, Communications Systems) and the 10-Q filed
    // 2022-05-23 (0000022701-22-000009, Pineapple's comparative balance sheet) at 2021-12-31.
    expect(changesOf("CIK0000022701.json")).toEqual([
      { accession: "0000022701-22-000009", filed_at: "2022-05-23", date: "2021-12-31", total_assets: [20_074_008, 2_799_236], cash: [3_491_160, 18_966], equity: [17_017_511, -8_636_894] },
    ]);
  });

  it("no other company: restated balance sheets are not changes of entity (Under Armour's 10-K of 2024 at 2023-03-31)", () => {
    // Under Armour's 10-K filed 2024-05-29 (0001336917-24-000073) restated 2023-03-31: total assets 4,857,083 → 4,827,553,
    // cash 711,910 → 710,929, equity 1,998,403 → 1,966,147 thousand (every line moved, none by more than 2 %).
    for (const file of listEdgar(FOLDER).filter((f) => f !== "CIK0000022701.json")) expect(changesOf(file), file).toEqual([]);
  });

  it("SUNation's second quarter of 2021 is marked from when Pineapple's 10-Q restated its net income, not before", () => {
    const { series } = deriveEarningsBase(readCompanyFacts(readEdgar(`${FOLDER}/CIK0000022701.json`)));
    const i = series.periods.findIndex((p) => p.period_start === "2021-04-01" && p.period_end === "2021-06-30");
    const marks = (date: string) => periodAsOf(series.periods[i]!, series.history[i]!, date, false)!.exceptions.filter((e) => e.rule === "one_entity");
    // Before the 10-Q filed 2022-08-22 (0000022701-22-000012) every value was Communications Systems' own.
    expect(marks("2022-08-21")).toEqual([]);
    expect(marks("2022-08-22")).toHaveLength(1);
    expect(marks("2022-08-22")[0]!.message).toMatch(/; revenue, gross_profit \(0000022701-21-000005\) describe the entity before it, net_income, .* \(0000022701-22-000012\) the entity after$/);
  });

  it("SUNation's statements at 2021-09-30: the balance sheet mixes Pineapple's assets and equity with the former entity's cash, also after storage", () => {
    const facts = readCompanyFacts(readEdgar(`${FOLDER}/CIK0000022701.json`));
    const { periods, history } = deriveFinancials(facts, deriveEarningsBase(facts));
    const i = periods.findIndex((p) => p.period_end === "2021-09-30" && p.months === 3 && !p.ttm);
    // The 10-Q filed 2022-11-14 (0000022701-22-000015) gave total assets 3,205,000 and equity −7,228,283 at 2021-09-30;
    // cash 35,284,786 and the liabilities are still Communications Systems' 10-Q of 2021-11-15 (0000022701-21-000007).
    expect(periods[i]!.balance!.cash!.value).toBe(35_284_786);
    expect(periods[i]!.balance!.total_assets!.value).toBe(3_205_000);
    const [mark] = periods[i]!.exceptions.filter((e) => e.rule === "one_entity");
    expect(mark?.message).toMatch(/; total_liabilities, cash, shares_outstanding, capital_expenditure, dividends_paid, share_repurchases \(0000022701-21-000007\) describe the entity before it, .*total_assets, equity, .*\(0000022701-22-000015\) the entity after$/);
    // The stored history keeps the changes once; read back, as of a date, the mark is made from that date's values.
    const stored = expandHistory(storeHistory(history));
    const context = financialsContext(periods, stored);
    expect(financialAsOf(periods[i]!, stored[i]!, LATEST, false, context)!.exceptions).toContainEqual(mark);
    expect(financialAsOf(periods[i]!, stored[i]!, "2022-11-13", false, context)!.exceptions.filter((e) => e.rule === "one_entity")).toEqual([]);
    expect(financialAsOf(periods[i]!, stored[i]!, "2022-11-14", false, context)!.exceptions.filter((e) => e.rule === "one_entity")).toHaveLength(1);
  });

  it("SUNation's TTM to 2021-09-30 sums no flow whose quarters two entities filed, from the day the change was filed", () => {
    const facts = readCompanyFacts(readEdgar(`${FOLDER}/CIK0000022701.json`));
    const { periods, history } = deriveFinancials(facts, deriveEarningsBase(facts));
    const i = periods.findIndex((p) => p.period_end === "2021-09-30" && p.ttm);
    const context = financialsContext(periods, history);
    const gaps = (date: string) => financialAsOf(periods[i]!, history[i]!, date, false, context)!.ttm!.unavailable.filter((u) => u.reason === "entity_change").map((u) => u.metric);
    // Q4 2020's net income is Communications Systems' (10-K 0000022701-22-000004), Q1–Q3 2021's Pineapple's (the 10-Qs
    // of 2022): no sum. Dividends and repurchases were never restated: all four quarters are the former entity's.
    expect(gaps(LATEST)).toEqual(expect.arrayContaining(["revenue", "net_income", "operating_cash_flow", "diluted_shares", "eps_diluted", "free_cash_flow"]));
    expect(periods[i]!.income!.net_income).toBeNull();
    expect(periods[i]!.cash_flow!.dividends_paid?.value).toBeGreaterThan(0);
    expect(gaps(LATEST)).not.toContain("dividends_paid");
    // Before Pineapple's first 10-Q (2022-05-23) no change was known: the four quarters were Communications Systems'.
    expect(gaps("2022-05-22")).toEqual([]);
    // From it, Q1 2021's net loss was Pineapple's (its comparative), the other three quarters' still the former entity's.
    expect(gaps("2022-05-23")).toContain("net_income");
  });
});

