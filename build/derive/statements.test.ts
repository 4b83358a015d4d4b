// The statements on every company facts file of the fixtures (each the real EDGAR file, cut to the concepts read), and
// figures hand-checked against the filings named beside them.
import { expect, it } from "vitest";
import { LATEST } from "../../schemas/earnings-history.ts";
import { SHARE_COUNTS } from "../../schemas/earnings.ts";
import { expandHistory, financialAsOf, financialsContext, storeHistory, StoredFinancialsHistory } from "../../schemas/financials-history.ts";
import type { FinancialPeriodHistory } from "../../schemas/financials-row-history.ts";
import { FinancialPeriod, type StatementMetric } from "../../schemas/financials.ts";
import { describeEdgar, listEdgar, readEdgar } from "../../test/_edgar.ts";
import { readCompanyFacts } from "./company-facts.ts";
import { deriveEarningsBase } from "./earnings.ts";
import { checkFinancials } from "./financial-invariants.ts";
import { dayNumber } from "./periods.ts";
import { compare } from "./reconcile.ts";
import { BALANCE_SERIES, TOTAL_BORROWINGS } from "./statement-concepts.ts";
import { deriveFinancials } from "./statements.ts";

const FOLDER = "api/xbrl/companyfacts";
const FLOWS = ["operating_cash_flow", "capital_expenditure", "dividends_paid", "share_repurchases"] as const;
const OUTFLOWS = ["capital_expenditure", "dividends_paid", "share_repurchases"] as const;
type RawFact = { start?: string; end: string; val: number; accn: string; form: string };
type RawFile = { facts: Record<string, Record<string, { units: Record<string, RawFact[]> }>> };

/**
 * Every value a TTM row's EPS numerator can have from the filings: each filed value of `concepts` for the last fiscal
 * year, its year to date at the row's quarter and this year's, combined as year − then + now.
 */
function filedNumerators(raw: RawFile, periods: readonly FinancialPeriod[], row: FinancialPeriod, concepts: readonly string[]): number[] {
  const quarter = Number(row.fiscal_quarter.slice(1));
  const span = (fiscalYear: number, fiscalQuarter: string, months: number) => periods.find((x) => !x.ttm && x.fiscal_year === fiscalYear && x.fiscal_quarter === fiscalQuarter && x.months === months)!;
  const values = [span(row.fiscal_year - 1, "FY", 12), span(row.fiscal_year - 1, row.fiscal_quarter, quarter * 3), span(row.fiscal_year, row.fiscal_quarter, quarter * 3)].map((x) =>
    concepts.flatMap((concept) => {
      const [taxonomy, name] = concept.split(":") as [string, string];
      return Object.values(raw.facts[taxonomy]?.[name]?.units ?? {}).flatMap((facts) => facts.filter((f) => f.start === x.period_start && f.end === x.period_end).map((f) => f.val));
    }),
  );
  return values[0]!.flatMap((year) => values[1]!.flatMap((before) => values[2]!.map((now) => year - before + now)));
}

function load(file: string) {
  const text = readEdgar(`${FOLDER}/${file}`);
  const facts = readCompanyFacts(text);
  const base = deriveEarningsBase(facts);
  const { periods, history } = deriveFinancials(facts, base);
  return { raw: JSON.parse(text) as RawFile, earnings: base.series.periods, periods, history };
}

function rawFacts(raw: RawFile, concept: string): RawFact[] {
  const [taxonomy, name] = concept.split(":") as [string, string];
  return Object.values(raw.facts[taxonomy]?.[name]?.units ?? {}).flat();
}

const near = (a: string, b: string) => Math.abs(dayNumber(a) - dayNumber(b)) <= 7;
const metricsOf = (p: FinancialPeriod) => [p.income, p.balance, p.cash_flow].flatMap((g) => Object.values(g ?? {}).filter((m): m is StatementMetric => m !== null));

describeEdgar("deriveFinancials on every company facts file of the fixtures", () => {
  const files = listEdgar(FOLDER);

  it.each(files)("%s: valid rows, newest first, traceable to periodic filings, each its history read as of today", (file) => {
    const { raw, periods, history } = load(file);
    expect(periods.length).toBeGreaterThan(0);
    expect(history).toHaveLength(periods.length);
    const accessions = new Set(Object.values(raw.facts).flatMap((t) => Object.values(t).flatMap((c) => Object.values(c.units).flat().map((f) => f.accn))));
    periods.forEach((p, i) => {
      FinancialPeriod.parse(p);
      expect(financialAsOf(p, history[i]!, LATEST, false)).toEqual(p);
      const next = periods[i + 1];
      if (next) expect(p.period_end >= next.period_end).toBe(true);
      for (const m of metricsOf(p)) {
        expect(accessions.has(m.source_accession)).toBe(true);
        expect(m.form).toMatch(/^(10-K|10-Q|20-F|40-F|10-KT|10-QT)(\/A)?$/);
      }
    });
  });

  it.each(files)("%s: the stored history (compact) reads back to the very same history; a damaged one is refused", (file) => {
    const { history } = load(file);
    const text = JSON.stringify(storeHistory(history));
    const stored = JSON.parse(text);
    expect(StoredFinancialsHistory.safeParse(stored).success).toBe(true);
    expect(expandHistory(stored)).toEqual(history);
    // Entries rows share (a fiscal year's balance sheet is its fourth quarter's) are stored once.
    if (history.some((h) => h.metrics.total_assets)) expect(stored.shared.length).toBeGreaterThan(0);
    const run = stored.rows.flatMap((r: { metrics: Record<string, unknown> }) => Object.values(r.metrics)).find(Array.isArray) as number[];
    run[1] = stored.filings.length; // a filing index past the table
    expect(StoredFinancialsHistory.safeParse(stored).success).toBe(false);
    const again = JSON.parse(text);
    if (again.shared) {
      again.shared[0].run[2] = again.strings.length; // a concept index past the table, in a shared run
      expect(StoredFinancialsHistory.safeParse(again).success).toBe(false);
      const third = JSON.parse(text);
      const row = third.rows.find((r: { metrics: Record<string, unknown> }) => Object.values(r.metrics).some((v) => typeof v === "number"));
      const name = Object.keys(row.metrics).find((k) => typeof row.metrics[k] === "number")!;
      row.metrics[name] = third.shared.length; // no such shared run
      expect(StoredFinancialsHistory.safeParse(third).success).toBe(false);
    }
    // The reasons of nulls are stored once and named by index (Hertz, Under Armour, SunEdison…): one past the table is refused.
    const fourth = JSON.parse(text);
    const spans = fourth.rows.find((r: { unavailable?: unknown[] }) => r.unavailable)?.unavailable;
    if (spans) {
      expect(fourth.reasons.length).toBeGreaterThan(0);
      spans[0].reason = fourth.reasons.length;
      expect(StoredFinancialsHistory.safeParse(fourth).success).toBe(false);
    }
  });

  it.each(files)("%s: the income statement is the earnings', outflows are positive, FCF and total debt add up in every row", (file) => {
    const { raw, earnings, periods } = load(file);
    const bySpan = new Map(earnings.map((e) => [`${e.period_start}/${e.period_end}`, e]));
    for (const p of periods) {
      const e = p.ttm ? undefined : bySpan.get(`${p.period_start}/${p.period_end}`);
      if (e) expect(p.income).toEqual(e.metrics);
      // Outflows are positive; a negative one (a quarter derived from years to date that shrink) is marked.
      for (const name of OUTFLOWS) {
        if ((p.cash_flow?.[name]?.value ?? 0) < 0) expect(p.exceptions.map((e) => `${e.rule} ${e.metric}`)).toContain(`sign ${name}`);
      }
      const c = p.cash_flow;
      if (c?.free_cash_flow) expect(c.free_cash_flow.value).toBeCloseTo(c.operating_cash_flow!.value - c.capital_expenditure!.value, 3);
      const b = p.balance;
      // Total debt is its two sides, or where a side is missing the filing's own total of debt, else the side there is.
      const ownTotal = b?.total_debt && BALANCE_SERIES[TOTAL_BORROWINGS]!.concepts.includes(b.total_debt.concept);
      if (b?.total_debt && ownTotal) expect(b.debt_current === null || b.debt_noncurrent === null).toBe(true);
      else if (b?.total_debt) expect(b.total_debt.value).toBeCloseTo((b.debt_current?.value ?? 0) + (b.debt_noncurrent?.value ?? 0), 3);
      if (!p.ttm && p.months !== 3 && p.months !== 12) expect(p.balance).toBeNull();
      if (p.balance?.shares_outstanding) expect(p.balance.shares_outstanding.as_of! >= p.period_end).toBe(true);
      // Weighted shares are a count: never zero or below (a filer's 0, a TTM of counts of two bases). A TTM's EPS is
      // its net income over them, to the cent; or, where the company's EPS divides its own numerator, that numerator
      // as filed for the periods the shares are reckoned from (last fiscal year − its year to date + this one's).
      for (const { shares, eps } of SHARE_COUNTS) {
        const [n, s, e] = [p.income?.net_income, p.income?.[shares], p.income?.[eps]];
        if (s) expect(s.value, `${shares} ${p.period_end}`).toBeGreaterThan(0);
        if (!e || p.ttm?.basis !== "four_quarters") continue;
        const numerator = e.concept.split("÷")[0]!.replace(/^\((.*)\)$/, "$1");
        if (numerator === n!.concept) expect(e.value).toBeCloseTo(n!.value / s!.value, 2);
        else expect(filedNumerators(raw, periods, p, numerator.split("+")).some((v) => Math.abs(v / s!.value - e.value) <= 0.005 + 1e-9), `${eps} ${p.period_end}`).toBe(true);
      }
    }
  });

  it.each(files)("%s: a value history lists as never served is no value it served (a sum of a filing's lines included)", (file) => {
    const { history } = load(file);
    let sums = 0;
    for (const h of history) {
      for (const [name, filed] of Object.entries(h.filed ?? {})) {
        const served = h.metrics[name as keyof typeof h.metrics] ?? [];
        sums += served.filter((e) => e.components).length;
        for (const f of filed ?? []) {
          const same = served.find((e) => e.accession === f.accession && e.concept === f.concept && e.value === f.value && e.derived === f.derived);
          expect(same, `${name} ${f.accession} ${f.concept}`).toBeUndefined();
        }
      }
    }
    // The companies whose balance sheets have sums of lines (Walmart's liabilities, Apple's current debt) are checked on them.
    if (["CIK0000104169.json", "CIK0000320193.json"].includes(file)) expect(sums).toBeGreaterThan(0);
  });

  it.each(files)("%s: no year-to-date value is served as a quarter: a quarter's filed flow is a three-month fact of its filing", (file) => {
    const { raw, periods } = load(file);
    for (const p of periods.filter((x) => x.months === 3 && !x.ttm)) {
      for (const name of FLOWS) {
        const m = p.cash_flow?.[name];
        if (!m || m.derived) continue;
        const filed = rawFacts(raw, m.concept).filter((f) => f.accn === m.source_accession && f.start && near(f.start, p.period_start) && near(f.end, p.period_end));
        expect(filed.map((f) => Math.abs(f.val)), `${name} ${p.period_start}..${p.period_end}`).toContain(Math.abs(m.value));
      }
    }
  });

  it.each(files)("%s: every invariant holds or is marked; quarters add up, year-end balances are Q4's, TTM is the year or its quarters", (file) => {
    const { periods } = load(file);
    expect(checkFinancials(periods).filter((v) => !v.marked)).toEqual([]);
    const plain = periods.filter((p) => !p.ttm);
    const quarter = (fy: number, q: string) => plain.find((p) => p.months === 3 && p.fiscal_year === fy && p.fiscal_quarter === q);
    for (const year of plain.filter((p) => p.months === 12)) {
      const quarters = ["Q1", "Q2", "Q3", "Q4"].map((q) => quarter(year.fiscal_year, q));
      // Instants at a fiscal year end equal the Q4 instant (checked here independently of checkFinancials).
      if (quarters[3]?.balance && year.balance) expect(quarters[3].balance).toEqual(year.balance);
      if (quarters.some((q) => !q)) continue;
      for (const name of FLOWS) {
        const total = year.cash_flow?.[name];
        const parts = quarters.map((q) => q!.cash_flow?.[name]);
        if (!total || parts.some((x) => !x)) continue;
        const miss = compare(name, total.value, parts.map((x) => x!.value));
        // Discrete quarters add up to the year, or the year says they do not.
        if (miss) expect(year.reconciliation.map((r) => r.metric), `${year.fiscal_year} ${name}`).toContain(name);
      }
    }
    for (const ttm of periods.filter((p) => p.ttm)) {
      const parts = ttm.ttm!.periods.map((t) => plain.find((p) => p.period_start === t.period_start && p.period_end === t.period_end && (t.fiscal_quarter === "FY") === (p.months === 12))!);
      expect(parts.every((p) => p)).toBe(true);
      expect(parts.map((p) => p.period_end).at(-1)).toBe(ttm.period_end);
      if (ttm.ttm!.basis === "fiscal_year") {
        // TTM at a fiscal year end equals the fiscal year.
        expect(ttm.cash_flow).toMatchObject(Object.fromEntries(FLOWS.map((n) => [n, parts[0]!.cash_flow?.[n] ? { value: parts[0]!.cash_flow[n]!.value } : null])));
        expect(ttm.income?.revenue?.value ?? null).toBe(parts[0]!.income?.revenue?.value ?? null);
        continue;
      }
      if (parts.length < 4) {
        // A quarter missing before these: every flow null, each with that reason.
        expect(ttm.cash_flow?.operating_cash_flow ?? null).toBeNull();
        expect(ttm.ttm!.unavailable.every((u) => u.reason === "missing_quarter")).toBe(true);
        continue;
      }
      for (const name of FLOWS) {
        const value = ttm.cash_flow?.[name]?.value;
        if (value === undefined) {
          // Null with its reason, unless none of the four quarters reports the flow at all.
          if (parts.some((p) => p.cash_flow?.[name])) expect(ttm.ttm!.unavailable.map((u) => u.metric)).toContain(name);
          continue;
        }
        expect(value).toBeCloseTo(parts.reduce((s, p) => s + p.cash_flow![name]!.value, 0), 3);
        expect(ttm.cash_flow![name]!.derived).toBe(true);
      }
      // Per-share TTM only from TTM net income and weighted shares, never by adding EPS.
      if (ttm.income?.eps_diluted) expect(ttm.income.eps_diluted.concept).toContain("÷");
    }
  });
});

describeEdgar("hand-checked statements, each against its filing", () => {
  const loaded = new Map<string, ReturnType<typeof load>>();
  const company = (cik: string) => loaded.get(cik) ?? loaded.set(cik, load(`CIK${cik}.json`)).get(cik)!;
  /** The row of a span (not TTM) and its history. */
  const row = (cik: string, start: string, end: string) => {
    const { periods, history } = company(cik);
    const i = periods.findIndex((p) => p.period_start === start && p.period_end === end && !p.ttm);
    if (i < 0) throw new Error(`no row ${start}..${end}`);
    return { p: periods[i]!, h: history[i]! };
  };
  /** A row as it stood on a date, read with its document (a TTM row's block is read from the other rows). */
  const asOf = (cik: string, find: (p: FinancialPeriod) => boolean, date: string) => {
    const { periods, history } = company(cik);
    const i = periods.findIndex(find);
    return financialAsOf(periods[i]!, history[i]!, date, false, financialsContext(periods, history));
  };
  const span = (start: string, end: string) => (p: FinancialPeriod) => !p.ttm && p.period_start === start && p.period_end === end;
  const ttmTo = (end: string) => (p: FinancialPeriod) => p.ttm !== null && p.period_end === end;
  /** Each metric's value, and that the filing named reported it (its history holds the same value from it). */
  const expectFiled = (r: { p: FinancialPeriod; h: FinancialPeriodHistory }, accession: string, values: Record<string, number>) => {
    for (const [name, value] of Object.entries(values)) {
      const metric = (r.p.balance?.[name as "cash"] ?? r.p.cash_flow?.[name as "dividends_paid"]) as StatementMetric;
      expect(metric?.value, name).toBe(value);
      expect(r.h.metrics[name as "cash"]!.map((e) => [e.accession, e.value]), name).toContainEqual([accession, value]);
    }
  };

  it("Apple fiscal 2024 (10-K 0000320193-24-000123): the issue's figures, debt and the cover's shares", () => {
    const fy = row("0000320193", "2023-10-01", "2024-09-28");
    expectFiled(fy, "0000320193-24-000123", {
      total_assets: 364_980e6,
      total_liabilities: 308_030e6,
      equity: 56_950e6,
      cash: 29_943e6,
      operating_cash_flow: 118_254e6,
      capital_expenditure: 9_447e6,
      dividends_paid: 15_234e6,
      share_repurchases: 94_949e6,
      debt_current: 20_879e6, // commercial paper 9,967 + term debt 10,912
      debt_noncurrent: 85_750e6,
    });
    expect(fy.p.cash_flow!.capital_expenditure).toMatchObject({ concept: "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", derived: false });
    expect(fy.p.cash_flow!.free_cash_flow).toMatchObject({ value: 108_807e6, derived: true });
    expect(fy.p.balance!.debt_current!.components).toEqual([
      { concept: "us-gaap:CommercialPaper", value: 9_967e6 },
      { concept: "us-gaap:LongTermDebtCurrent", value: 10_912e6 },
    ]);
    expect(fy.p.balance!.total_debt).toMatchObject({ value: 106_629e6, derived: true });
    // The cover page of that 10-K: 15,115,823,000 shares as of 2024-10-18.
    expect(fy.p.balance!.shares_outstanding).toMatchObject({ value: 15_115_823_000, as_of: "2024-10-18", source_accession: "0000320193-24-000123", concept: "dei:EntityCommonStockSharesOutstanding" });
  });

  it("Apple's debt while its balance sheet tagged long-term debt as us-gaap:LongTermDebt (fiscal 2013 to early 2015)", () => {
    // 10-K 0001193125-13-416534 (fiscal 2013): long-term debt 16,960, no commercial paper; the 10-K for fiscal 2014
    // (0001193125-14-383437) reports both again. 10-Q 0001193125-15-153166 (2015-03-28): commercial paper 3,799,
    // long-term debt 40,072 ($ millions). No current portion was due then.
    const fy2013 = row("0000320193", "2012-09-30", "2013-09-28");
    expect(fy2013.p.balance!.debt_noncurrent).toMatchObject({ value: 16_960e6, concept: "us-gaap:LongTermDebt", source_accession: "0001193125-14-383437" });
    expect(fy2013.h.metrics.debt_noncurrent![0]).toMatchObject({ value: 16_960e6, accession: "0001193125-13-416534" });
    expect(fy2013.p.balance!.total_debt!.value).toBe(16_960e6);
    const q = row("0000320193", "2014-12-28", "2015-03-28").p.balance!;
    expect(q.total_debt).toMatchObject({ value: 43_871e6, derived: true, concept: "us-gaap:CommercialPaper+us-gaap:LongTermDebt", source_accession: "0001193125-15-153166" });
    // Fiscal 2014 (10-K 0001193125-14-383437): commercial paper 6,308 + long-term debt 28,987, as first filed.
    expect(row("0000320193", "2013-09-29", "2014-09-27").p.balance!.total_debt).toMatchObject({ value: 35_295e6, restated: false });
    // Texas Instruments' 10-K for 2012 (0000097476-13-000009) tags long-term debt 4,186 beside a current portion of
    // 1,500: the non-current line, as its 10-Q of 2013-05-03 shows (LongTermDebtNoncurrent 4,186). Nothing is made of
    // the 10-K's pair, so 4,186 is no restatement of a difference.
    const ti2012 = row("0000097476", "2012-01-01", "2012-12-31").p.balance!;
    expect(ti2012.debt_noncurrent).toMatchObject({ value: 4_186e6, concept: "us-gaap:LongTermDebtNoncurrent", restated: false });
    // Its total is 1,500 + 4,186 from that 10-Q on (the 10-K for 2013, 0000097476-14-000007, reports both again);
    // the current portion alone was never its total.
    expect(ti2012.total_debt).toMatchObject({ value: 5_686e6, restated: false, source_accession: "0000097476-14-000007" });
    const ti2012History = row("0000097476", "2012-01-01", "2012-12-31").h.metrics.total_debt!;
    expect(ti2012History.map((e) => [e.value, e.accession])).toEqual([[5_686e6, "0000097476-13-000028"], [5_686e6, "0000097476-14-000007"]]);
    // Its 10-Q for 2011-09-30 (0000097476-11-000055), the only filing of that date: current debt 1,586 (commercial
    // paper 1,200 + current portion 386) beside long-term debt 4,215, and no non-current line: no total.
    const ti2011q3 = row("0000097476", "2011-07-01", "2011-09-30").p.balance!;
    expect([ti2011q3.debt_current?.value, ti2011q3.debt_noncurrent, ti2011q3.total_debt]).toEqual([1_586e6, null, null]);
  });

  it("Apple's cover counts before its 4-for-1 split of 2020 are on the old basis, flagged from when the filings showed the split", () => {
    // The 10-Q filed 2020-07-31 (0000320193-20-000062) gave 4,275,634,000 shares as of 2020-07-17; its weighted diluted
    // shares for the quarter were restated to 17,419,154,000 by later filings. The 10-K filed 2020-10-30
    // (0000320193-20-000096), the first to report on the new basis, gave 17,001,802,000 as of 2020-10-16.
    const q3 = row("0000320193", "2020-03-29", "2020-06-27");
    expect(q3.p.balance!.shares_outstanding).toMatchObject({ value: 4_275_634_000, as_of: "2020-07-17", split_unadjusted: true });
    expect(q3.p.income!.diluted_shares!.value).toBe(17_419_154_000);
    const fy = row("0000320193", "2019-09-29", "2020-09-26");
    expect(fy.p.balance!.shares_outstanding).toMatchObject({ value: 17_001_802_000, as_of: "2020-10-16", split_unadjusted: false });
    // As of a date before the 10-K of 2020-10-30 no filing had shown the split: the count was on the basis of its day.
    const { periods, history } = company("0000320193");
    const context = financialsContext(periods, history);
    expect(financialAsOf(q3.p, q3.h, "2020-10-29", false, context)!.balance!.shares_outstanding!.split_unadjusted).toBe(false);
    expect(financialAsOf(q3.p, q3.h, "2020-10-30", false, context)!.balance!.shares_outstanding!.split_unadjusted).toBe(true);
  });

  it("Apple: quarterly cash flows are differences of one vintage's years to date, marked derived; the fourth quarter's balance is the year's", () => {
    // Q4 fiscal 2024 = 118,254 (10-K 0000320193-24-000123) − 91,443 (nine months, 10-Q 0000320193-24-000081).
    const q4 = row("0000320193", "2024-06-30", "2024-09-28");
    expect(q4.p).toMatchObject({ fiscal_year: 2024, fiscal_quarter: "Q4", months: 3 });
    expect(q4.p.cash_flow!.operating_cash_flow).toMatchObject({ value: 26_811e6, derived: true });
    expect(q4.p.balance).toEqual(row("0000320193", "2023-10-01", "2024-09-28").p.balance);
    // Q2 fiscal 2025 = 53,887 (six months, 10-Q 0000320193-25-000057) − 29,935 (Q1, 10-Q 0000320193-25-000008); the
    // 10-Q of a year later (0000320193-26-000006) re-reported the same half, so it is now the latest source.
    const q2 = row("0000320193", "2024-12-29", "2025-03-29");
    expect(q2.p.cash_flow!.operating_cash_flow).toMatchObject({ value: 23_952e6, derived: true, restated: false });
    expect(q2.h.metrics.operating_cash_flow![0]).toMatchObject({ value: 23_952e6, accession: "0000320193-25-000057", derived: true });
    expect(row("0000320193", "2024-09-29", "2025-03-29").p.cash_flow!.operating_cash_flow).toMatchObject({ value: 53_887e6, derived: false });
  });

  it("Apple TTM: the fiscal year at its end; four quarters otherwise, listed with their filings; EPS from TTM net income and weighted shares", () => {
    const { periods } = company("0000320193");
    const atYearEnd = periods.find((p) => p.ttm && p.period_end === "2024-09-28")!;
    expect(atYearEnd.ttm).toMatchObject({ basis: "fiscal_year", periods: [{ fiscal_year: 2024, fiscal_quarter: "FY" }] });
    expect(atYearEnd.cash_flow!.operating_cash_flow!.value).toBe(118_254e6);
    // To 2025-12-27: fiscal 2025 (111,482, 10-K 0000320193-25-000079) − its Q1 (29,935) + fiscal 2026's Q1 (53,925).
    const latest = periods.find((p) => p.ttm && p.period_end === "2025-12-27")!;
    expect(latest).toMatchObject({ fiscal_year: 2026, fiscal_quarter: "Q1", months: 12, period_start: "2024-12-29", derived: true, balance: null });
    expect(latest.ttm!.basis).toBe("four_quarters");
    expect(latest.ttm!.periods.map((p) => `${p.fiscal_quarter} ${p.fiscal_year}`)).toEqual(["Q2 2025", "Q3 2025", "Q4 2025", "Q1 2026"]);
    expect(latest.cash_flow!.operating_cash_flow).toMatchObject({ value: 135_472e6, derived: true });
    expect(latest.ttm!.periods.every((p) => p.accessions.length > 0)).toBe(true);
    const eps = latest.income!.eps_diluted!;
    expect(eps.concept).toBe("us-gaap:NetIncomeLoss÷us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding");
    expect(eps.value).toBeCloseTo(latest.income!.net_income!.value / latest.income!.diluted_shares!.value, 2);
    // Basic alike, as share-days (thousands of shares): fiscal 2025's 14,948,500 over 364 days (10-K
    // 0000320193-25-000079) − its Q1's 15,081,724 over 91 + fiscal 2026's Q1 14,748,158 over 91 (both in the 10-Q
    // 0000320193-26-000006) = 14,865,108.5 over 364; TTM net income 112,010 − 36,330 + 42,097 = 117,777 ($ millions)
    // ÷ 14,865.1085 million shares = 7.92.
    expect(latest.income!.net_income!.value).toBe(117_777e6);
    expect(latest.income!.basic_shares).toMatchObject({ value: 14_865_108_500, derived: true, source_accession: "0000320193-26-000006" });
    expect(latest.income!.eps_basic).toMatchObject({ value: 7.92, concept: "us-gaap:NetIncomeLoss÷us-gaap:WeightedAverageNumberOfSharesOutstandingBasic", derived: true });
    expect(latest.ttm!.unavailable).toEqual([]);
  });

  it("TTM EPS divides the company's own EPS numerator where it is not its net income: Texas Instruments (participating securities), Hertz (warrants)", () => {
    const ttm = (cik: string, end: string) => company(cik).periods.find((p) => p.ttm && p.period_end === end)!.income!;
    // Texas Instruments, to 2015-09-30, in millions. Net income allocated to common stock (two-class method): basic
    // 2,777 for 2014 (10-K 0000097476-15-000003) − 1,965 for its nine months (10-Q 0000097476-14-000034) + 2,119 for
    // 2015's (10-Q 0001564590-15-009541) = 2,931; diluted 2,778 − 1,965 + 2,120 = 2,933. Shares as share-days: basic
    // (1,065 × 365 − 1,070 × 273 + 1,036 × 273) / 365 = 1,039.57; diluted (1,080 × 365 − 1,085 × 273 + 1,049 × 273) / 365
    // = 1,053.07. Its net income (2,975) would give 2.86 and 2.83; its four quarters' diluted EPS as filed add up to
    // 0.76 + 0.61 + 0.65 + 0.76 = 2.78.
    const ti = ttm("0000097476", "2015-09-30");
    expect(ti.net_income!.value).toBe(2_975e6);
    expect(ti.basic_shares!.value).toBe(1_039_569_863);
    expect(ti.diluted_shares!.value).toBe(1_053_073_973);
    expect(ti.eps_basic).toMatchObject({ value: 2.82, concept: "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic÷us-gaap:WeightedAverageNumberOfSharesOutstandingBasic", derived: true });
    expect(ti.eps_diluted).toMatchObject({ value: 2.79, concept: "us-gaap:NetIncomeLossAvailableToCommonStockholdersDiluted÷us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding" });
    // Hertz, to 2023-09-30: its diluted numerator takes its public warrants' fair-value gains out of net income —
    // 1,355 for 2022 (10-K 0001657853-23-000039), 1,359 for its nine months, 853 for 2023's (both in 10-Q
    // 0001657853-23-000152): 849 million ÷ 336.43 million diluted shares = 2.52. Its basic numerator is its net income
    // (2,059 − 1,943 + 964 = 1,080): 3.38.
    const hertz = ttm("0001657853", "2023-09-30");
    expect(hertz.eps_diluted).toMatchObject({ value: 2.52, concept: "us-gaap:NetIncomeLossAvailableToCommonStockholdersDiluted÷us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding" });
    expect(hertz.diluted_shares!.value).toBe(336_432_877);
    expect(hertz.eps_basic).toMatchObject({ value: 3.38, concept: "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic÷us-gaap:WeightedAverageNumberOfSharesOutstandingBasic" });
    expect(hertz.net_income!.value).toBe(1_080e6);
  });

  it("TTM EPS where a period tags no numerator: its net income where its own EPS shows it is one (SUNation, Hertz); else null, with the reason (SunEdison)", () => {
    // SUNation to 2023-03-31: its numerator for 2022, −27,216,132 against net income of −10,352,240 (10-K
    // 0000022701-23-000008: preferred stock adjustments); none for the first quarter of 2022, whose EPS of −0.58 is its
    // net income −1,883,634 ÷ 3,231,461 shares (10-Q 0000022701-22-000009); −2,554,989 for 2023's (10-Q
    // 0000022701-23-000011). −27,216,132 + 1,883,634 − 2,554,989 = −27,887,487 ÷ 8,390,588 shares = −3.32, where its net
    // income (−11,023,595) would give −1.31.
    const sunation = company("0000022701").periods.find((p) => p.ttm && p.period_end === "2023-03-31")!;
    expect(sunation.income!.basic_shares!.value).toBe(8_390_588);
    expect(sunation.income!.eps_basic).toMatchObject({
      value: -3.32,
      concept: "(us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic+us-gaap:NetIncomeLoss)÷us-gaap:WeightedAverageNumberOfSharesOutstandingBasic",
    });
    // SunEdison to 2015-09-30: its 2014 numerator is not its net income (−1,185.6 against −1,180.4 million, 10-K
    // 0000945436-15-000049); its nine months of 2015 tag none, and their EPS of −3.13 is not net income −919 ÷ 295
    // million shares (−3.12, 10-Q 0000945436-15-000274).
    // Hertz to 2020-03-31, in millions: its 10-K of 2022 (0001657853-22-000012) tags 2019's numerator, −58, its net
    // income; the first quarters tag none, and their EPS is their net income ÷ shares filed in millions (2019: −147 ÷ 96
    // = −1.53 for the −1.54 filed, within the rounding of 96; 2020: −356 ÷ 142 = −2.51 for −2.50). −58 + 147 − 356 =
    // −267 ÷ 128.38 million shares = −2.08, from that 10-K on.
    const hertz = company("0001657853").periods.find((p) => p.ttm && p.period_end === "2020-03-31")!;
    expect(hertz.income!.basic_shares!.value).toBe(128_379_781);
    expect(hertz.income!.eps_basic).toMatchObject({ value: -2.08, source_accession: "0001657853-22-000012", concept: "(us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic+us-gaap:NetIncomeLoss)÷us-gaap:WeightedAverageNumberOfSharesOutstandingBasic" });
    const sunedison = company("0000945436").periods.find((p) => p.ttm && p.period_end === "2015-09-30")!;
    expect(sunedison.income!.net_income).not.toBeNull();
    expect(sunedison.income!.basic_shares).not.toBeNull();
    expect(sunedison.income!.eps_basic).toBeNull();
    expect(sunedison.ttm!.unavailable).toContainEqual(expect.objectContaining({ metric: "eps_basic", reason: "no_eps_numerator" }));
  });

  it("Walmart fiscal 2025, a January year-end (10-K 0000104169-25-000021): no total liabilities line, so derived from its own balance sheet", () => {
    const fy = row("0000104169", "2024-02-01", "2025-01-31");
    expect(fy.p).toMatchObject({ fiscal_year: 2025, fiscal_quarter: "FY" });
    expectFiled(fy, "0000104169-25-000021", {
      total_assets: 260_823e6,
      equity: 91_013e6,
      cash: 9_037e6,
      operating_cash_flow: 36_443e6,
      capital_expenditure: 23_783e6,
      dividends_paid: 6_688e6,
      share_repurchases: 4_494e6,
      total_liabilities: 163_131e6,
    });
    // Total liabilities, equity and redeemable NCI 260,823; total equity 97,421; redeemable NCI 271 (mezzanine).
    expect(fy.p.balance!.total_liabilities).toMatchObject({ derived: true, concept: expect.stringMatching(/^us-gaap:LiabilitiesAndStockholdersEquity−/) });
    expect(fy.p.balance!.total_liabilities!.components).toEqual([
      { concept: "us-gaap:LiabilitiesAndStockholdersEquity", value: 260_823e6 },
      { concept: "us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest", value: -97_421e6 },
      { concept: "us-gaap:RedeemableNoncontrollingInterestEquityCarryingAmount", value: -271e6 },
    ]);
    expect(fy.p.cash_flow!.dividends_paid!.concept).toBe("us-gaap:PaymentsOfDividendsCommonStock");
  });

  it("Walmart at 2012-01-31: total liabilities 117,241 once its filings tag the redeemable noncontrolling interest, not the first sum's 117,645", () => {
    // 10-K for fiscal 2013 (0000104169-13-000011), its balance sheet at 2012-01-31 ($ millions): current liabilities
    // 62,300 + long-term debt 44,070 + long-term capital lease obligations 3,009 + deferred income taxes and other 7,862
    // = 117,241; redeemable noncontrolling interest 404; total equity 75,761; total 193,406. The 10-K for fiscal 2012
    // (0001193125-12-134679) and the next two 10-Qs do not tag the redeemable interest under a standard concept, so
    // their sums held it among liabilities; the 10-Q of 2012-12-04 (0000104169-12-000018) first tags it.
    const fy = row("0000104169", "2011-02-01", "2012-01-31");
    expect(fy.p.balance!.total_liabilities).toMatchObject({
      value: 117_241e6,
      source_accession: "0000104169-13-000011",
      restated: true,
      original_value: 117_645e6,
      original_accession: "0001193125-12-134679",
    });
    expect(fy.p.balance!.total_liabilities!.components).toContainEqual({ concept: "us-gaap:RedeemableNoncontrollingInterestEquityCarryingAmount", value: -404e6 });
    // Assets = liabilities + the mezzanine + total equity, as on the balance sheet.
    expect(fy.p.balance!.total_assets!.value).toBe(117_241e6 + 404e6 + 75_761e6);
  });

  it("Marvell's current debt: one line tagged as both short-term borrowings and the current portion of long-term debt counts once", () => {
    // 10-K for fiscal 2022 (0001835632-22-000016) at 2021-01-30 ($ thousands): ShortTermBorrowings and
    // LongTermDebtCurrent both 199,641 — its "current portion of long-term debt" — beside non-current 993,170; its
    // LongTermDebt 1,192,811 is their sum, so the 199,641 is one line. 10-K for fiscal 2023 (0001835632-23-000013) at
    // 2023-01-28: both 584,400, non-current 3,907,700, LongTermDebt 4,492,100.
    const fy2021 = row("0001835632", "2020-02-02", "2021-01-30").p.balance!;
    expect(fy2021.debt_current).toMatchObject({ value: 199_641_000, concept: "us-gaap:ShortTermBorrowings" });
    expect(fy2021.total_debt).toMatchObject({ value: 1_192_811_000, restated: false });
    const fy2023 = row("0001835632", "2022-01-30", "2023-01-28");
    expect(fy2023.p.balance!.debt_current).toMatchObject({ value: 584_400_000, restated: false });
    expect(fy2023.p.balance!.total_debt).toMatchObject({ value: 4_492_100_000, restated: false });
    // On every date since, from the 10-K's own filing on: never the double count.
    expect(fy2023.h.metrics.debt_current![0]).toMatchObject({ value: 584_400_000, accession: "0001835632-23-000013" });
    expect(new Set(fy2023.h.metrics.debt_current!.map((e) => e.value))).toEqual(new Set([584_400_000]));
  });

  it("debt by kind of line where no debt total is tagged: notes, loans, credit lines, convertible notes; secured and related-party notes", () => {
    // SUNation's 10-K for 2025 (0000022701-26-000003) at 2025-12-31: current notes payable 1,763,424 and loans payable
    // 366,824, which add up to its principal due within a year (LongTermDebtMaturitiesRepaymentsOfPrincipalInNextTwelveMonths
    // 2,130,248); non-current notes 3,457,864 and loans 1,011,508. Its LongTermDebt, 6,643,856, is the principal of all
    // four (the maturities add up to it; the lines are net of 44,236 of discount), so it is no non-current side.
    const fy2025 = row("0000022701", "2025-01-01", "2025-12-31");
    expectFiled(fy2025, "0000022701-26-000003", { debt_current: 2_130_248, debt_noncurrent: 4_469_372 });
    expect(fy2025.p.balance!.debt_noncurrent!.components).toEqual([
      { concept: "us-gaap:LongTermNotesPayable", value: 3_457_864 },
      { concept: "us-gaap:LongTermLoansPayable", value: 1_011_508 },
    ]);
    expect(fy2025.p.balance!.total_debt).toMatchObject({ value: 6_599_620, derived: true });
    // Its 10-K for 2014 (0000897101-15-000326) at 2014-12-31: secured debt, its non-current line, 103,603 beside the
    // current portion 524,220; long-term debt 628,000 (their sum, rounded). No total was served before.
    const fy2014 = row("0000022701", "2014-01-01", "2014-12-31");
    expectFiled(fy2014, "0000897101-15-000326", { debt_current: 524_220, debt_noncurrent: 103_603 });
    expect(fy2014.p.balance!.debt_noncurrent!.concept).toBe("us-gaap:SecuredLongTermDebt");
    expect(fy2014.p.balance!.total_debt!.value).toBe(627_823);
    // Its 10-K for 2022 (0000022701-23-000008) at 2022-12-31: its sellers' notes as notes to related parties (5,339,265
    // current, 4,635,914 non-current) beside loans payable (346,290 and 3,138,194); its 10-Q of November 2023
    // (0000022701-23-000017) re-tags the notes as notes payable, at the same figures.
    const fy2022 = row("0000022701", "2022-01-01", "2022-12-31");
    expectFiled(fy2022, "0000022701-23-000008", { debt_current: 5_685_555, debt_noncurrent: 7_774_108 });
    expect(fy2022.h.metrics.debt_current![0]!.components).toContainEqual({ concept: "us-gaap:NotesPayableRelatedPartiesClassifiedCurrent", value: 5_339_265 });
    expect(fy2022.p.balance!.total_debt!.value).toBe(13_459_663);
    // Marvell's 10-Q for the quarter to 2021-05-01 (0001835632-21-000010, $ thousands): short-term borrowings 30,308 and
    // the convertible notes it assumed with Inphi, current, 193,269, beside non-current debt 4,674,853: 4,898,430, its
    // LongTermDebt of that date to the dollar. Without the convertible line total debt was short by it.
    const q = row("0001835632", "2021-01-31", "2021-05-01").p.balance!;
    expect(q.debt_current).toMatchObject({ value: 223_577_000, derived: true, concept: "us-gaap:ShortTermBorrowings+us-gaap:ConvertibleDebtCurrent" });
    expect(q.total_debt!.value).toBe(4_898_430_000);
  });

  it("Home Depot's cash at 2017-07-30: the 10-Qs' 4,830, not the next year's third-quarter 10-Q's misdated 3,549", () => {
    // 10-Q for the quarter to 2017-07-30 (0000354950-17-000032) and the next year's (0000354950-18-000051): cash and
    // cash equivalents 4,830 ($ millions). The 10-Q of 2018-11-20 (0000354950-18-000065) tagged 3,549 at 2017-07-30:
    // the cash at 2017-10-29, as the 10-Q of 2017-11-21 (0000354950-17-000046) gave it — another date's figure.
    const q = row("0000354950", "2017-05-01", "2017-07-30");
    expect(q.p.balance!.cash).toMatchObject({ value: 4_830e6, restated: false, source_accession: "0000354950-18-000051" });
    expect(q.h.metrics.cash!.map((e) => [e.value, e.accession])).toEqual([
      [4_830e6, "0000354950-17-000032"],
      [4_830e6, "0000354950-18-000051"],
    ]);
    expect(row("0000354950", "2017-07-31", "2017-10-29").p.balance!.cash!.value).toBe(3_549e6);
  });

  it("SunEdison's half to 2011-06-30: its own figures, not the nine months' its 10-Q of 2012-11-09 tagged there", () => {
    // The 10-Qs for the half (0001193125-11-216740) and the next year's (0000945436-12-000116): net income 42.8 million,
    // operating cash flow −26.4 million. The 10-Q of 2012-11-09 (0000945436-12-000174) tagged the half with −51.6 and
    // 161.3: the nine months' figures, as the 10-Q of 2011-11-07 (0000945436-11-000057) gave them.
    const half = row("0000945436", "2011-01-01", "2011-06-30");
    expect(half.p.income!.net_income).toMatchObject({ value: 42.8e6, restated: false, source_accession: "0000945436-12-000116" });
    expect(half.p.cash_flow!.operating_cash_flow).toMatchObject({ value: -26.4e6, restated: false });
    expect(half.h.metrics.net_income!.map((e) => e.value)).toEqual([42.8e6, 42.8e6]);
    // The same column's EPS (−0.22, the nine months') goes with it: the half's own 0.19 (42.8 ÷ 229.4 million shares).
    expect(half.p.income!.eps_basic).toMatchObject({ value: 0.19, restated: false });
    // So its third quarter is the nine months − the half: 161.3 + 26.4 = 187.7, not 0.
    expect(row("0000945436", "2011-07-01", "2011-09-30").p.cash_flow!.operating_cash_flow).toMatchObject({ value: 187.7e6, derived: true });
  });

  it("Home Depot fiscal 2023, to 28 January 2024 (10-K 0000354950-24-000062): capital expenditure under productive assets, not PP&E", () => {
    const fy = row("0000354950", "2023-01-30", "2024-01-28");
    expect(fy.p).toMatchObject({ fiscal_year: 2023, fiscal_quarter: "FY" });
    expectFiled(fy, "0000354950-24-000062", {
      total_assets: 76_530e6,
      total_liabilities: 75_486e6,
      equity: 1_044e6,
      cash: 3_760e6,
      operating_cash_flow: 21_172e6,
      capital_expenditure: 3_226e6,
      dividends_paid: 8_383e6,
      share_repurchases: 7_951e6,
    });
    expect(fy.p.cash_flow!.capital_expenditure!.concept).toBe("us-gaap:PaymentsToAcquireProductiveAssets");
  });

  it("TSMC 2024 (20-F 0001193125-25-083423, IFRS, NT$): annual only; dividends from the cash flow statement, not the equity statement", () => {
    const fy = row("0001046179", "2024-01-01", "2024-12-31");
    expectFiled(fy, "0001193125-25-083423", {
      total_assets: 6_691_764_700_000,
      total_liabilities: 2_412_493_100_000,
      equity: 4_244_266_500_000,
      cash: 2_127_627_000_000,
      operating_cash_flow: 1_826_177_100_000,
      capital_expenditure: 956_006_500_000,
      dividends_paid: 363_055_200_000, // ifrs-full:DividendsPaid (the equity statement's) is 414,915.5 million
    });
    expect(fy.p.cash_flow!.operating_cash_flow).toMatchObject({ unit: "TWD", concept: "ifrs-full:CashFlowsFromUsedInOperatingActivities" });
    expect(fy.p.cash_flow!.dividends_paid!.concept).toBe("ifrs-full:DividendsPaidClassifiedAsFinancingActivities");
    // Bonds 926,604.5 + long-term bank loans 31,824.4 (NT$ millions), beside the current portion 59,857.9.
    expect(fy.p.balance!.debt_noncurrent).toMatchObject({ value: 958_428_900_000, derived: true });
    const { periods } = company("0001046179");
    expect(periods.filter((p) => p.ttm).every((p) => p.ttm!.basis === "fiscal_year")).toBe(true);
  });

  it("McDonald's 2024 (10-K 0000063908-25-000012): a shareholders' deficit, liabilities derived, no current debt", () => {
    const fy = row("0000063908", "2024-01-01", "2024-12-31");
    expectFiled(fy, "0000063908-25-000012", {
      total_assets: 55_182e6,
      equity: -3_797e6,
      total_liabilities: 58_979e6,
      cash: 1_085e6,
      operating_cash_flow: 9_447e6,
      capital_expenditure: 2_775e6,
      dividends_paid: 4_870e6,
      share_repurchases: 2_824e6,
      debt_current: 0,
      debt_noncurrent: 38_424e6,
    });
    // Its later 10-K (0000063908-26-000035) tags only a footnote's commercial paper for that date (790 million, inside
    // its long-term debt): a total some filing tags beats any sum of lines, so current debt stays 0.
    expect(fy.p.balance!.debt_current!.concept).toBe("us-gaap:DebtCurrent");
    expect(fy.p.balance!.total_debt!.value).toBe(38_424e6);
  });

  it("Alphabet 2024 (10-K 0001652044-25-000014): its first dividends", () => {
    expectFiled(row("0001652044", "2024-01-01", "2024-12-31"), "0001652044-25-000014", {
      total_assets: 450_256e6,
      total_liabilities: 125_172e6,
      equity: 325_084e6,
      cash: 23_466e6,
      operating_cash_flow: 125_299e6,
      capital_expenditure: 52_535e6,
      dividends_paid: 7_363e6,
      share_repurchases: 62_222e6,
    });
    // None before: the 10-K's comparatives say 0 for 2023.
    expect(row("0001652044", "2023-01-01", "2023-12-31").p.cash_flow!.dividends_paid!.value).toBe(0);
  });

  it("Hertz 2023 (10-K 0001657853-24-000022): only its non-vehicle capex is standard (other PP&E, 188): capex and FCF null, with the reason", () => {
    // Its cash flow statement has "non-vehicle capital asset expenditures" (188 million, us-gaap:
    // PaymentsToAcquireOtherPropertyPlantAndEquipment) beside its revenue earning vehicles expenditures, tagged with a
    // company concept that company facts do not carry (its net productive-asset spending for 2023, vehicles included,
    // is 4,023 million: us-gaap:PaymentsForProceedsFromProductiveAssets in its 10-K 0001657853-26-000008).
    const fy = row("0001657853", "2023-01-01", "2023-12-31");
    expectFiled(fy, "0001657853-24-000022", { total_assets: 24_605e6, operating_cash_flow: 2_474e6 });
    expect(fy.p.cash_flow!.capital_expenditure).toBeNull();
    expect(fy.p.cash_flow!.free_cash_flow).toBeNull();
    expect(fy.p.unavailable.map((u) => [u.metric, u.reason])).toEqual([
      ["capital_expenditure", "partial_capital_expenditure"],
      ["free_cash_flow", "partial_capital_expenditure"],
    ]);
    expect(fy.p.unavailable[0]!.message).toContain("us-gaap:PaymentsToAcquireOtherPropertyPlantAndEquipment");
    // Every row with cash flows says so, TTM rows too; no capex concept of the series is served for Hertz at all.
    const { periods } = company("0001657853");
    for (const p of periods.filter((x) => x.cash_flow?.operating_cash_flow)) expect(p.unavailable.map((u) => u.metric), `${p.period_end} ${p.months}`).toContain("capital_expenditure");
    expect(periods.some((p) => p.cash_flow?.capital_expenditure)).toBe(false);
  });

  it("Hertz's unclassified balance sheet: no current or non-current debt, so total debt is its filings' own total", () => {
    // 10-K for 2024 (0001657853-25-000015): vehicle and non-vehicle debt, no current/non-current split; its debt note's
    // total, us-gaap:DebtAndCapitalLeaseObligations, is 16,335 million at 2024-12-31.
    const fy = row("0001657853", "2024-01-01", "2024-12-31").p.balance!;
    expect([fy.debt_current, fy.debt_noncurrent]).toEqual([null, null]);
    expect(fy.total_debt).toMatchObject({ value: 16_335e6, concept: "us-gaap:DebtAndCapitalLeaseObligations", derived: false, source_accession: expect.stringMatching(/^0001657853-2[56]-/) });
    // Every balance sheet from 2016 on has its total, where there was none.
    const { periods } = company("0001657853");
    const since2016 = periods.filter((p) => p.balance && p.period_end >= "2016-06-30");
    expect(since2016.length).toBeGreaterThan(30);
    for (const p of since2016) expect(p.balance!.total_debt, p.period_end).not.toBeNull();
  });

  it("Alphabet (three share classes): no whole-company cover count, so shares outstanding from its balance sheet's total", () => {
    // Its 10-K for 2024 (0001652044-25-000014) gives the cover count per class only (dimensioned: not in company
    // facts); its balance sheet states 12,211 million Class A, B and C shares outstanding at 2024-12-31
    // (us-gaap:CommonStockSharesOutstanding, re-reported by its 10-K for 2025, 0001652044-26-000018).
    const fy = row("0001652044", "2024-01-01", "2024-12-31");
    expect(fy.p.balance!.shares_outstanding).toMatchObject({ value: 12_211e6, concept: "us-gaap:CommonStockSharesOutstanding", as_of: "2024-12-31", source_accession: "0001652044-26-000018" });
    expect(fy.h.metrics.shares_outstanding!.map((e) => e.accession)).toContain("0001652044-25-000014");
    expect(fy.p.unavailable).toEqual([]);
  });

  it("Under Armour (classes A, B and C): shares outstanding null with its reason, on every balance sheet", () => {
    // No count without a class on its covers and none on its balance sheets: company facts hold no whole-company count.
    const { periods } = company("0001336917");
    const balances = periods.filter((p) => p.balance);
    expect(balances.length).toBeGreaterThan(40);
    for (const p of balances) {
      expect(p.balance!.shares_outstanding).toBeNull();
      expect(p.unavailable).toContainEqual({ metric: "shares_outstanding", reason: "class_counts_only", message: expect.stringContaining("dei:EntityCommonStockSharesOutstanding") });
    }
    // A company with a whole-company cover count (Apple) states no such reason.
    expect(company("0000320193").periods.some((p) => p.unavailable.some((u) => u.reason === "class_counts_only"))).toBe(false);
  });

  it("TSMC (IFRS): the general borrowings concepts, and a kind on a line of its own added only where the general line cannot hold it", () => {
    // 20-F for 2024 (0001193125-25-083423), NT$ millions: current portion of bonds payable and long-term bank loans
    // 59,857.9 (ifrs-full:CurrentPortionOfLongtermBorrowings) holds the current bonds 57,148.0
    // (CurrentBondsIssuedAndCurrentPortionOfNoncurrentBondsIssued): not added again.
    const fy = row("0001046179", "2024-01-01", "2024-12-31");
    expect(fy.p.balance!.debt_current).toMatchObject({ value: 59_857_900_000, concept: "ifrs-full:CurrentPortionOfLongtermBorrowings", derived: false });
    // Long-term bank loans 31,824.4 under ifrs-full:LongtermBorrowings cannot hold the bonds payable 926,604.5: added.
    expect(fy.p.balance!.debt_noncurrent).toMatchObject({ value: 958_428_900_000, derived: true });
    expect(fy.p.balance!.debt_noncurrent!.components).toEqual([
      { concept: "ifrs-full:LongtermBorrowings", value: 31_824_400_000 },
      { concept: "ifrs-full:NoncurrentPortionOfNoncurrentBondsIssued", value: 926_604_500_000 },
    ]);
    // 20-F for 2017 (0001193125-18-121866) on 2016-12-31: bonds 153,093.6 and the loans received beside them, 21.8.
    const y2016 = row("0001046179", "2016-01-01", "2016-12-31");
    expect(y2016.p.balance!.debt_noncurrent).toMatchObject({ value: 153_115_400_000 });
    expect(y2016.p.balance!.debt_noncurrent!.components!.map((c) => c.concept)).toEqual(["ifrs-full:NoncurrentPortionOfNoncurrentBondsIssued", "ifrs-full:NoncurrentPortionOfNoncurrentLoansReceived"]);
  });

  it("Disney's first fiscal quarter pays no dividends: its 10-Q has no dividends line, so the quarter is 0 and the second the half's", () => {
    // 10-Q for the quarter to 2019-12-28 (0001744489-20-000046): operating cash flow for both columns, no dividends
    // paid (the dividend declared in December, 1,600 million, was paid in January). 10-Q for the half to 2020-03-28
    // (0001744489-20-000102): dividends paid 1,587 (and 1,310 for the half to 2019-03-30). Fiscal 2019: 2,895 (10-K).
    expect(row("0001744489", "2019-09-29", "2019-12-28").p.cash_flow!.dividends_paid).toMatchObject({ value: 0, derived: true, source_accession: "0001744489-20-000046" });
    expect(row("0001744489", "2019-12-29", "2020-03-28").p.cash_flow!.dividends_paid).toMatchObject({ value: 1_587e6, derived: true });
    // TTM to 2020-03-28: 0 + 1,585 (fiscal 2019's second half) + 0 + 1,587.
    const ttm = company("0001744489").periods.find((p) => p.ttm && p.period_end === "2020-03-28")!;
    expect(ttm.cash_flow!.dividends_paid).toMatchObject({ value: 3_172e6, derived: true });
  });

  it("Apple's fiscal 2011 repurchases: 0 in each quarter, as its 10-K for fiscal 2013 says of the year", () => {
    // 10-K 0001193125-13-416534: repurchases of common stock 0 for fiscal 2011 (22,860 million for 2013); no filing
    // tags fiscal 2011's quarters or years to date.
    for (const [start, end] of [["2010-09-26", "2010-12-25"], ["2010-09-26", "2011-06-25"], ["2011-03-27", "2011-06-25"], ["2011-06-26", "2011-09-24"]] as const) {
      expect(row("0000320193", start, end).p.cash_flow!.share_repurchases, `${start}..${end}`).toMatchObject({ value: 0, derived: true, source_accession: "0001193125-13-416534" });
    }
  });

  it("Snowflake's third quarter of fiscal 2020 and Alphabet's of 2014: 0 payouts within spans of zero, with no half to difference from", () => {
    // Snowflake's first 10-K (0001640147-21-000073, filed 2021-03-31) tags fiscal 2020's repurchases (to 2020-01-31) as
    // 0; no filing gives that year's half, so the quarter to 2019-10-31 cannot be differenced.
    expect(row("0001640147", "2019-08-01", "2019-10-31").p.cash_flow!.share_repurchases).toMatchObject({ value: 0, derived: true, source_accession: "0001640147-21-000073" });
    // Alphabet's first 10-Q (0001652044-15-000005) tags 2014's nine months of dividends as 0, its 10-Ks the year too
    // (the latest, 0001652044-17-000008); no filing under its CIK gives 2014's half.
    const q3 = row("0001652044", "2014-07-01", "2014-09-30");
    expect(q3.p.cash_flow!.dividends_paid).toMatchObject({ value: 0, derived: true, source_accession: "0001652044-17-000008" });
    expect(q3.h.metrics.dividends_paid!.map((e) => [e.accession, e.effective_from ?? e.filed_at])[0]).toEqual(["0001652044-15-000005", "2015-10-29"]);
  });

  it("Disney's and SUNation's Part III 10-K/As restate nothing: no net income from their pay-versus-performance tables, no later cover count", () => {
    // Disney's 10-K/A of 2024-01-24 (0001744489-24-000064) states no balance sheet; its company facts are the cover
    // (1,834,285,760 shares as of 2024-01-17) and the pay-versus-performance table's net income for fiscal 2021–2023.
    // Fiscal 2023's count is its 10-K's (0001744489-23-000216, filed 2023-11-21): 1,830,315,921 as of 2023-11-15.
    // Fiscal 2021's net income, 1,995 M, is last reported by the statements of that same 10-K.
    const disney = row("0001744489", "2022-10-02", "2023-09-30");
    expect(disney.p.balance!.shares_outstanding).toMatchObject({ value: 1_830_315_921, as_of: "2023-11-15", source_accession: "0001744489-23-000216", restated: false });
    expect(row("0001744489", "2020-10-04", "2021-10-02").p.income!.net_income).toMatchObject({ value: 1_995e6, source_accession: "0001744489-23-000216", form: "10-K" });
    // SUNation's 10-K/A of 2025-04-30 (0001213900-25-037633), the same kind: 2022's net income (−10,352,240) is its
    // 10-K of 2024-04-01's (0000022701-24-000002); 2024's count is its 10-K's (0000022701-25-000002, 672,799,910 as
    // of 2025-04-15), before the reverse split the amendment's cover shows, and flagged so.
    expect(row("0000022701", "2022-01-01", "2022-12-31").p.income!.net_income).toMatchObject({ value: -10_352_240, source_accession: "0000022701-24-000002" });
    const sunation = row("0000022701", "2024-01-01", "2024-12-31");
    expect(sunation.p.balance!.shares_outstanding).toMatchObject({ value: 672_799_910, as_of: "2025-04-15", source_accession: "0000022701-25-000002", restated: false, split_unadjusted: true });
    for (const r of [disney, sunation]) expect(JSON.stringify(r.h)).not.toMatch(/0001744489-24-000064|0001213900-25-037633/);
  });

  it("Walmart's quarter to 2013-07-31: its 10-Q/A's cover, dated later, is a later count, not a restatement", () => {
    // 10-Q 0000104169-13-000037 (filed 2013-09-05): 3,255,456,108 shares on 2013-09-03. The 10-Q/A restating it
    // (0000104169-13-000039, filed 2013-10-21, with its balance sheet) counts 3,244,066,165 on 2013-10-17.
    const q = row("0000104169", "2013-05-01", "2013-07-31");
    expect(q.p.balance!.shares_outstanding).toMatchObject({ value: 3_255_456_108, as_of: "2013-09-03", source_accession: "0000104169-13-000037", restated: false });
    // The amendment's statements count as any filing's: its balance sheet was the quarter's in its day.
    expect(q.h.metrics.total_assets!.map((e) => e.accession)).toContain("0000104169-13-000039");
  });

  it("Texas Instruments' fourth quarter of 2008: the 10-K's continuing operations' total less the 10-Qs' total, one line", () => {
    // The 10-K for 2009 (0001140361-10-007923) tags 2008's operating cash flow, 3,330 million, as continuing operations'
    // with no discontinued operations' line; the 10-Q of October 2009 (0000097476-09-000041) tags the nine months to
    // 2008-09-30, 2,216 million, as NetCashProvidedByUsedInOperatingActivities. Q4 = 3,330 − 2,216 = 1,114.
    const q4 = row("0000097476", "2008-10-01", "2008-12-31");
    expect(q4.p.cash_flow!.operating_cash_flow).toMatchObject({ value: 1_114e6, derived: true, source_accession: "0001140361-10-007923" });
    // TTM to 2009-06-30: 1,046 (the nine months − the half, 1,170) + 1,114 + 251 + 557 (the 10-Qs of 2010 for 2009).
    const ttm = company("0000097476").periods.find((p) => p.ttm && p.period_end === "2009-06-30")!;
    expect(ttm.cash_flow!.operating_cash_flow).toMatchObject({ value: 2_968e6, derived: true });
  });

  it("Texas Instruments' fourth quarter of 2012 repurchases: known from the 10-K that tagged the year under another name of the line", () => {
    // Its 10-Q of November 2012 (0000097476-12-000056) tags the nine months' repurchases, 1,200 million, as
    // PaymentsForRepurchaseOfEquity (no preferred stock repurchased beside it); its 10-K for 2012 (0000097476-13-000009,
    // 2013-02-22) the year's, 1,800 million, as PaymentsForRepurchaseOfCommonStock. Q4 = 600 from the 10-K's day, not
    // from the 10-Q of November 2013 that re-tagged the nine months.
    const q4 = row("0000097476", "2012-10-01", "2012-12-31");
    expect(financialAsOf(q4.p, q4.h, "2013-03-01", false)!.cash_flow!.share_repurchases).toMatchObject({ value: 600e6, derived: true, source_accession: "0000097476-13-000009" });
  });

  it("Alphabet's fourth quarter of 2020 revenue and the TTM built on it: one line under two names, known from the 10-K's day", () => {
    // Its 10-K for 2020 (0001652044-21-000010, 2021-02-03) tags the year's revenues, 182,527 million, only as Revenues;
    // its 10-Q of October 2020 (0001652044-20-000050) the nine months, 125,629 million, only as
    // RevenueFromContractWithCustomerExcludingAssessedTax. Its 10-Qs had tagged both names with one figure since
    // 2018 (the first quarter of 2018, 31,146 million, in 0001652044-18-000016). Q4 = 182,527 − 125,629 = 56,898, the
    // fourth-quarter revenues of its earnings release; until its 10-K of 2023 re-tagged the year, it was null.
    expect(asOf("0001652044", span("2020-10-01", "2020-12-31"), "2021-02-03")!.income!.revenue).toMatchObject({ value: 56_898e6, derived: true, source_accession: "0001652044-21-000010" });
    // TTM to 2021-06-30 as of its 10-Q of 2021-07-28 (0001652044-21-000047): 46,173 (the third quarter of 2020, 10-Q
    // 0001652044-20-000050) + 56,898 + 55,314 (10-Q 0001652044-21-000020) + 61,880.
    expect(asOf("0001652044", ttmTo("2021-06-30"), "2021-07-28")!.income!.revenue).toMatchObject({ value: 220_265e6, derived: true });
  });

  it("McDonald's TTM to 2009-06-30 as of its first 10-Q in XBRL: the row of twelve months, null with the reason missing_quarter", () => {
    // Its 10-Q of 2009-08-06 (0001193125-09-166658) is its first in XBRL: the second quarter of 2009 and its comparative.
    // The quarters before it came with later filings (the 10-Q of 2010-05-06, 0001193125-10-110148, gave the first
    // quarter of 2009), from which the TTM is 22,556.9 million. On 2009-08-06 a derivation had the quarter alone.
    expect(company("0000063908").periods.find(ttmTo("2009-06-30"))).toMatchObject({ period_start: "2008-07-01", months: 12, income: { revenue: { value: 22_556_900_000 } } });
    const then = asOf("0000063908", ttmTo("2009-06-30"), "2009-08-06")!;
    expect(then).toMatchObject({ period_start: "2008-07-01", source_accession: "0001193125-09-166658", income: { revenue: null, basic_shares: null } });
    expect(then.ttm!.periods.map((p) => `${p.fiscal_quarter} ${p.fiscal_year}`)).toEqual(["Q2 2009"]);
    expect(then.ttm!.unavailable).toContainEqual(expect.objectContaining({ metric: "revenue", reason: "missing_quarter" }));
    expect(asOf("0000063908", ttmTo("2009-06-30"), "2009-08-05")).toBeNull();
  });

  it("Disney's fiscal 2023 dividends: 0 from its 10-K, which has no dividends line; Hertz's 2021, paid in its 10-Qs, stay unknown", () => {
    // Disney paid no dividend from fiscal 2021 to 2023 (its 10-K for 2022, 0001744489-22-000213, tags the year as 0); its
    // 10-K for fiscal 2023 (0001744489-23-000216, 2023-11-21) has no dividends line. The 0 is known from that day, not
    // from the 10-K of 2024-11-14 that shows the year's 0 beside fiscal 2024's 1,366 million.
    expect(asOf("0001744489", span("2022-10-02", "2023-09-30"), "2023-11-21")!.cash_flow!.dividends_paid).toMatchObject({ value: 0, derived: true, source_accession: "0001744489-23-000216" });
    // Hertz's 10-Qs of 2021 tag 239 million of dividends for the half and the nine months; its 10-K for 2021
    // (0001657853-22-000012) tags none for any year: the line moved out of the concepts read, so the year is not 0.
    expect(row("0001657853", "2021-01-01", "2021-12-31").p.cash_flow!.dividends_paid).toBeNull();
  });

  it("Home Depot's second quarter of fiscal 2009: repurchases null with the reason, its fourth quarter derived", () => {
    // Its first XBRL 10-Q (0000950123-09-040859, the half to 2009-08-02) tags no repurchases; the 10-Q of December 2009
    // (0001193125-09-246720) 98 million for nine months, the 10-K for fiscal 2009 (0001193125-10-067178) 213 million.
    const q2 = row("0000354950", "2009-05-04", "2009-08-02");
    expect(q2.p.cash_flow!.share_repurchases).toBeNull();
    expect(q2.p.unavailable).toContainEqual(expect.objectContaining({ metric: "share_repurchases", reason: "not_derivable" }));
    expect(row("0000354950", "2009-11-02", "2010-01-31").p.cash_flow!.share_repurchases).toMatchObject({ value: 115e6, derived: true });
  });

  it("Disney's second quarter of fiscal 2019: continuing operations' throughout, the first quarter's zero discontinued line kept apart", () => {
    // The 10-Q of 2020-02-04 (0001744489-20-000046) tags the first quarter of fiscal 2019, 2,099 million, as continuing
    // operations' with discontinued operations' 0 beside it; the 10-Q of 2019-05-08 (0001744489-19-000100) the half,
    // 6,014 million, with discontinued operations' −35 million. Q2 = 6,014 − 2,099 = 3,915, in one concept.
    expect(row("0001744489", "2018-12-30", "2019-03-30").p.cash_flow!.operating_cash_flow).toMatchObject({
      value: 3_915e6,
      concept: "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
      derived: true,
    });
  });

  it("Disney's fourth quarter of fiscal 2024: continuing operations' beside a zero discontinued line is the total its 10-Qs tagged", () => {
    // The 10-K for fiscal 2024 (0001744489-24-000276, 2024-11-14) tags the year's operating cash flow, 13,971 million,
    // as continuing operations' with discontinued operations' 0; the 10-Q of August 2024 (0001744489-24-000232) the nine
    // months, 8,453 million, as the total. Q4 = 13,971 − 8,453 = 5,518 from the 10-K's day, not from the 10-K of a year
    // later that re-tagged the year as the total.
    expect(asOf("0001744489", span("2024-06-30", "2024-09-28"), "2024-11-14")!.cash_flow!.operating_cash_flow).toMatchObject({ value: 5_518e6, derived: true, source_accession: "0001744489-24-000276" });
    // TTM to 2024-12-28 as of its 10-Q of 2025-02-05 (0001744489-25-000067): 3,666 (the half, 5,851, − the first quarter,
    // 2,185) + 2,602 (8,453 − 5,851) + 5,518 + 3,205.
    expect(asOf("0001744489", ttmTo("2024-12-28"), "2025-02-05")!.cash_flow!.operating_cash_flow).toMatchObject({ value: 14_991e6, derived: true });
  });

  it("Apple fiscal 2016 operating cash flow: continuing operations' total and the total are one line, restated like any", () => {
    // 10-K 0001628280-16-020309: 65,824 under NetCashProvidedByUsedInOperatingActivitiesContinuingOperations, with no
    // discontinued operations' line (Apple tags none); the 10-K of 2017-11-03 (0000320193-17-000070) re-reports it
    // under NetCashProvidedByUsedInOperatingActivities, and the 10-K of 2018-11-05 (0000320193-18-000145) states 66,231
    // (its cash flow statement, "Cash generated by operating activities", 2016 column, after ASU 2016-09).
    const fy = row("0000320193", "2015-09-27", "2016-09-24");
    expect(fy.p.cash_flow!.operating_cash_flow).toMatchObject({
      value: 66_231e6,
      concept: "us-gaap:NetCashProvidedByUsedInOperatingActivities",
      source_accession: "0000320193-18-000145",
      restated: true,
      original_value: 65_824e6,
      original_accession: "0001628280-16-020309",
    });
    expect(fy.h.filed?.operating_cash_flow).toBeUndefined(); // every filed value was served in its day
    const listed = financialAsOf(fy.p, fy.h, LATEST, true)!.cash_flow!.operating_cash_flow!.history!;
    expect(listed.map((e) => [e.value, e.accession])).toEqual([
      [65_824e6, "0001628280-16-020309"],
      [65_824e6, "0000320193-17-000070"],
      [66_231e6, "0000320193-18-000145"],
    ]);
    // The 10-Qs of fiscal 2016 were never restated: the year no longer adds up, and says so.
    expect(fy.p.reconciliation).toContainEqual({ metric: "operating_cash_flow", quarters_sum: 65_824e6, year_value: 66_231e6, difference: -407e6 });
    // As of 2017-12-31 the 2018 filing is not known: the year is 65,824.
    expect(financialAsOf(fy.p, fy.h, "2017-12-31", true)!.cash_flow!.operating_cash_flow).toMatchObject({ value: 65_824e6, source_accession: "0000320193-17-000070" });
  });
});
