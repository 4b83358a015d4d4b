// Point in time on the real files: an answer as of a date uses only filings accepted by then, in every field — a TTM
// row's block (its periods' filings, what is null and why) included, read as of the date, never copied from today's.
import { expect, it } from "vitest";
import { LATEST, periodAsOf } from "../../schemas/earnings-history.ts";
import { financialAsOf, financialsContext } from "../../schemas/financials-history.ts";
import { METRIC_NAMES, type Metric } from "../../schemas/earnings.ts";
import { STATEMENT_METRICS, STATEMENTS, type FinancialPeriod } from "../../schemas/financials.ts";
import { TTM_SUMMED } from "../../schemas/financials-ttm.ts";
import { describeEdgar, listEdgar, readEdgar } from "../../test/_edgar.ts";
import { readCompanyFacts } from "./company-facts.ts";
import { deriveEarningsBase } from "./earnings.ts";
import { deriveFinancials } from "./statements.ts";
import { ADDITIVE } from "./statement-rows.ts";

const FOLDER = "api/xbrl/companyfacts";
type RawFile = { facts: Record<string, Record<string, { units: Record<string, { accn: string; filed: string }[]> }>> };

function derive(text: string) {
  const facts = readCompanyFacts(text);
  const base = deriveEarningsBase(facts);
  const { periods, history } = deriveFinancials(facts, base);
  return { earnings: base.series, periods, history, context: financialsContext(periods, history) };
}

function load(file: string) {
  const text = readEdgar(`${FOLDER}/${file}`);
  return { text, raw: JSON.parse(text) as RawFile, ...derive(text) };
}

/** The company facts as they stood on a date: only facts of filings accepted by then. */
function asFiledBy(raw: RawFile, date: string): string {
  const cut = structuredClone(raw);
  for (const concepts of Object.values(cut.facts)) for (const concept of Object.values(concepts)) for (const unit of Object.keys(concept.units)) concept.units[unit] = concept.units[unit]!.filter((f) => f.filed <= date);
  return JSON.stringify(cut);
}

/** When each filing of the file was accepted (its facts' `filed`). */
function filedDates(raw: RawFile): Map<string, string> {
  const out = new Map<string, string>();
  for (const concepts of Object.values(raw.facts)) for (const concept of Object.values(concepts)) for (const list of Object.values(concept.units)) for (const f of list) if (!out.has(f.accn) || f.filed < out.get(f.accn)!) out.set(f.accn, f.filed);
  return out;
}

const ACCESSION = /\d{10}-\d{2}-\d{6}/g;

describeEdgar("as of a date, only filings accepted by then", () => {
  it("the summed flows are the reconciliation's additive ones", () => {
    expect([...TTM_SUMMED]).toEqual([...ADDITIVE]);
  });

  it("Apple's TTM to 2020-06-27: weighted shares and EPS from counts of one basis, null once the 4-for-1 split's filings mixed them", () => {
    // As of 2020-07-31 (thousands of shares): fiscal 2019 diluted 4,648,913 over 364 days (10-K 0000320193-19-000119),
    // its nine months 4,691,759 and fiscal 2020's 4,404,695 over 273 each (10-Q 0000320193-20-000062) = 4,433,615;
    // basic 4,617,834, 4,660,175, 4,362,571 = 4,394,631. Net income 58,424 ($ millions) → diluted EPS 13.18, basic 13.29.
    // The 10-K of 2020-10-30 (0000320193-20-000096) re-reported fiscal 2019 on the split basis (diluted 18,595,651);
    // the nine months of 2019 never were: from then the counts are of two bases, and the TTM's are null, with why.
    const { periods, history, context } = load("CIK0000320193.json");
    const i = periods.findIndex((p) => p.ttm && p.period_end === "2020-06-27");
    const then = financialAsOf(periods[i]!, history[i]!, "2020-07-31", false, context)!;
    expect(then.income!.diluted_shares).toMatchObject({ value: 4_433_615_000, derived: true, source_accession: "0000320193-20-000062" });
    expect(then.income!.basic_shares!.value).toBe(4_394_631_000);
    expect([then.income!.eps_diluted!.value, then.income!.eps_basic!.value]).toEqual([13.18, 13.29]);
    expect(then.ttm!.unavailable).toEqual([]);
    for (const date of ["2020-10-30", LATEST]) {
      const later = financialAsOf(periods[i]!, history[i]!, date, false, context)!;
      expect(later.income!.net_income!.value).toBe(58_424e6);
      expect([later.income!.diluted_shares, later.income!.eps_diluted, later.income!.basic_shares, later.income!.eps_basic]).toEqual([null, null, null, null]);
      expect(later.ttm!.unavailable.map((u) => [u.metric, u.reason])).toEqual([
        ["basic_shares", "split_basis"],
        ["eps_basic", "split_basis"],
        ["diluted_shares", "split_basis"],
        ["eps_diluted", "split_basis"],
      ]);
      expect(later.ttm!.unavailable[0]!.message).toContain("the stock split of 2020-10-30");
    }
  });

  it("Apple's TTM to 2016-12-31 as of 2017-03-01: fiscal 2016 still added up, so dividends are summed; only filings of then are named", () => {
    // Dividends paid by quarter, all in the 10-Q of 2017-02-01 (0001628280-17-000717): 2,879 (Q2 2016), 3,117 (Q3),
    // 3,071 (Q4), 3,042 (Q1 2017) = 12,109 ($ millions). Fiscal 2016's 11,965 (10-K 0001628280-16-020309) was its
    // quarters' sum (2,898 + 2,879 + 3,117 + 3,071) until the 10-K of 2017-11-03 (0000320193-17-000070) restated the
    // year to 12,150 and no quarter: from then its quarters miss the year, and the TTM is null with that reason.
    const { periods, history, context } = load("CIK0000320193.json");
    const i = periods.findIndex((p) => p.ttm && p.period_end === "2016-12-31");
    const then = financialAsOf(periods[i]!, history[i]!, "2017-03-01", false, context)!;
    expect(then.cash_flow!.dividends_paid).toMatchObject({ value: 12_109e6, derived: true, source_accession: "0001628280-17-000717" });
    expect(then.ttm!.unavailable).toEqual([]);
    expect(then.ttm!.periods.map((p) => p.accessions)).toEqual([
      ["0001193125-16-559625", "0001628280-16-020309", "0001628280-17-000717"],
      ["0001628280-16-017809", "0001628280-16-020309", "0001628280-17-000717"],
      ["0001628280-16-020309", "0001628280-17-000717"],
      ["0001628280-17-000717"],
    ]);
    const before = financialAsOf(periods[i]!, history[i]!, "2017-11-02", false, context)!;
    expect(before.cash_flow!.dividends_paid!.value).toBe(12_109e6);
    const after = financialAsOf(periods[i]!, history[i]!, "2017-11-03", false, context)!;
    expect(after.cash_flow!.dividends_paid).toBeNull();
    // The difference is fiscal 2016's own reconciliation as of that day (its quarters as derived then, less 12,150).
    const y = periods.findIndex((p) => !p.ttm && p.period_end === "2016-09-24" && p.months === 12);
    const miss = financialAsOf(periods[y]!, history[y]!, "2017-11-03", false, context)!.reconciliation.find((r) => r.metric === "dividends_paid")!;
    expect(miss.year_value).toBe(12_150e6);
    expect(after.ttm!.unavailable).toContainEqual({ metric: "dividends_paid", reason: "unreconciled", message: expect.stringContaining(`fiscal 2016's quarters miss its year by ${miss.difference} `) });
    expect(financialAsOf(periods[y]!, history[y]!, "2017-03-01", false, context)!.reconciled).toBe(true);
    // Today's row is the stored one, and the same reading without a date.
    expect(financialAsOf(periods[i]!, history[i]!, LATEST, false, context)).toEqual(periods[i]);
    expect(periods[i]!.cash_flow!.dividends_paid).toBeNull();
  });

  it.each(listEdgar(FOLDER))("%s: every filing an as-of answer names was accepted by that date (earnings and financials, TTM blocks too)", (file) => {
    const { raw, earnings, periods, history, context } = load(file);
    const filed = filedDates(raw);
    const dates = [...new Set(periods.map((p) => p.filed_at))].sort().filter((_, k) => k % 5 === 2);
    const late = (row: unknown, date: string) => [...JSON.stringify(row).matchAll(ACCESSION)].map((m) => m[0]).filter((a) => (filed.get(a) ?? LATEST) > date);
    for (const date of dates) {
      earnings.periods.forEach((p, k) => {
        const row = periodAsOf(p, earnings.history[k]!, date, true);
        if (row) expect(late(row, date), `earnings ${p.period_start}..${p.period_end} as of ${date}`).toEqual([]);
      });
      periods.forEach((p, k) => {
        const row = financialAsOf(p, history[k]!, date, true, context);
        if (row) expect(late(row, date), `financials ${p.period_start}..${p.period_end}${p.ttm ? " TTM" : ""} as of ${date}`).toEqual([]);
      });
    }
  });

  it.each(listEdgar(FOLDER))(
    "%s: every value as of a date is the one a derivation from the company facts as filed by then gives (its concept, filing and derived mark too; a TTM's gaps, the reasons of nulls, a year's verdict, the period's derived and split marks), in the earnings and the statements",
    (file) => {
      const { raw, earnings, periods, history, context } = load(file);
      const key = (p: { period_start: string; period_end: string; months: number; ttm?: unknown }) => `${p.period_start}/${p.period_end}/${p.months}${p.ttm ? "/ttm" : ""}`;
      const metric = (m: (Metric & { split_unadjusted?: boolean }) | null | undefined) =>
        m ? `${m.value} ${m.concept} ${m.source_accession}${m.derived ? " derived" : ""}${m.restated ? " restated" : ""}${m.split_unadjusted ? " split_unadjusted" : ""}` : null;
      // A TTM's gaps by metric and reason: their messages name fiscal years by today's labels (labels are as today).
      const gaps = (r: FinancialPeriod) => r.ttm?.unavailable.map((u) => `${u.metric} ${u.reason}`) ?? null;
      // The period's own marks. Not compared: a value of unclear scale as of a date that later filings resolved (the
      // scale checks weigh every filing: the `scale` exception is today's verdict, documented as such).
      const marks = (r: { derived: boolean; split_unadjusted: boolean; reconciled: boolean | null; exceptions: { rule: string; metric?: string | null }[] }) =>
        [r.derived && "derived", r.split_unadjusted && "split_unadjusted", `reconciled ${r.reconciled}`, ...r.exceptions.filter((e) => e.rule !== "scale").map((e) => `${e.rule} ${e.metric ?? ""}`)].filter(Boolean);
      const dates = [...new Set(periods.map((p) => p.filed_at))].sort().filter((_, k) => k % 6 === 2);
      let compared = 0;
      for (const date of dates) {
        const derived = derive(asFiledBy(raw, date));
        const thenEarnings = new Map(derived.earnings.periods.map((p) => [key(p), p]));
        earnings.periods.forEach((p, k) => {
          const other = thenEarnings.get(key(p));
          const row = other && periodAsOf(p, earnings.history[k]!, date, false);
          if (!other || !row) return;
          const where = `earnings ${key(p)} as of ${date}`;
          for (const name of METRIC_NAMES) expect(metric(row.metrics[name]), `${name} ${where}`).toBe(metric(other.metrics[name]));
          expect(marks(row), where).toEqual(marks(other));
        });
        const then = new Map(derived.periods.map((p) => [key(p), p]));
        periods.forEach((p, k) => {
          const other = then.get(key(p));
          const row = other && financialAsOf(p, history[k]!, date, false, context);
          if (!other || !row) return;
          const where = `${key(p)} as of ${date}`;
          for (const statement of STATEMENTS) {
            for (const name of STATEMENT_METRICS[statement]) {
              compared++;
              expect(metric(row[statement]?.[name as never]), `${name} ${where}`).toBe(metric(other[statement]?.[name as never]));
            }
          }
          expect(gaps(row), `TTM gaps ${where}`).toEqual(gaps(other));
          expect(row.unavailable, `reasons of nulls ${where}`).toEqual(other.unavailable);
          expect(marks(row), where).toEqual(marks(other));
        });
      }
      expect(compared).toBeGreaterThan(100);
    },
  );

  it("McDonald's fourth quarter of 2009: derived (the year − nine months) until a filing reported the quarter itself", () => {
    // Revenue 5,973.4 ($ millions): computed from the 10-K of 2010-02-26 (0001193125-10-042025) on; the 10-K of
    // 2011-02-25 (0001193125-11-046701) reports the quarter, with its EPS (diluted 1.11).
    const { earnings } = load("CIK0000063908.json");
    const q = earnings.periods.findIndex((p) => p.period_start === "2009-10-01" && p.period_end === "2009-12-31");
    const asOf = (date: string) => periodAsOf(earnings.periods[q]!, earnings.history[q]!, date, false)!;
    expect(asOf("2010-11-05")).toMatchObject({ derived: true, metrics: { revenue: { value: 5973.4e6, derived: true }, eps_diluted: null } });
    expect(asOf("2011-02-25")).toMatchObject({ derived: false, metrics: { revenue: { value: 5973.4e6, derived: false }, eps_diluted: { value: 1.11 } } });
    expect(earnings.periods[q]!.derived).toBe(false);
  });

  it("Apple's current debt at the end of fiscal 2013 as of 2014-08-01: the 10-Q of July 2014's commercial paper, which the next 10-K reported again", () => {
    // The 10-K for fiscal 2013 (filed 2013-10-30) tags no short-term debt; the 10-Q filed 2014-07-23
    // (0001193125-14-277160) first tags us-gaap:CommercialPaper at 2013-09-28, 0 (no paper then); the 10-K filed
    // 2014-10-27 (0001193125-14-383437) reports that year end again. A year end is served from annual reports from
    // the first on, and before it from what other filings reported, as it was on those dates.
    const { periods, history, context } = load("CIK0000320193.json");
    const y = periods.findIndex((p) => !p.ttm && p.period_end === "2013-09-28" && p.months === 12);
    const asOf = (date: string) => financialAsOf(periods[y]!, history[y]!, date, false, context)!.balance!.debt_current;
    expect(asOf("2014-07-22")).toBeNull();
    expect(asOf("2014-08-01")).toMatchObject({ value: 0, concept: "us-gaap:CommercialPaper", source_accession: "0001193125-14-277160", form: "10-Q" });
    expect(asOf(LATEST)).toMatchObject({ value: 0, concept: "us-gaap:CommercialPaper", source_accession: "0001193125-14-383437", form: "10-K" });
  });

  it("SunEdison's fourth quarter of 2014: the year − the half − the third quarter from the 10-K, the year − the nine months once a 10-Q tagged them", () => {
    // Net income (us-gaap:NetIncomeLoss, $ millions): fiscal 2014 −1,180.4 (10-K 0000945436-15-000049, 2015-03-02); the
    // half −654.8 (10-Q 0000945436-14-000158) and the third quarter −283.4 (10-Q 0000945436-14-000183), whose nine months
    // were tagged only as ProfitLoss and NetIncomeLossAvailableToCommonStockholdersBasic; the 10-Q of 2015-11-09
    // (0000945436-15-000274) tags the nine months in NetIncomeLoss, −939.0. So −242.2 from the 10-K on (a 10-Q
    // re-reporting the half in August 2015 is of a later basis than the year: the difference stands), −241.4 from
    // November 2015.
    const { periods, history, context } = load("CIK0000945436.json");
    const q4 = periods.findIndex((p) => !p.ttm && p.period_start === "2014-10-01" && p.period_end === "2014-12-31" && p.months === 3);
    const asOf = (date: string) => financialAsOf(periods[q4]!, history[q4]!, date, false, context)?.income!.net_income ?? null;
    expect(asOf("2015-03-01")).toBeNull();
    expect(asOf("2015-08-06")).toMatchObject({ value: -242.2e6, derived: true, source_accession: "0000945436-15-000049" });
    expect(asOf(LATEST)).toMatchObject({ value: -241.4e6, derived: true, source_accession: "0000945436-15-000274" });
  });

  it("Hertz's quarter to 2018-06-30: capital expenditure's reason for being null is given from the day the quarter has the operating cash flow it is weighed against", () => {
    // Hertz tags only its non-vehicle capex in a standard concept (PaymentsToAcquireOtherPropertyPlantAndEquipment, first
    // for 2018 in the 10-Q of 2018-05-07): capex is null with partial_capital_expenditure wherever the row has operating
    // cash flow. This quarter's (derived: the half − the first quarter) is first known from the 10-Q of 2018-08-06
    // (0001657853-18-000057): its half, 942 million, less the first quarter's 401 million, which the 10-Q of 2018-05-07
    // tags as continuing operations' cash flow beside no discontinued operations' (the same line, StatementSpec.sameLine).
    const { periods, history, context } = load("CIK0001657853.json");
    const q = periods.findIndex((p) => !p.ttm && p.period_start === "2018-04-01" && p.period_end === "2018-06-30");
    const asOf = (date: string) => financialAsOf(periods[q]!, history[q]!, date, false, context)!;
    expect(financialAsOf(periods[q]!, history[q]!, "2018-08-05", false, context)).toBeNull(); // the quarter's own 10-Q comes the next day
    expect(asOf("2018-08-06").cash_flow!.operating_cash_flow).toMatchObject({ value: 541e6, derived: true, source_accession: "0001657853-18-000057" });
    expect(asOf("2018-08-06").unavailable.map((u) => [u.metric, u.reason])).toEqual([
      ["capital_expenditure", "partial_capital_expenditure"],
      ["free_cash_flow", "partial_capital_expenditure"],
    ]);
    expect(periods[q]!.unavailable).toEqual(asOf(LATEST).unavailable);
  });

  it("SunEdison's current debt at the end of 2013: the 10-K's line, counted by the formula, until a 10-Q tagged the total", () => {
    // The 10-K for 2013 (0000945436-14-000023, 2014-03-06) tags no us-gaap:DebtCurrent, only the current portion of
    // long-term debt and capital leases, 2.8 million (the formula's one line it has); the 10-Q of 2014-11-05
    // (0000945436-14-000183) tags DebtCurrent at 2013-12-31, 37.5 million. A total a filing tags beats any sum of
    // lines — from the day it is filed, not before.
    const { periods, history, context } = load("CIK0000945436.json");
    const y = periods.findIndex((p) => !p.ttm && p.period_end === "2013-12-31" && p.months === 12);
    const asOf = (date: string) => financialAsOf(periods[y]!, history[y]!, date, false, context)!.balance!.debt_current;
    expect(asOf("2014-06-01")).toMatchObject({ value: 2.8e6, concept: "us-gaap:LongTermDebtAndCapitalLeaseObligationsCurrent", source_accession: "0000945436-14-000023" });
    expect(asOf(LATEST)).toMatchObject({ value: 37.5e6, concept: "us-gaap:DebtCurrent", source_accession: "0000945436-14-000183", original_value: 2.8e6 });
  });
});

describeEdgar("split_unadjusted as of a date: never before the split happened", () => {
  it("SUNation's 1-for-3 reverse split of 2022: fiscal 2021 flagged from the second period re-reported on the new basis, not the first", () => {
    // Diluted shares for 2021's first quarter: 9,332,589 (10-Q 0000897101-21-000381), 3,074,998 in the 10-Q of
    // 2022-05-23 (0000022701-22-000009) — one period at a ratio of ~3 is no split yet (a restatement can do that); the
    // 10-Q of 2022-08-22 (0000022701-22-000012) re-reports the half and the second quarter too (9,397,582 and 9,461,861
    // → 3,074,998). Fiscal 2021's diluted EPS 0.31 (10-K 0000022701-22-000004, 2022-03-14) predates the split.
    const { earnings } = load("CIK0000022701.json");
    const y = earnings.periods.findIndex((p) => p.period_start === "2021-01-01" && p.period_end === "2021-12-31");
    expect(earnings.history[y]!.splits?.[0]).toBe("2022-05-23"); // the first new-basis filing: values before it are old-basis
    const flag = (date: string) => periodAsOf(earnings.periods[y]!, earnings.history[y]!, date, false)!;
    expect(flag("2022-08-21")).toMatchObject({ split_unadjusted: false, metrics: { eps_diluted: { value: 0.31 } } });
    expect(flag("2022-08-22")).toMatchObject({ split_unadjusted: true, metrics: { eps_diluted: { value: 0.31 } } });
  });

  it("Apple's quarter to 2008-06-28: flagged from its 7-for-1 split's first new-basis filing (2014-07-23), not before, in earnings and statements", () => {
    const { earnings, periods, history, context } = load("CIK0000320193.json");
    // Its diluted EPS of 1.19 was last filed in the 10-Q of 2009-07-22 (0001193125-09-153165), before the 7-for-1 split
    // of June 2014, whose first new-basis filing is the 10-Q of 2014-07-23 (its comparatives re-reported at 1/7).
    const e = earnings.periods.findIndex((p) => p.period_end === "2008-06-28" && p.fiscal_quarter === "Q3" && p.period_start === "2008-03-30");
    expect(earnings.periods[e]!.metrics.eps_diluted).toMatchObject({ value: 1.19, filed_at: "2009-07-22" });
    expect(earnings.periods[e]!.split_unadjusted).toBe(true);
    const flag = (date: string) => periodAsOf(earnings.periods[e]!, earnings.history[e]!, date, false)!.split_unadjusted;
    expect([flag("2010-01-01"), flag("2014-07-22"), flag("2014-07-23"), flag(LATEST)]).toEqual([false, false, true, true]);
    const f = periods.findIndex((p) => p.period_start === "2008-03-30" && p.period_end === "2008-06-28" && p.months === 3);
    const statementFlag = (date: string) => financialAsOf(periods[f]!, history[f]!, date, false, context)!.split_unadjusted;
    expect([statementFlag("2014-07-22"), statementFlag("2014-07-23"), statementFlag(LATEST)]).toEqual([false, true, true]);
  });
});
