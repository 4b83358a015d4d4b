import { expect, it } from "vitest";
import { LATEST, periodAsOf } from "../../schemas/earnings-history.ts";
import { EarningsPeriod, type Metric, type MetricName } from "../../schemas/earnings.ts";
import { describeEdgar, listEdgar, readEdgar } from "../../test/_edgar.ts";
import { PERIODIC_FORM } from "../forms.ts";
import { readCompanyFacts } from "./company-facts.ts";
import { EARNINGS_CONCEPTS, METRIC_CONCEPTS } from "./concepts.ts";
import { deriveEarningsBase } from "./earnings.ts";
import { checkInvariants } from "./invariants.ts";
import { addDays } from "./periods.ts";

const FOLDER = "api/xbrl/companyfacts";
const PERIODIC = /^(10-K|10-Q|20-F|40-F|10-KT|10-QT)(\/A)?$/;

interface RawFact {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy?: number | null;
  fp?: string | null;
  form: string;
  filed: string;
  frame?: string;
}
type RawFile = { cik: number; entityName: string; facts: Record<string, Record<string, { units: Record<string, RawFact[]> }>> };

describeEdgar("the earnings of every company facts file of the fixtures", () => {
  const files = listEdgar(FOLDER);
  const load = (file: string) => {
    const text = readEdgar(`${FOLDER}/${file}`);
    const { periods, history } = deriveEarningsBase(readCompanyFacts(text)).series;
    return { raw: JSON.parse(text) as RawFile, periods, history };
  };

  it.each(files)("%s: unique (start, end), valid, newest first, traceable to periodic filings in the file", (file) => {
    const { raw, periods } = load(file);
    expect(periods.length).toBeGreaterThan(0);
    const keys = periods.map((p) => `${p.period_start}/${p.period_end}`);
    expect(new Set(keys).size).toBe(keys.length);
    const accessions = new Set(allFacts(raw).map(({ fact }) => fact.accn));
    for (const [i, p] of periods.entries()) {
      EarningsPeriod.parse(p);
      expect(accessions.has(p.source_accession)).toBe(true);
      expect(p.form).toMatch(PERIODIC);
      const next = periods[i + 1];
      if (next) expect(p.period_end > next.period_end || (p.period_end === next.period_end && p.duration_days < next.duration_days)).toBe(true);
      for (const m of metricsOf(p)) {
        expect(accessions.has(m.source_accession)).toBe(true);
        if (m.original_accession) expect(accessions.has(m.original_accession)).toBe(true);
        expect(m.form).toMatch(PERIODIC);
        expect(m.filed_at <= p.filed_at).toBe(true);
      }
    }
  });

  it.each(files)("%s: every series invariant holds or is a marked, explained exception", (file) => {
    const { periods } = load(file);
    const violations = checkInvariants(periods, METRIC_CONCEPTS);
    expect(violations.filter((v) => !v.marked)).toEqual([]);
    for (const p of periods) {
      for (const e of p.exceptions) expect(e.message.length).toBeGreaterThan(20);
      if (p.reconciled === false) expect(p.reconciliation.length).toBeGreaterThan(0);
      if (p.months !== 12) expect([p.reconciled, p.reconciliation]).toEqual([null, []]);
    }
    // The invariants by name, checked independently of the checker: unique labels, one period per span.
    const labels = periods.map((p) => `${p.fiscal_year} ${p.fiscal_quarter} ${p.months}`);
    const marked = (p: EarningsPeriod, rule: string) => p.exceptions.some((e) => e.rule === rule);
    const duplicated = labels.filter((l, i) => labels.indexOf(l) !== i);
    expect(periods.filter((p, i) => duplicated.includes(labels[i]!) && !marked(p, "unique_labels"))).toEqual([]);
    for (const a of periods) {
      const close = periods.filter((b) => b !== a && b.months === a.months && Math.abs(Date.parse(b.period_end) - Date.parse(a.period_end)) <= 7 * 86_400_000);
      if (close.length) expect(marked(a, "one_period_per_span")).toBe(true);
    }
  });

  it.each(files)("%s: each row is its history read as of today; fiscal years before any filing are absent", (file) => {
    const { periods, history } = load(file);
    expect(history).toHaveLength(periods.length);
    periods.forEach((p, i) => expect(periodAsOf(p, history[i]!, LATEST, false)).toEqual(p));
    const first = periods.reduce((min, p) => Object.values(p.metrics).reduce((m, x) => (x && x.filed_at < m ? x.filed_at : m), min), "9999");
    expect(periods.filter((p, i) => periodAsOf(p, history[i]!, first, false) !== null).length).toBeGreaterThan(0);
    expect(periods.filter((p, i) => periodAsOf(p, history[i]!, "1990-01-01", false) !== null)).toEqual([]);
  });

  it.each(files)("%s: each label comes from the earliest periodic filing whose own latest duration end is the period end", (file) => {
    const { raw, periods } = load(file);
    // Independently of the code under test: each filing's own period end is the latest end of its duration facts
    // among the earnings concepts (all concepts would not do: Walmart's 2011–12 10-Ks carry guidance durations).
    const own = new Map<string, { end: string; filed: string }>();
    for (const { key, fact } of allFacts(raw)) {
      if (!EARNINGS_CONCEPTS.has(key) || !fact.start || !PERIODIC.test(fact.form)) continue;
      const seen = own.get(fact.accn);
      if (!seen || fact.end > seen.end) own.set(fact.accn, { end: fact.end, filed: fact.filed });
    }
    const labelled = periods.filter((p) => p.label_accession !== null);
    expect(labelled.length).toBeGreaterThan(periods.length / 2);
    for (const p of labelled) {
      expect(own.get(p.label_accession!)?.end).toBe(p.period_end);
      const earlier = [...own].filter(([accn, o]) => o.end === p.period_end && (o.filed < own.get(p.label_accession!)!.filed || (o.filed === own.get(p.label_accession!)!.filed && accn < p.label_accession!)));
      expect(earlier).toEqual([]);
      expect(p.label_inferred).toBe(false);
    }
  });

  it.each(files)("%s: every period's calendar_frame is the frame EDGAR gives a fact of that span, wherever it gives one", (file) => {
    const { raw, periods } = load(file);
    const frames = new Map<string, string>();
    for (const { fact } of allFacts(raw)) if (fact.start && fact.frame) frames.set(`${fact.start}/${fact.end}`, fact.frame);
    const compared = periods.filter((p) => frames.has(`${p.period_start}/${p.period_end}`));
    expect(compared.map((p) => [p.period_start, p.period_end, p.calendar_frame])).toEqual(compared.map((p) => [p.period_start, p.period_end, frames.get(`${p.period_start}/${p.period_end}`)]));
    expect(compared.length).toBeGreaterThan(0);
  });

  it.each(files)("%s: every value filed as is equals the fact EDGAR frames for its span, concept and unit, unless EDGAR's filing is no periodic report or gave the metric in another concept", (file) => {
    // EDGAR's frame marks the last-filed fact of a span: our latest periodic value, except where
    // - a later proxy statement or 8-K restated it (pitfall 8: McDonald's DEF 14A of 2026-04-07, SunEdison's 8-K/A
    //   of 2015-07-07), or the value was a unit-scale slip we corrected;
    // - that filing's own figure for the metric is another concept's (Under Armour's 10-K of 2018-02-28 gave 2015's
    //   total revenues 3,963,313 as SalesRevenueNet and its goods alone, 3,825,691, as SalesRevenueGoodsNet, the
    //   concept its earlier 10-Ks gave the total in: the year's concept keeps the earlier filings' total).
    const { raw, periods, history } = load(file);
    const framed = new Map<string, RawFact>();
    for (const { key, fact, unit } of allFacts(raw)) if (fact.start && fact.frame) framed.set(`${key}/${unit}/${fact.start}/${fact.end}`, fact);
    let compared = 0;
    for (const [i, p] of periods.entries()) {
      for (const [name, m] of Object.entries(p.metrics) as [MetricName, Metric | null][]) {
        const fact = m && !m.derived ? framed.get(`${m.concept}/${m.unit}/${p.period_start}/${p.period_end}`) : undefined;
        if (!fact || m!.scale_corrected || !PERIODIC_FORM.test(fact.form)) continue;
        if (history[i]!.filed?.[name]?.some((e) => e.accession === fact.accn && e.concept !== m!.concept)) continue;
        expect([name, p.period_end, m!.value], fact.accn).toEqual([name, p.period_end, fact.val]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(0);
  });

  it.each(files)("%s: labels do not change when later filings re-report the period", (file) => {
    const { raw, periods } = load(file);
    const filed = [...new Set(allFacts(raw).map(({ fact }) => fact.filed))].sort();
    const cutoff = filed[Math.floor(filed.length * 0.6)]!;
    const early = deriveEarningsBase(readCompanyFacts(JSON.stringify(filterFiled(raw, cutoff)))).series.periods;
    const later = new Map(periods.map((p) => [`${p.period_start}/${p.period_end}`, p]));
    let compared = 0;
    for (const p of early.filter((e) => !e.label_inferred)) {
      const now = later.get(`${p.period_start}/${p.period_end}`)!;
      expect([now.fiscal_year, now.fiscal_quarter, now.label_accession]).toEqual([p.fiscal_year, p.fiscal_quarter, p.label_accession]);
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
  });

  it.each(files)("%s: a derived Q4 is the fiscal year minus its nine months of the same vintage, to the unit", (file) => {
    const { periods, history } = load(file);
    const byKey = new Map(periods.map((p) => [`${p.period_start}/${p.period_end}`, p]));
    for (const q4 of periods.filter((p) => p.derived)) {
      expect([q4.months, q4.fiscal_quarter]).toEqual([3, "Q4"]);
      expect([q4.metrics.eps_basic, q4.metrics.diluted_shares]).toEqual([null, null]);
      const y = periods.findIndex((p) => p.months === 12 && p.period_end === q4.period_end);
      const year = periods[y]!;
      expect(q4.fiscal_year).toBe(year.fiscal_year);
      const nine = byKey.get(`${year.period_start}/${addDays(q4.period_start, -1)}`);
      for (const name of ["revenue", "net_income"] as const) {
        const [fy, ytd, derived] = [year.metrics[name], nine?.metrics[name], q4.metrics[name]];
        if (derived) expect(derived.derived).toBe(true);
        if (!fy || !ytd || !derived || fy.concept !== ytd.concept) continue;
        // The year and nine months subtracted are values their own histories held (one vintage): today's unless the
        // year was restated after the nine months were last reported (Apple's fiscal 2008), or the nine months after the
        // year with no restated year since (SunEdison's 2014, restated by its 10-Q of November 2015 and no later 10-K).
        const yearValues = history[y]!.metrics[name]!.map((e) => e.value);
        const nineValues = history[periods.indexOf(nine!)]!.metrics[name]!.map((e) => e.value);
        expect(yearValues.some((v) => nineValues.includes(v - derived.value))).toBe(true);
        // Never re-reported at another value (not even rounded: McDonald's 2022 revenue, 23,182.6 until its 10-K of
        // 2025 gave 23,183), the served values are the vintage's.
        if (yearValues.every((v) => v === fy.value) && nineValues.every((v) => v === ytd.value)) expect(derived.value).toBe(fy.value - ytd.value);
      }
    }
  });
});

describeEdgar("hand-checked figures", () => {
  const periodsOf = (cik: string) => deriveEarningsBase(readCompanyFacts(readEdgar(`${FOLDER}/CIK${cik}.json`))).series.periods;
  const period = (periods: EarningsPeriod[], start: string, end: string) => {
    const p = periods.find((x) => x.period_start === start && x.period_end === end);
    if (!p) throw new Error(`no period ${start}..${end}`);
    return p;
  };

  it("Apple FY2023: 53-week year, values from the 10-K, labels from the fiscal 2023 10-K", () => {
    const apple = periodsOf("0000320193");
    const fy = period(apple, "2022-09-25", "2023-09-30");
    expect(fy).toMatchObject({ fiscal_year: 2023, fiscal_quarter: "FY", months: 12, duration_days: 371, calendar_frame: "CY2023" });
    expect(fy.label_accession).toBe("0000320193-23-000106"); // the 10-K for fiscal 2023, filed 2023-11-03
    // 10-K for fiscal 2023, Consolidated Statements of Operations: "Total net sales" 383,285; "Net income" 96,995
    // ($ millions); earnings per share basic 6.16, diluted 6.13; shares used in computing them (thousands): basic
    // 15,744,231, diluted 15,812,547 (as the 10-K for fiscal 2025, 0000320193-25-000079, reports them again).
    expect(fy.metrics.revenue).toMatchObject({ value: 383_285_000_000, unit: "USD", restated: false });
    expect(fy.metrics.net_income?.value).toBe(96_995_000_000);
    expect(fy.metrics.eps_diluted).toMatchObject({ value: 6.13, unit: "USD/shares" });
    expect(fy.metrics.eps_basic).toMatchObject({ value: 6.16, unit: "USD/shares" });
    expect(fy.metrics.basic_shares).toMatchObject({ value: 15_744_231_000, unit: "shares", concept: "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic" });
    expect(fy.metrics.diluted_shares).toMatchObject({ value: 15_812_547_000, concept: "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding" });
  });

  it("Apple: the 2020 4-for-1 split — FY2019 EPS re-reported on the new basis, FY2017 flagged", () => {
    const apple = periodsOf("0000320193");
    // 10-K for fiscal 2019: diluted EPS 11.89; 10-K for fiscal 2021 re-reports it as 2.97 after the August 2020 split.
    const fy2019 = period(apple, "2018-09-30", "2019-09-28");
    expect(fy2019.metrics.eps_diluted).toMatchObject({ value: 2.97, restated: true, original_value: 11.89 });
    // Its basic share count likewise: 4,617,834 thousand in the 10-K for fiscal 2019, 18,471,336 (× 4) in fiscal 2021's.
    expect(fy2019.metrics.basic_shares).toMatchObject({ value: 18_471_336_000, restated: true, original_value: 4_617_834_000 });
    expect(fy2019.split_unadjusted).toBe(false);
    // FY2017 diluted EPS 9.21 was last filed in the 10-K for fiscal 2019 (before the split) and never re-reported.
    const fy2017 = period(apple, "2016-09-25", "2017-09-30");
    expect(fy2017.metrics.eps_diluted?.value).toBe(9.21);
    expect(fy2017.split_unadjusted).toBe(true);
  });

  it("Walmart: the year to January 2024 is FY2024; FY2023 EPS restated for the 2024 3-for-1 split", () => {
    const walmart = periodsOf("0000104169");
    const fy2024 = period(walmart, "2023-02-01", "2024-01-31");
    expect(fy2024).toMatchObject({ fiscal_year: 2024, fiscal_quarter: "FY", calendar_frame: "CY2023" });
    // Annual report for fiscal 2024, Consolidated Statements of Income: "Total revenues" 648,125; "Consolidated net
    // income attributable to Walmart" 15,511 ($ millions); diluted EPS 1.91 (after the February 2024 split).
    expect(fy2024.metrics.revenue?.value).toBe(648_125_000_000);
    expect(fy2024.metrics.net_income?.value).toBe(15_511_000_000);
    expect(fy2024.metrics.eps_diluted?.value).toBe(1.91);
    // Fiscal 2023 10-K: diluted EPS 4.27; re-reported as 1.42 on the post-split basis.
    const fy2023 = period(walmart, "2022-02-01", "2023-01-31");
    expect(fy2023).toMatchObject({ fiscal_year: 2023, split_unadjusted: false });
    expect(fy2023.metrics.eps_diluted).toMatchObject({ value: 1.42, restated: true, original_value: 4.27 });
  });

  it("Home Depot: the year to 28 January 2024 is fiscal 2023; the 53-week fiscal 2024 has a 14-week derived Q4", () => {
    const hd = periodsOf("0000354950");
    const fy2023 = period(hd, "2023-01-30", "2024-01-28");
    expect(fy2023).toMatchObject({ fiscal_year: 2023, fiscal_quarter: "FY", duration_days: 364 });
    // Fiscal 2023 10-K, Consolidated Statements of Earnings: "Net sales" 152,669; "Net earnings" 15,143 ($ millions);
    // diluted earnings per share 15.11.
    expect(fy2023.metrics.revenue?.value).toBe(152_669_000_000);
    expect(fy2023.metrics.net_income?.value).toBe(15_143_000_000);
    expect(fy2023.metrics.eps_diluted?.value).toBe(15.11);
    const fy2024 = period(hd, "2024-01-29", "2025-02-02");
    expect(fy2024).toMatchObject({ fiscal_year: 2024, duration_days: 371 });
    // Fiscal 2024 10-K: net sales 159,514; fourth quarter (14 weeks) net sales 39,704 = 159,514 − 119,810 (nine months).
    const q4 = period(hd, "2024-10-28", "2025-02-02");
    expect(q4).toMatchObject({ fiscal_year: 2024, fiscal_quarter: "Q4", months: 3, duration_days: 98, derived: true });
    expect(q4.metrics.revenue).toMatchObject({ value: 39_704_000_000, derived: true });
  });

  it("Disney FY2023 and its derived fourth quarter", () => {
    const disney = periodsOf("0001744489");
    const fy = period(disney, "2022-10-02", "2023-09-30");
    // Fiscal 2023 10-K, Consolidated Statements of Income: "Revenues" 88,898; "Net income attributable to The Walt
    // Disney Company (Disney)" 2,354 ($ millions); diluted EPS 1.29.
    expect(fy).toMatchObject({ fiscal_year: 2023, fiscal_quarter: "FY" });
    expect(fy.metrics.revenue?.value).toBe(88_898_000_000);
    expect(fy.metrics.net_income?.value).toBe(2_354_000_000);
    expect(fy.metrics.eps_diluted?.value).toBe(1.29);
    // Q4 fiscal 2023 (reported in the earnings release): revenues 21,241; net income attributable to Disney 264.
    const q4 = period(disney, "2023-07-02", "2023-09-30");
    expect(q4).toMatchObject({ fiscal_year: 2023, fiscal_quarter: "Q4", derived: true, label_accession: fy.label_accession });
    expect([q4.metrics.revenue?.value, q4.metrics.net_income?.value, q4.metrics.eps_diluted]).toEqual([21_241_000_000, 264_000_000, null]);
    // Disney tagged its fiscal 2022 10-Qs fp=FY; the quarter ending 2022-01-01 is still its fiscal Q1 2022.
    expect(period(disney, "2021-10-03", "2022-01-01")).toMatchObject({ fiscal_year: 2022, fiscal_quarter: "Q1", label_inferred: false });
  });

  it("Under Armour: 10-K/A, the January–March 2022 transition period, and the first March year", () => {
    const ua = periodsOf("0001336917");
    // FY2012: labels from the 10-K filed 2013-02-25, not the 10-K/A filed the next day. 2012 10-K, Consolidated
    // Statements of Income: "Net revenues" 1,834,921 ($ thousands; tagged SalesRevenueGoodsNet by the company).
    const fy2012 = period(ua, "2012-01-01", "2012-12-31");
    expect(fy2012).toMatchObject({ fiscal_year: 2012, label_accession: "0001336917-13-000011" });
    expect(fy2012.metrics.revenue?.value).toBe(1_834_921_000);
    // Transition period (10-QT for January 1 – March 31, 2022), labelled by that 10-QT.
    const transition = period(ua, "2022-01-01", "2022-03-31");
    expect(transition).toMatchObject({ months: 3, fiscal_year: 2022, fiscal_quarter: "Q1", label_accession: "0001336917-22-000017" });
    // FY2023 = April 2022 – March 2023. 10-K filed 2023-05-24: net revenues 5,903,636; revised to 5,903,165 in the
    // 10-K filed 2024-05-29 ($ thousands).
    const fy2023 = period(ua, "2022-04-01", "2023-03-31");
    expect(fy2023).toMatchObject({ fiscal_year: 2023, fiscal_quarter: "FY", label_accession: "0001336917-23-000021" });
    expect(fy2023.metrics.revenue).toMatchObject({
      value: 5_903_165_000,
      restated: true,
      original_value: 5_903_636_000,
      original_accession: "0001336917-23-000021",
    });
  });

  it("SUNation: a figure filed again in thousands is the same figure, not a restatement", () => {
    // Communications Systems' net income for the quarter to 2019-09-30: 1,737,859 in its 10-Q (0000897101-19-000957);
    // its 10-K of 2021-03-31 (0000897101-21-000260) gave 1,737,000 in its quarterly data (thousands).
    const q = period(periodsOf("0000022701"), "2019-07-01", "2019-09-30");
    expect(q.metrics.net_income).toMatchObject({ value: 1_737_000, source_accession: "0000897101-21-000260", restated: false, original_value: null });
  });

  it("Hertz: a weighted count of 0 shares is a filer's slip, never a value", () => {
    const hertz = periodsOf("0001657853");
    // The 10-Q of 2016-08-08 (0001657853-16-000047) tagged diluted shares 0 for the second quarters of 2016 and 2015
    // (and their halves), beside basic-and-diluted counts of 92 million (2015) and 85 million (2016); the 10-Q of
    // 2017-08-08 (0001657853-17-000038) tagged 2016's diluted shares 85 million. No value is 0, nor "restated" from 0.
    const q2015 = period(hertz, "2015-04-01", "2015-06-30");
    expect(q2015.metrics.diluted_shares).toMatchObject({ value: 92_000_000, concept: "us-gaap:WeightedAverageNumberOfShareOutstandingBasicAndDiluted" });
    const q2016 = period(hertz, "2016-04-01", "2016-06-30");
    expect(q2016.metrics.diluted_shares).toMatchObject({ value: 85_000_000, restated: false, original_value: null, source_accession: "0001657853-17-000038" });
  });

  it("Hertz FY2018: EPS restated after the 2019 rights offering", () => {
    const hertz = periodsOf("0001657853");
    const fy2018 = period(hertz, "2018-01-01", "2018-12-31");
    // 10-K for 2018 (0001657853-19-000005): net loss attributable to Hertz Global (225) $ millions, diluted loss per
    // share (2.68) on 84 million shares; the 10-Ks for 2019 and 2020 re-report (2.35) on 96 million shares.
    expect(fy2018.metrics.net_income?.value).toBe(-225_000_000);
    expect(fy2018.metrics.eps_diluted).toMatchObject({
      value: -2.35,
      restated: true,
      original_value: -2.68,
      original_accession: "0001657853-19-000005",
    });
    expect(fy2018.metrics.diluted_shares).toMatchObject({ value: 96_000_000, original_value: 84_000_000 });
    expect(fy2018.split_unadjusted).toBe(false);
  });

  it("Hertz: the rights offering's re-basing is a split, so a quarter whose count was never re-based is flagged", () => {
    const hertz = periodsOf("0001657853");
    // 10-Q for the quarter to 2018-03-31 (0001657853-18-000035): diluted loss per share (2.43) on 83 million shares; the
    // 10-K for 2019 (0001657853-20-000007) re-reports the quarter's EPS as (2.13) and no filing its count: EPS ≠ net
    // income ÷ shares (−202 / 83 = −2.43), which split_unadjusted says. The 10-Q of 2019-08-07 re-based first.
    const q1 = period(hertz, "2018-01-01", "2018-03-31");
    expect(q1.metrics.eps_diluted).toMatchObject({ value: -2.13, original_value: -2.43 });
    expect(q1.metrics.diluted_shares?.value).toBe(83_000_000);
    expect(q1.split_unadjusted).toBe(true);
    // 2019's first quarter: its EPS (−1.54) and count (96 million) re-reported on the new basis by the 10-Q of 2020-05-11.
    expect(period(hertz, "2019-01-01", "2019-03-31")).toMatchObject({ split_unadjusted: false, metrics: { diluted_shares: { value: 96_000_000 } } });
    // A 2017 quarter never re-reported: its EPS is of the old basis.
    expect(period(hertz, "2017-07-01", "2017-09-30").split_unadjusted).toBe(true);
  });

  it("TSMC (IFRS, 20-F, TWD): annual periods only, in the reporting currency", () => {
    const tsmc = periodsOf("0001046179");
    expect(tsmc.every((p) => p.months === 12 && p.form === "20-F")).toBe(true);
    const fy2023 = period(tsmc, "2023-01-01", "2023-12-31");
    // 2023 annual report / 20-F, consolidated statements of comprehensive income: net revenue NT$2,161,735.8 million.
    expect(fy2023).toMatchObject({ fiscal_year: 2023, fiscal_quarter: "FY" });
    expect(fy2023.metrics.revenue).toMatchObject({ value: 2_161_735_800_000, unit: "TWD", concept: "ifrs-full:Revenue" });
    expect(fy2023.metrics.net_income).toMatchObject({ unit: "TWD", concept: "ifrs-full:ProfitLossAttributableToOwnersOfParent" });
    expect(fy2023.metrics.eps_diluted?.unit).toBe("TWD/shares");
    // 2024 20-F (0001193125-25-083423): net income attributable to the parent NT$1,158,380.2 million over a basic
    // weighted average of 25,927.6 million shares (ifrs-full:WeightedAverageShares) = basic EPS NT$44.68; diluted count
    // 25,929.7 million (ifrs-full:AdjustedWeightedAverageShares).
    const fy2024 = period(tsmc, "2024-01-01", "2024-12-31");
    expect(fy2024.metrics.basic_shares).toMatchObject({ value: 25_927_600_000, concept: "ifrs-full:WeightedAverageShares" });
    expect(fy2024.metrics.diluted_shares).toMatchObject({ value: 25_929_700_000, concept: "ifrs-full:AdjustedWeightedAverageShares" });
    expect(fy2024.metrics.eps_basic!.value).toBeCloseTo(fy2024.metrics.net_income!.value / fy2024.metrics.basic_shares!.value, 2);
  });
});

describeEdgar("series that hold together (issue 14), checked against the filings", () => {
  const seriesOf = (cik: string) => deriveEarningsBase(readCompanyFacts(readEdgar(`${FOLDER}/CIK${cik}.json`))).series;
  const find = (periods: EarningsPeriod[], start: string, end: string) => periods.filter((p) => p.period_start === start && p.period_end === end);

  it("Walmart: the years to January 2014 and 2015 are fiscal 2014 and 2015; its 10-K's own fy 2013 is kept as filed_label", () => {
    const { periods } = seriesOf("0000104169");
    // 10-K for the year ended 2014-01-31 (0000104169-14-000019, filed 2014-03-21): Walmart calls it fiscal 2014 and
    // tags fy=2013; total revenues 476,294 ($ millions). The 10-K for the year to 2015-01-31 tags fy=2015.
    expect(find(periods, "2013-02-01", "2014-01-31")).toEqual([
      expect.objectContaining({
        fiscal_year: 2014,
        fiscal_quarter: "FY",
        label_source: "calendar",
        filed_label: { fiscal_year: 2013, fiscal_quarter: "FY", accession: "0000104169-14-000019" },
        metrics: expect.objectContaining({ revenue: expect.objectContaining({ value: 476_294_000_000 }) }),
      }),
    ]);
    expect(find(periods, "2014-02-01", "2015-01-31")[0]).toMatchObject({ fiscal_year: 2015, label_source: "filing", filed_label: null });
    expect(periods.filter((p) => p.fiscal_year === 2014 && p.months === 3).map((p) => p.fiscal_quarter).sort()).toEqual(["Q1", "Q2", "Q3", "Q4"]);
  });

  it("Walmart: the year to January 2011 uses one concept; its quarters now add up to it", () => {
    const { periods } = seriesOf("0000104169");
    // 10-Qs of fiscal 2011 tag total revenues (`Revenues`, with membership income): Q1 99,811 (as revised in the
    // 10-Q filed 2011-06-03), Q2 103,726, Q3 101,952; the 10-K filed 2013-03-26 gives the year 421,849 ($ millions).
    const year = periods.filter((p) => p.fiscal_year === 2011 && (p.months === 12 || p.months === 3));
    expect(new Set(year.map((p) => p.metrics.revenue!.concept))).toEqual(new Set(["us-gaap:Revenues"]));
    expect(year.find((p) => p.months === 12)).toMatchObject({ reconciled: true, metrics: { revenue: { value: 421_849_000_000 } } });
    expect(year.find((p) => p.fiscal_quarter === "Q4")!.metrics.revenue).toMatchObject({ value: 116_360_000_000, derived: true });
  });

  it("Home Depot: one Q2 2012, dated as three filings date it, the 10-Q's other start kept", () => {
    const { periods } = seriesOf("0000354950");
    // 10-Q for Q2 fiscal 2012 (0000354950-12-000024, filed 2012-08-22) dates the quarter from 2012-05-01; the 10-K
    // filed 2013-03-28, the 10-Q filed 2013-08-28 and the 10-K filed 2014-03-27 from 2012-04-30. Net sales 20,570.
    const q2 = periods.filter((p) => p.fiscal_year === 2012 && p.fiscal_quarter === "Q2" && p.months === 3);
    expect(q2).toEqual([
      expect.objectContaining({
        period_start: "2012-04-30",
        period_end: "2012-07-29",
        alternative_dates: [{ period_start: "2012-05-01", period_end: "2012-07-29", accession: "0000354950-12-000024" }],
        metrics: expect.objectContaining({ revenue: expect.objectContaining({ value: 20_570_000_000 }) }),
      }),
    ]);
  });

  it("Under Armour: one fiscal 2012, valued by its annual reports, not a 10-Q's twelve-month figure", () => {
    const { periods } = seriesOf("0001336917");
    // The 10-Q filed 2014-08-05 (0001336917-14-000035) tags 926,149 for 2011-12-31..2012-12-31; the 10-Ks give net
    // revenues of 1,834,921 ($ thousands) for 2012-01-01..2012-12-31, and the quarters add up to them.
    const years = periods.filter((p) => p.fiscal_year === 2012 && p.months === 12);
    expect(years).toHaveLength(1);
    expect(years[0]).toMatchObject({
      period_start: "2012-01-01",
      alternative_dates: [{ period_start: "2011-12-31", period_end: "2012-12-31", accession: "0001336917-14-000035" }],
      reconciled: true,
      metrics: { revenue: { value: 1_834_921_000 } },
    });
  });

  it("years restated without their quarters are marked with the difference; restated keeps saying what changed", () => {
    const year = (cik: string, start: string, end: string) => find(seriesOf(cik).periods, start, end)[0]!;
    // McDonald's 10-K filed 2021-02-23 (0000063908-21-000013) restates 2018 revenues to 21,257.9 from 21,025.2 ($
    // millions, 10-K filed 2019-02-22); no filing restates 2018's quarters (2019: see "one vintage per fiscal year").
    expect(year("0000063908", "2018-01-01", "2018-12-31")).toMatchObject({
      reconciled: false,
      reconciliation: [{ metric: "revenue", quarters_sum: 21_025_200_000, year_value: 21_257_900_000, difference: -232_700_000 }],
      metrics: { revenue: { value: 21_257_900_000, restated: true, original_value: 21_025_200_000 } },
    });
    // Under Armour's 10-K filed 2024-05-29 (0001336917-24-000073) restates 2021 net income to 351,003 from 360,060.
    expect(year("0001336917", "2021-01-01", "2021-12-31").reconciliation).toContainEqual({
      metric: "net_income",
      quarters_sum: 360_060_000,
      year_value: 351_003_000,
      difference: 9_057_000,
    });
    // Walmart's 10-K filed 2014-03-21 (0000104169-14-000019) restates fiscal 2012 revenues to 446,509 from 446,950.
    expect(year("0000104169", "2011-02-01", "2012-01-31")).toMatchObject({
      fiscal_year: 2012,
      reconciled: false,
      reconciliation: expect.arrayContaining([{ metric: "revenue", quarters_sum: 446_950_000_000, year_value: 446_509_000_000, difference: 441_000_000 }]),
    });
  });

  it("Apple fiscal 2008: the derived Q4 subtracts the nine months from the year of their own vintage", () => {
    const { periods } = seriesOf("0000320193");
    // 10-Q filed 2009-07-22: nine months to 2008-06-28, net sales 24,584; 10-K filed 2009-10-27: fiscal 2008, 32,479.
    // The 10-K/A filed 2010-01-25 restates the year to 37,491 (new revenue recognition) without its nine months.
    expect(find(periods, "2008-06-29", "2008-09-27")[0]!.metrics.revenue).toMatchObject({ value: 7_895_000_000, derived: true, restated: false });
    expect(find(periods, "2007-09-30", "2008-09-27")[0]!.metrics.revenue).toMatchObject({ value: 37_491_000_000, restated: true, original_value: 32_479_000_000 });
  });

  it("share counts filed in millions or thousands under `shares` are corrected and marked, never restatements", () => {
    const year = (cik: string, start: string, end: string) => find(seriesOf(cik).periods, start, end)[0]!.metrics.diluted_shares;
    // McDonald's 10-K filed 2022-02-24 (0000063908-22-000011): 2021 diluted weighted-average shares 751.8 million,
    // tagged 751,800,000; its 10-K filed 2024-02-22 (0000063908-24-000072) tags 751.8. Net income 7,545.2 ÷ EPS 10.04.
    expect(year("0000063908", "2021-01-01", "2021-12-31")).toMatchObject({
      value: 751_800_000,
      restated: false,
      original_value: null,
      scale_corrected: { factor: 0.000001, value_as_filed: 751.8 },
      source_accession: "0000063908-24-000072",
    });
    expect(year("0000063908", "2024-01-01", "2024-12-31")).toMatchObject({ value: 721_900_000, scale_corrected: { factor: 0.000001, value_as_filed: 721.9 } });
    // Under Armour's 10-K filed 2011-02-24 (0001193125-11-044799) tags 2008 diluted shares 50,342 (thousands).
    expect(year("0001336917", "2008-01-01", "2008-12-31")).toMatchObject({ value: 50_342_000, scale_corrected: { factor: 0.001, value_as_filed: 50_342 } });
    // Texas Instruments' 10-Q filed 2010-11-04 (0001140361-10-043558) re-tags Q3 2009's 1,268 million as 1,268.
    expect(year("0000097476", "2009-07-01", "2009-09-30")).toMatchObject({ value: 1_268_000_000, restated: false });
  });

  it("SunEdison: a later 10-Q's flipped sign is corrected, not shown as a swing to profit", () => {
    const { periods } = seriesOf("0000945436");
    // 10-Q filed 2013-05-09 (0000945436-13-000051) restates the 2012 first-quarter net loss to (98.6) million; the
    // 10-Q filed 2013-11-12 (0000945436-13-000129) tags it +98.6.
    expect(find(periods, "2012-01-01", "2012-03-31")[0]!.metrics.net_income).toMatchObject({
      value: -98_600_000,
      scale_corrected: { factor: -1, value_as_filed: 98_600_000 },
      restated: true,
      original_value: -92_000_000,
    });
  });
});

describeEdgar("one vintage per fiscal year: a year's periods from one consistent set of filings, checked against the filings", () => {
  const seriesOf = (cik: string) => deriveEarningsBase(readCompanyFacts(readEdgar(`${FOLDER}/CIK${cik}.json`))).series;
  const at = (series: ReturnType<typeof seriesOf>, start: string, end: string, date = LATEST) => {
    const i = series.periods.findIndex((p) => p.period_start === start && p.period_end === end);
    if (i < 0) throw new Error(`no period ${start}..${end}`);
    return periodAsOf(series.periods[i]!, series.history[i]!, date, false)!;
  };
  const revenue = (p: EarningsPeriod) => p.metrics.revenue!.value;

  it("McDonald's 2019: the 10-K's year and quarters until a later 10-K restates the year; then the restated quarters and a Q4 of their vintage", () => {
    const mcd = seriesOf("0000063908");
    // 10-K filed 2020-02-26 (0000063908-20-000022): 2019 revenues 21,076.5 and its quarters 4,955.6, 5,341.3, 5,430.6,
    // 5,349.0 ($ millions). Its 10-Qs of 2020 restate 2019's quarters alone: the first to 5,024.1 (0000063908-20-000042,
    // filed 2020-05-07), the second to 5,409.8 (-000063), the third to 5,502.3 and nine months to 15,936.2 (-000076).
    const quarters = [["2019-01-01", "2019-03-31"], ["2019-04-01", "2019-06-30"], ["2019-07-01", "2019-09-30"], ["2019-10-01", "2019-12-31"]] as const;
    const asOf = (date: string) => quarters.map(([s, e]) => revenue(at(mcd, s, e, date)));
    for (const date of ["2020-06-01", "2020-12-01"]) {
      expect(asOf(date)).toEqual([4_955_600_000, 5_341_300_000, 5_430_600_000, 5_349_000_000]);
      expect(at(mcd, "2019-01-01", "2019-12-31", date)).toMatchObject({ reconciled: true, metrics: { revenue: { value: 21_076_500_000 } } });
    }
    // Nine months as of 2020-12-01: the 10-Q filed 2019-11-04 (15,727.5), the sum of the quarters served with it.
    expect(revenue(at(mcd, "2019-01-01", "2019-09-30", "2020-12-01"))).toBe(15_727_500_000);
    // 10-K filed 2021-02-23 (0000063908-21-000013) restates the year to 21,364.4: the restated quarters serve, and the
    // fourth quarter is that year less the restated nine months, 21,364.4 − 15,936.2 = 5,428.2, not the 10-K of 2020's 5,349.0.
    expect(asOf(LATEST)).toEqual([5_024_100_000, 5_409_800_000, 5_502_300_000, 5_428_200_000]);
    expect(at(mcd, "2019-10-01", "2019-12-31").metrics.revenue).toMatchObject({ derived: true, source_accession: "0000063908-21-000013", restated: true, original_value: 5_349_000_000 });
    expect(at(mcd, "2019-01-01", "2019-12-31")).toMatchObject({ reconciled: true, reconciliation: [], metrics: { revenue: { value: 21_364_400_000 } } });
    // 2018: the same 10-K restates the year (21,025.2 → 21,257.9) and no filing its quarters or nine months: the year's
    // own latest value, marked, the fourth quarter still 21,025.2 − 15,862.2 = 5,163.0 of one vintage.
    expect(revenue(at(mcd, "2018-10-01", "2018-12-31"))).toBe(5_163_000_000);
    expect(at(mcd, "2018-01-01", "2018-12-31")).toMatchObject({ reconciled: false, reconciliation: [{ metric: "revenue", difference: -232_700_000 }] });
  });

  it("Walmart fiscal 2013: revenue held to the 10-K's set, then its restated set; operating income restated piecemeal and marked", () => {
    const wmt = seriesOf("0000104169");
    // 10-K filed 2013-03-26 (0000104169-13-000011): fiscal 2013 revenues 469,162 and quarters 113,018, 114,296, 113,929,
    // 127,919 ($ millions). The 10-Q filed 2013-06-07 (0000104169-13-000020) restates the first quarter alone to 113,010.
    expect(revenue(at(wmt, "2012-02-01", "2012-04-30", "2013-07-01"))).toBe(113_018_000_000);
    expect(at(wmt, "2012-02-01", "2013-01-31", "2013-07-01")).toMatchObject({ reconciled: true });
    // 10-K filed 2014-03-21 (0000104169-14-000019) restates the year (468,651) and its quarters (112,901, 114,174,
    // 113,800, 127,776): that set serves and adds up.
    expect(revenue(at(wmt, "2012-02-01", "2012-04-30"))).toBe(112_901_000_000);
    expect(revenue(at(wmt, "2012-02-01", "2013-01-31"))).toBe(468_651_000_000);
    expect(at(wmt, "2012-02-01", "2013-01-31").reconciliation.map((r) => r.metric)).toEqual(["operating_income"]);
    // Operating income: the original filings add up (6,387 + 6,698 + 6,116 = 19,201 for nine months, year 27,801, Q4
    // 8,600). The 10-Q filed 2013-12-06 (0000104169-13-000051) restates the third quarter (6,093) and nine months (19,145)
    // but not the half; the 10-K filed 2014-03-21 the year (27,725) and no quarter. Until that 10-K the fourth quarter
    // stays 27,801 − 19,201 (never the old year less the new nine months, 8,656); after it, 27,725 − 19,145 = 8,580.
    const q4 = (date: string) => at(wmt, "2012-11-01", "2013-01-31", date).metrics.operating_income!.value;
    expect([q4("2013-12-10"), q4(LATEST)]).toEqual([8_600_000_000, 8_580_000_000]);
    // No filing gives a consistent set for the year as restated: the latest values, marked (6,387 + 6,698 + 6,093 + 8,580).
    expect(at(wmt, "2012-02-01", "2013-01-31")).toMatchObject({
      reconciled: false,
      reconciliation: [{ metric: "operating_income", quarters_sum: 27_758_000_000, year_value: 27_725_000_000, difference: 33_000_000 }],
    });
  });

  it("Under Armour 2021: a later 10-K restates only the year, so the year is its latest value and marked; recast comparatives are placed, not dropped", () => {
    const ua = seriesOf("0001336917");
    // 10-K filed 2024-05-29 (0001336917-24-000073) restates 2021 net income to 351,003 ($ thousands) and no quarter:
    // 77,752 + 59,207 + 113,444 + 109,657 (the 10-Qs, and the 10-Q of 2023-02-08 for October–December) = 360,060.
    expect(at(ua, "2021-01-01", "2021-12-31")).toMatchObject({ reconciled: false, metrics: { net_income: { value: 351_003_000 } } });
    expect(at(ua, "2021-01-01", "2021-12-31").reconciliation).toContainEqual({ metric: "net_income", quarters_sum: 360_060_000, year_value: 351_003_000, difference: 9_057_000 });
    // 10-Q filed 2022-11-08 (0001336917-22-000039) shows April–September 2021 (net revenues 2,897,066) and the 10-Q filed
    // 2023-02-08 (0001336917-23-000009) April–December 2021 (4,426,271): comparatives on the April–March calendar, no
    // year-to-date of calendar 2021. Placed where they end, marked.
    for (const [end, months, quarter, value] of [["2021-09-30", 6, "Q3", 2_897_066_000], ["2021-12-31", 9, "Q4", 4_426_271_000]] as const) {
      expect(at(ua, "2021-04-01", end)).toMatchObject({ months, fiscal_year: 2021, fiscal_quarter: quarter, label_source: "calendar", metrics: { revenue: { value } } });
      expect(at(ua, "2021-04-01", end).exceptions).toEqual([expect.objectContaining({ rule: "label_in_year", metric: null })]);
    }
  });
});

function allFacts(raw: RawFile): { key: string; fact: RawFact; unit: string }[] {
  const out: { key: string; fact: RawFact; unit: string }[] = [];
  for (const [taxonomy, concepts] of Object.entries(raw.facts)) {
    for (const [name, concept] of Object.entries(concepts)) {
      for (const [unit, list] of Object.entries(concept.units)) for (const fact of list) out.push({ key: `${taxonomy}:${name}`, fact, unit });
    }
  }
  return out;
}

function filterFiled(raw: RawFile, cutoff: string): RawFile {
  const facts: RawFile["facts"] = {};
  for (const [taxonomy, concepts] of Object.entries(raw.facts)) {
    facts[taxonomy] = {};
    for (const [name, concept] of Object.entries(concepts)) {
      const units = Object.fromEntries(Object.entries(concept.units).map(([u, list]) => [u, list.filter((f) => f.filed <= cutoff)]));
      facts[taxonomy][name] = { units };
    }
  }
  return { ...raw, facts };
}

function metricsOf(p: EarningsPeriod): Metric[] {
  return Object.values(p.metrics).filter((m): m is Metric => m !== null);
}

describeEdgar("history=true lists every value filed for a period, with its concept; those never served are marked", () => {
  it("Walmart's quarter to 2010-07-31: its 10-Qs' Revenues, and the 10-Ks' SalesRevenueNet figures never served", () => {
    const series = deriveEarningsBase(readCompanyFacts(readEdgar(`${FOLDER}/CIK0000104169.json`))).series;
    const i = series.periods.findIndex((p) => p.period_start === "2010-05-01" && p.period_end === "2010-07-31");
    const revenue = periodAsOf(series.periods[i]!, series.history[i]!, LATEST, true)!.metrics.revenue!;
    // Served: Revenues, the fiscal year's concept (its 10-Qs). The 10-Ks filed 2011-03-30 and 2012-03-27 tag the
    // quarter's 103,016 ($ millions) under SalesRevenueNet only: listed, marked never served.
    const unserved = revenue.history!.filter((e) => e.served === false);
    expect(unserved.map((e) => [e.value, e.concept, e.form, e.filed_at])).toEqual([
      [103_016_000_000, "us-gaap:SalesRevenueNet", "10-K", "2011-03-30"],
      [103_016_000_000, "us-gaap:SalesRevenueNet", "10-K", "2012-03-27"],
    ]);
    expect(revenue.history!.filter((e) => e.served !== false).every((e) => e.concept === revenue.concept)).toBe(true);
    // In filing order, and the answer is the last value served.
    const dates = revenue.history!.map((e) => e.filed_at);
    expect(dates).toEqual([...dates].sort());
    expect(revenue.history!.filter((e) => e.served !== false).at(-1)!.value).toBe(revenue.value);
  });
});
