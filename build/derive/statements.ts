// Company facts → the financial statements (issue 18): the earnings' income statement and, on the same periods, fiscal
// calendar and rules (period identity, one concept and vintage per fiscal year, scale checks), the balance sheet at
// each period end and cash flows as discrete quarters; TTM rows in ttm.ts. Pure, like earnings.ts.
import type { FiscalQuarter } from "../../schemas/earnings.ts";
import { LATEST } from "../../schemas/earnings-history.ts";
import type { EntityChange } from "../../schemas/entity-change.ts";
import { financialAsOf, financialsContext } from "../../schemas/financials-history.ts";
import type { FinancialPeriodHistory, FinancialsContext, UnavailableSpan } from "../../schemas/financials-row-history.ts";
import {
  BALANCE_METRICS,
  CASH_FLOW_METRICS,
  INCOME_METRICS,
  type FinancialException,
  type FinancialMetricName,
  type FinancialPeriod,
  type StatementHistoryEntry,
  type Unavailable,
} from "../../schemas/financials.ts";
import type { CompanyFacts } from "../parse/companyfacts.ts";
import type { EarningsBase } from "./earnings.ts";
import type { FiscalCalendar } from "./fiscal-calendar.ts";
import { checkFinancials } from "./financial-invariants.ts";
import { scaleExceptions, toHistoryEntry, unservedEntries } from "./history.ts";
import { ANNUAL_FORM, PERIODIC_FORM } from "../forms.ts";
import { observe, type Filing } from "./observations.ts";
import { addOmittedPayouts, addPayoutsWithinZero } from "./omitted-lines.ts";
import { mergeInstants, mergeSpans, type Period } from "./period-identity.ts";
import { dayNumber, SAME_PERIOD_DAYS } from "./periods.ts";
import { fillQuarter, planLastQuarter } from "./quarters.ts";
import { holdFiscalYearSet, reconcileYear } from "./reconcile.ts";
import { correctScales, type ScalePeriod } from "./scale.ts";
import {
  BALANCE_SERIES,
  CASH_FLOW_PARTS,
  CASH_FLOW_SERIES,
  DUE_AFTER_TWO_YEARS,
  EPS_NUMERATORS,
  LONG_TERM_DEBT,
  PARTIAL_CAPEX,
  PARTIAL_CAPEX_CONCEPT,
  SHARES_OUTSTANDING,
  SHARES_OUTSTANDING_CONCEPT,
  SHARES_OUTSTANDING_TOTAL,
  TOTAL_BORROWINGS,
  type EpsNumerator,
  type StatementSpec,
} from "./statement-concepts.ts";
import { filedStatementValues, firstFiled } from "./statement-values.ts";
import { ADDITIVE, FLOWS, freeCashFlow, fromEarnings, newRow, type Row } from "./statement-rows.ts";
import { NONE_ALIKE, taggedAlike, type AlikeConcepts } from "./tagged-alike.ts";
import { deriveTtm } from "./ttm.ts";
import { computedEntry, computedTimeline, serveYear, type Entry, type FiledValue } from "./vintage.ts";

/** The financials document's content: rows newest first, and each row's history (aligned). */
export interface FinancialsSeries {
  periods: FinancialPeriod[];
  history: FinancialPeriodHistory[];
}

/**
 * Every series the statements observe: cash flows (durations; first the parts capex may be summed from, which also
 * explain its null) and the balance sheet (instants).
 */
const FLOW_SERIES: Readonly<Record<string, StatementSpec>> = { ...CASH_FLOW_PARTS, ...CASH_FLOW_SERIES };
export const STATEMENT_SERIES: Readonly<Record<string, StatementSpec>> = { ...FLOW_SERIES, ...BALANCE_SERIES };
/** The flows each fiscal year serves in one concept and vintage: the cash flows, and the EPS numerators (TTM EPS reads them whole). */
const SERVED_FLOWS = [...FLOWS, ...(Object.keys(EPS_NUMERATORS) as EpsNumerator[])];
/** Balance series checked for scale, steady ones first; shares outstanding (the cover count) among them. */
const BALANCE_CHECKED: Readonly<Record<string, StatementSpec>> = { ...BALANCE_SERIES, shares_outstanding: SHARES_OUTSTANDING };
const BALANCE_ORDER = ["shares_outstanding", "total_assets", "total_liabilities", "cash", "equity", "debt_current", "debt_noncurrent"];
/** The balance metrics served from filed values (total debt is then their sum). */
const SERVED_BALANCE = BALANCE_METRICS.filter((name) => name !== "total_debt");
/**
 * The statements of a company whose earnings are `base` (derived first: the periods, the calendar and the currency are
 * theirs, so the income statement here is the earnings' own). Rows newest first; fiscal years' TTM rows included.
 */
export function deriveFinancials(facts: CompanyFacts, base: EarningsBase): FinancialsSeries {
  const rows = base.series.periods.map((row, i) => fromEarnings(row, base.series.history[i]!, base.timelines[i]!));
  const observed = observe(facts, STATEMENT_SERIES, base.currency);
  const alike = taggedAlike(observed.spans, (series) => STATEMENT_SERIES[series]?.concepts.length ?? 0);
  attachFlows(rows, mergeSpans(observed.spans), FLOW_SERIES, base.calendar, alike);
  // Observed apart and attached to the income statement's own periods only: they never make a period or move its dates.
  attachFlows(rows, mergeSpans(observe(facts, EPS_NUMERATORS, base.currency).spans), EPS_NUMERATORS, null, NONE_ALIKE);
  const flowPeriods: ScalePeriod[] = rows.map((r) => ({ end: r.end, months: r.months, values: r.flows }));
  correctScales(flowPeriods, { ...CASH_FLOW_SERIES, ...EPS_NUMERATORS }, ["capital_expenditure", "dividends_paid", "operating_cash_flow", "share_repurchases", ...Object.keys(EPS_NUMERATORS)]);
  const years = byFiscalYear(rows);
  addOmittedPayouts(years);
  addPayoutsWithinZero(years);
  for (const group of years.values()) {
    const created = cashFlowYear(group, base.calendar);
    rows.push(...created);
  }
  for (const r of rows) addFreeCashFlow(r);
  for (const group of years.values()) markReconciliation(group);
  const coversFrom = balanceSheets(rows, facts, observed, base);
  const all = [...rows, ...deriveTtm(rows, years)];
  markUnavailable(all, years, coversFrom);
  return assemble(all, base.entityChanges);
}

/**
 * Each flow period on the row of the same span (period identity: one length, starts and ends within a week), or a row
 * of its own labelled by the calendar (none without one); each filing's value per series on it.
 */
function attachFlows(rows: Row[], periods: readonly Period[], specs: Readonly<Record<string, StatementSpec>>, calendar: FiscalCalendar | null, alike: AlikeConcepts): void {
  const lanes = new Map<number, { row: Row; start: number; end: number }[]>();
  for (const row of rows) {
    const lane = lanes.get(row.months) ?? [];
    lane.push({ row, start: dayNumber(row.start), end: dayNumber(row.end) });
    lanes.set(row.months, lane);
  }
  for (const p of periods) {
    const [start, end] = [dayNumber(p.start), dayNumber(p.end)];
    let row = lanes.get(p.months)?.find((r) => Math.abs(r.end - end) <= SAME_PERIOD_DAYS && Math.abs(r.start - start) <= SAME_PERIOD_DAYS)?.row;
    if (!row) {
      if (!calendar) continue;
      const label = calendar.label(p, p.alternatives.length ? [p.end, ...p.alternatives.map((a) => a.end)] : undefined);
      if (!label) continue;
      row = newRow(p.start, p.end, p.months, label, false, p.alternatives);
      rows.push(row);
      const lane = lanes.get(p.months) ?? [];
      lane.push({ row, start, end });
      lanes.set(p.months, lane);
    }
    for (const [name, values] of filedStatementValues(p.observations, specs, alike)) {
      const known = row.flows.get(name);
      row.flows.set(name, known ? [...known, ...values].sort(byFiled) : values);
    }
  }
}

function byFiled(a: FiledValue, b: FiledValue): number {
  return a.filed < b.filed ? -1 : a.filed > b.filed ? 1 : a.accn < b.accn ? -1 : a.accn > b.accn ? 1 : 0;
}

/** Rows by fiscal year label. */
function byFiscalYear(rows: readonly Row[]): Map<number, Row[]> {
  const years = new Map<number, Row[]>();
  for (const r of rows) {
    const group = years.get(r.base.fiscal_year);
    if (group) group.push(r);
    else years.set(r.base.fiscal_year, [r]);
  }
  return years;
}

/**
 * One fiscal year's cash flows: each series in one concept and vintage over the year's periods (vintage.ts), then its
 * discrete quarters — 10-Qs file cash flows year to date, so Q2 = the half − Q1, Q3 = nine months − the half and Q4 =
 * the year − nine months, each of the same vintage and marked derived (a filed discrete quarter in the year's concept
 * stands). A year-to-date value is never served as a quarter. Returns the quarters no earnings row had.
 */
function cashFlowYear(group: Row[], calendar: FiscalCalendar): Row[] {
  const concepts = serveYear(group, SERVED_FLOWS, (r) => r.flows, (r) => r.months === 12);
  if (Object.keys(concepts).length === 0) return [];
  const created: Row[] = [];
  for (const months of [6, 9, 12] as const) {
    const quarter: FiscalQuarter = months === 12 ? "Q4" : months === 9 ? "Q3" : "Q2";
    const total = group.find((r) => r.months === months && r.base.fiscal_quarter === (months === 12 ? "FY" : quarter));
    if (!total || !FLOWS.some((name) => total.timelines[name])) continue;
    const plan = planLastQuarter(total, group);
    if (!plan) continue;
    const planEnd = dayNumber(plan.end);
    let row = group.find((r) => r.months === 3 && r.base.fiscal_quarter === quarter && Math.abs(dayNumber(r.end) - planEnd) <= SAME_PERIOD_DAYS);
    const isNew = !row;
    if (!row) {
      const label = calendar.label({ start: plan.start, end: plan.end, months: 3 });
      if (!label || label.fiscalYear !== total.base.fiscal_year || label.fiscalQuarter !== quarter) continue;
      row = newRow(plan.start, plan.end, 3, label, true);
    }
    fillQuarter(row, total, plan, FLOWS, concepts);
    if (isNew && FLOWS.some((name) => row.timelines[name])) {
      group.push(row);
      created.push(row);
    }
  }
  holdFiscalYearSet(group, (r) => r.base.fiscal_quarter, FLOWS);
  return created;
}

/** The row's free cash flow (statement-rows.ts). */
function addFreeCashFlow(row: Row): void {
  const [ocf, capex] = [row.timelines.operating_cash_flow, row.timelines.capital_expenditure];
  if (!ocf || !capex) return;
  const fcf = freeCashFlow(ocf, capex);
  if (fcf.length) row.timelines.free_cash_flow = fcf;
}

/** Whether a fiscal year's quarters add up to it, over time, for every additive income and cash-flow metric. */
function markReconciliation(group: readonly Row[]): void {
  const year = group.find((r) => r.months === 12 && r.base.fiscal_quarter === "FY");
  const quarters = (["Q1", "Q2", "Q3", "Q4"] as const).map((q) => group.find((r) => r.months === 3 && r.base.fiscal_quarter === q));
  const states = year && reconcileYear(year, quarters, ADDITIVE);
  if (states) year.reconciliation = states;
}

/**
 * Internal series total debt reads, served like the metrics (one concept and vintage per year) and then kept apart:
 * no row publishes them. The filing's own total of borrowings, its long-term debt (us-gaap:LongTermDebt), and its
 * maturity table's principal due after two years.
 */
const DEBT_INPUTS = [TOTAL_BORROWINGS, LONG_TERM_DEBT, DUE_AFTER_TWO_YEARS] as const;
type DebtInput = (typeof DEBT_INPUTS)[number];
/** The series a balance sheet date serves: its metrics, and the inputs total debt may need. */
type Served = FinancialMetricName | DebtInput;

/** A balance sheet date under derivation: each filing's value per series, then the served timelines. */
interface Point {
  date: string;
  values: Map<string, FiledValue[]>;
  timelines: Partial<Record<Served, Entry[]>>;
  /** The debt inputs served over time, taken out of `timelines`. */
  debt: Partial<Record<DebtInput, Entry[]>>;
}

/**
 * The balance sheet at each quarter's and fiscal year's end: instants merged by period identity, each filing's value
 * (formulas where it tags no total), scale slips corrected (total assets against liabilities and equity of the same
 * filing), one concept and vintage per fiscal year (the year-end date, like the year, from annual reports); the cover
 * page's shares outstanding on the period of the filing that carries it. Instants are never summed or derived: a
 * fiscal year and its fourth quarter end on the same date and show the same balance.
 */
function balanceSheets(rows: Row[], facts: CompanyFacts, observed: { instants: Parameters<typeof mergeInstants>[0]; filings: Filing[] }, base: EarningsBase): string | null {
  const ends = new Set(rows.filter((r) => r.months === 3 || r.months === 12).map((r) => r.end));
  const points: Point[] = mergeInstants(observed.instants, ends).map((i) => ({ date: i.date, values: filedStatementValues(i.observations, BALANCE_SERIES), timelines: {}, debt: {} }));
  const covers = addCoverShares(points, facts, [...base.filings, ...observed.filings]);
  for (const point of points) balanceSheetCount(point);
  if (points.length === 0) return covers;
  const scaled: ScalePeriod[] = points.map((p) => ({ end: p.date, months: 0, values: p.values }));
  correctScales(scaled, BALANCE_CHECKED, BALANCE_ORDER, (period, series, value) =>
    series === "total_assets" ? (period.values.get("_liabilities_and_equity")?.find((v) => v.accn === value.accn)?.value ?? null) : null,
  );
  const years = new Map<number, Point[]>();
  const yearEnds = new Set<Point>();
  for (const point of points) {
    const at = base.calendar.locate(point.date);
    if (!at) continue;
    if (at.quarter === 4 && Math.abs(dayNumber(point.date) - dayNumber(at.year.end)) <= SAME_PERIOD_DAYS) yearEnds.add(point);
    const group = years.get(at.year.label) ?? [];
    group.push(point);
    years.set(at.year.label, group);
  }
  const inputs = DEBT_INPUTS.filter((name) => points.some((p) => p.values.has(name)));
  const served: readonly Served[] = inputs.length ? [...SERVED_BALANCE, ...inputs] : SERVED_BALANCE;
  for (const group of years.values()) serveYear(group, served, (p) => p.values, (p) => yearEnds.has(p));
  for (const point of points) {
    for (const name of inputs) {
      point.debt[name] = point.timelines[name];
      delete point.timelines[name];
    }
  }
  for (const [i, point] of points.entries()) totalDebt(point, debtDueLater(points, i));
  const byDate = points.map((p) => ({ p, day: dayNumber(p.date) }));
  for (const row of rows) {
    if (row.months !== 3 && row.months !== 12) continue;
    const day = dayNumber(row.end);
    let found: Point | undefined;
    let distance = SAME_PERIOD_DAYS + 1;
    for (const { p, day: d } of byDate) {
      const gap = Math.abs(d - day);
      if (gap < distance) [found, distance] = [p, gap];
    }
    if (!found || Object.keys(found.timelines).length === 0) continue;
    Object.assign(row.timelines, found.timelines);
    row.instants = found.values;
    row.balance = true;
  }
  return covers;
}

/**
 * Where no cover count reaches a balance sheet date, the balance sheet's own count of shares outstanding for the whole
 * company (us-gaap:CommonStockSharesOutstanding, undimensioned: all classes), dated the period end. A company whose
 * cover gives one count per class (Alphabet's A, B and C) has no undimensioned cover count in company facts, which
 * leave dimensioned facts out; its balance sheet may still state the total.
 */
function balanceSheetCount(point: Point): void {
  if (point.values.has("shares_outstanding")) return;
  const totals = point.values.get(SHARES_OUTSTANDING_TOTAL);
  if (totals?.length) point.values.set("shares_outstanding", totals.map((v) => ({ ...v, asOf: point.date })));
}

/**
 * Total debt = current + non-current debt as served on the date, at every change of either (derived when both are
 * there); where a side is missing, the filing's own total of debt if it tags one (an unclassified balance sheet has no
 * sides: Hertz's), else the side there is (a company with no current debt line has the non-current alone) — but none
 * while long-term debt is tagged with no non-current side made of it: beside a current portion, it may or may not
 * include it (statement-concepts.ts), so the current side alone would be short by an unknown part (Texas Instruments
 * at 2011-09-30: current debt 1,586 million beside long-term debt of 4,215); nor while a maturity table shows debt
 * due after a year (`dueLater`, debtDueLater).
 */
function totalDebt(point: Point, dueLater: readonly (readonly Entry[])[]): void {
  const [current, noncurrent, total, longTerm] = [point.timelines.debt_current, point.timelines.debt_noncurrent, point.debt[TOTAL_BORROWINGS], point.debt[LONG_TERM_DEBT]];
  if (!current && !noncurrent && !total) return;
  point.timelines.total_debt = computedTimeline([current ?? [], noncurrent ?? [], total ?? [], longTerm ?? [], ...dueLater], ([c, n, b, l, ...later]) => {
    if (!c || !n) {
      if (b) return b;
      // The current side alone beside long-term debt of unclear extent (above), or beside debt a maturity table says
      // is due after a year, is no total.
      return c && ((l && l.value !== 0) || later.some((e) => e && e.value > 0)) ? null : (c ?? n ?? null);
    }
    if (c.unit !== n.unit) return null;
    const components = [...(c.components ?? [{ concept: c.concept, value: c.value }]), ...(n.components ?? [{ concept: n.concept, value: n.value }])];
    return { ...computedEntry([c, n], c.value + n.value, `${c.concept}+${n.concept}`), components };
  });
}

/** How long after an annual maturity table's date its later years are still due after a year. */
const TABLE_HOLDS_DAYS = 366;

/**
 * The maturity tables that show debt due after a year on a balance sheet date (DUE_AFTER_TWO_YEARS): the date's own,
 * and an annual report's of the year before — its third year falls due two years after its date, so that debt is
 * still non-current a year later. A 10-Q's table (its years are fiscal years, the first a part) only for its own date.
 * The current side alone is then no total debt: where a company's long-term line is under a tag of its own, which
 * company facts leave out, it would be short by all of it. Fulton Financial's 10-K for 2020 (0000700564-21-000014)
 * tags short-term borrowings of 630,066 thousand and no long-term line; its maturity table, 1,296,263 thousand after
 * the next twelve months, is its long-term borrowings (its total liabilities less deposits and its other lines).
 */
function debtDueLater(points: readonly Point[], i: number): Entry[][] {
  const day = dayNumber(points[i]!.date);
  const out: Entry[][] = [];
  for (let j = i; j >= 0 && day - dayNumber(points[j]!.date) <= TABLE_HOLDS_DAYS; j--) {
    const table = points[j]!.debt[DUE_AFTER_TWO_YEARS];
    if (!table) continue;
    if (j === i) out.push(table);
    else {
      const annual = table.filter((e) => ANNUAL_FORM.test(e.form));
      if (annual.length) out.push(annual);
    }
  }
  return out;
}

/**
 * The cover page's count of shares outstanding (dei), dated after the period: placed on the balance sheet of the
 * filing's own period (the latest period end it reports), with its own date kept (`as_of`). A later filing's count
 * for the period corrects it only for the same date: one dated later is a later count, no restatement (Walmart's
 * 10-Q/A of 2013-10-21 counts 3,244,066,165 shares on 2013-10-17; the quarter's own 10-Q 3,255,456,108 on 2013-09-03).
 * Returns when the first periodic report with a whole-company cover count was filed (null: none).
 */
function addCoverShares(points: Point[], facts: CompanyFacts, filings: readonly Filing[]): string | null {
  const facts_ = facts.concepts[SHARES_OUTSTANDING_CONCEPT]?.shares?.filter((f) => PERIODIC_FORM.test(f.form));
  if (!facts_?.length) return null;
  const ownEnd = new Map<string, string>();
  for (const f of filings) ownEnd.set(f.accn, f.ownEnd);
  const byAccn = new Map<string, (typeof facts_)[number]>();
  for (const f of facts_) {
    // A count dated before the filing's own period ends is a stale cover (Celadon's 10-K for June 2012 dates its count
    // 2011-08-10, the year before's): not this period's.
    if (!ownEnd.has(f.accn) || f.end < ownEnd.get(f.accn)!) continue;
    const seen = byAccn.get(f.accn);
    if (!seen || f.end > seen.end) byAccn.set(f.accn, f);
  }
  for (const f of byAccn.values()) {
    const date = ownEnd.get(f.accn)!;
    const day = dayNumber(date);
    let point = points.find((p) => Math.abs(dayNumber(p.date) - day) <= SAME_PERIOD_DAYS);
    if (!point) points.push((point = { date, values: new Map(), timelines: {}, debt: {} }));
    const list = point.values.get("shares_outstanding") ?? [];
    list.push({ value: f.val, accn: f.accn, filed: f.filed, concept: SHARES_OUTSTANDING_CONCEPT, priority: 0, unit: "shares", form: f.form, annual: ANNUAL_FORM.test(f.form), asOf: f.end });
    point.values.set("shares_outstanding", list);
  }
  for (const point of points) {
    const list = point.values.get("shares_outstanding");
    if (list && list.length > 1) point.values.set("shares_outstanding", earliestDated(list.sort(byFiled)));
  }
  points.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return firstFiled(facts_);
}

/** Counts in filing order, each kept unless a count filed before it is dated earlier (its date's, corrected or not). */
function earliestDated(counts: readonly FiledValue[]): FiledValue[] {
  let first = counts[0]!.asOf!;
  return counts.filter((c) => {
    if (c.asOf! > first) return false;
    first = c.asOf!;
    return true;
  });
}

/** The reasons FinancialPeriod.unavailable states (one object each: rows share them). */
const CLASS_COUNTS_ONLY: Unavailable = {
  metric: "shares_outstanding",
  reason: "class_counts_only",
  message: `company facts hold no whole-company count: no cover count without a class (${SHARES_OUTSTANDING_CONCEPT}; counts per class are dimensioned, which company facts leave out) and no balance sheet total (us-gaap:CommonStockSharesOutstanding) for this date`,
};
const PARTIAL_CAPITAL_EXPENDITURE: Unavailable = {
  metric: "capital_expenditure",
  reason: "partial_capital_expenditure",
  message: `only part of the capital spending is in a standard concept (${PARTIAL_CAPEX_CONCEPT}: PP&E outside the classes the company reports under concepts of its own, which company facts do not carry)`,
};
const NO_FREE_CASH_FLOW: Unavailable = { metric: "free_cash_flow", reason: "partial_capital_expenditure", message: "capital_expenditure is not known (see its reason)" };
/** A quarter's cash flow its fiscal year reports, neither filed for the quarter nor a difference of years to date. */
const NOT_DERIVABLE: Readonly<Record<string, Unavailable>> = Object.fromEntries(
  FLOWS.map((metric) => [
    metric,
    {
      metric,
      reason: "not_derivable",
      message: `no filing reports ${metric} for this quarter, and the filings give no two years to date of one concept and vintage it is the difference of (Q2 = the half − Q1, Q3 = nine months − the half, Q4 = the year − nine months)`,
    },
  ]),
);

/**
 * The reasons of the nulls a company's facts explain (FinancialPeriod.unavailable), each with when it holds (read as
 * of a date: schemas/financials-history.ts): shares outstanding on a balance sheet while no whole-company cover count
 * has been filed (no cover count without a class, nor a balance sheet total for the date); capital expenditure (and
 * so free cash flow) in a fiscal year once a filing gave only a part of it in a standard concept.
 */
function markUnavailable(rows: readonly Row[], years: ReadonlyMap<number, readonly Row[]>, coversFrom: string | null): void {
  const partialFrom = new Map<number, string>();
  for (const [fiscalYear, group] of years) {
    const first = firstFiled(group.flatMap((r) => alonePart(r.flows)));
    if (first) partialFrom.set(fiscalYear, first);
  }
  for (const r of rows) {
    const spans: UnavailableSpan[] = [];
    const balanceFrom = r.balance ? firstEntry(r, BALANCE_METRICS) : undefined;
    if (balanceFrom !== undefined && (coversFrom === null || balanceFrom < coversFrom)) {
      spans.push({ ...CLASS_COUNTS_ONLY, from: balanceFrom, ...(coversFrom === null ? {} : { until: coversFrom }) });
    }
    const from = partialFrom.get(r.base.fiscal_year);
    if (from !== undefined && r.timelines.operating_cash_flow) {
      spans.push({ ...PARTIAL_CAPITAL_EXPENDITURE, from, requires: "operating_cash_flow" }, { ...NO_FREE_CASH_FLOW, from, because: "capital_expenditure" });
    }
    if (r.months === 3) spans.push(...notDerivable(r, years.get(r.base.fiscal_year) ?? [], from !== undefined));
    if (spans.length) r.unavailable = spans;
  }
}

/**
 * A quarter's cash flows its fiscal year reports (another of its periods has a value) but the quarter has not: each
 * from the day the year first has one, shown while the quarter has none (its value, once filed or derived, ends it).
 * Free cash flow lacks what operating cash flow or capital expenditure lacks; capex whose part alone is in a standard
 * concept has its own reason.
 */
function notDerivable(quarter: Row, year: readonly Row[], partialCapex: boolean): UnavailableSpan[] {
  const spans = new Map<string, UnavailableSpan>();
  for (const metric of FLOWS) {
    if (metric === "capital_expenditure" && partialCapex) continue;
    let from: string | undefined;
    for (const r of year) {
      const first = r === quarter ? undefined : firstEntry(r, [metric]);
      if (first !== undefined && (from === undefined || first < from)) from = first;
    }
    const own = firstEntry(quarter, [metric]);
    if (from !== undefined && (own === undefined || own > from)) spans.set(metric, { ...NOT_DERIVABLE[metric]!, from });
  }
  // In the statement's order: free cash flow after the two flows it is made of.
  const freeCashFlow = (["operating_cash_flow", "capital_expenditure"] as const).flatMap((because) => {
    const span = spans.get(because);
    return span ? [{ metric: "free_cash_flow" as const, reason: "not_derivable" as const, message: `${because} is not known (see its reason)`, from: span.from, because }] : [];
  });
  const at = (metric: string) => spans.get(metric);
  return [at("operating_cash_flow"), at("capital_expenditure"), ...freeCashFlow, at("dividends_paid"), at("share_repurchases")].filter((span) => span !== undefined);
}

/** A row's filed values of other PP&E from filings that give no capex (a class beside it would have made one). */
function alonePart(flows: Row["flows"]): FiledValue[] {
  const parts = flows.get(PARTIAL_CAPEX) ?? [];
  const capex = flows.get("capital_expenditure");
  return capex ? parts.filter((p) => !capex.some((c) => c.accn === p.accn)) : parts;
}

/** When a row's first value of any of the metrics was served (undefined: none). */
function firstEntry(r: Row, names: readonly FinancialMetricName[]): string | undefined {
  let first: string | undefined;
  for (const name of names) {
    const from = r.timelines[name]?.[0]?.from;
    if (from !== undefined && (first === undefined || from < first)) first = from;
  }
  return first;
}

/** The balance sheet and cash flow metrics a row serves. */
const STATEMENT_SERIES_SERVED = [...BALANCE_METRICS, ...CASH_FLOW_METRICS];

/**
 * Published rows (each its history read as of today; rows with no value left out), marked invariants, newest first.
 * TTM rows last: their blocks are read from the other rows and histories (schemas/financials-ttm.ts), as the gateway
 * reads them as of a date.
 */
function assemble(rows: readonly Row[], changes: EntityChange[]): FinancialsSeries {
  const built: { row: FinancialPeriod; history: FinancialPeriodHistory }[] = [];
  // Rows share timelines and filed values (a fiscal year's balance is its Q4's, a year-end TTM is the year): each is
  // converted once.
  const converted = new Map<readonly Entry[], StatementHistoryEntry[]>();
  const entriesOf = (timeline: readonly Entry[]) => {
    let entries = converted.get(timeline);
    if (!entries) converted.set(timeline, (entries = timeline.map(toHistoryEntry)));
    return entries;
  };
  const unserved = new Map<readonly FiledValue[], StatementHistoryEntry[]>();
  const unservedOf = (timeline: readonly Entry[] | undefined, filed: readonly FiledValue[]) => {
    let entries = unserved.get(filed);
    if (!entries) unserved.set(filed, (entries = unservedEntries(timeline, filed)));
    return entries;
  };
  // The company's split dates (its earnings' history), on every row: rows read their split flag from them as of any date.
  const { splits, splits_known } = rows.find((r) => r.income?.history.splits)?.income!.history ?? {};
  const publish = (r: Row, context?: FinancialsContext) => {
    const history: FinancialPeriodHistory = splits ? { metrics: {}, splits, ...(splits_known ? { splits_known } : {}) } : { metrics: {} };
    if (changes.length) history.entity_changes = changes;
    const filed: NonNullable<FinancialPeriodHistory["filed"]> = {};
    for (const name of INCOME_METRICS) {
      const timeline = r.timelines[name];
      const own = r.income?.history.metrics[name];
      if (own && timeline && !converted.has(timeline)) converted.set(timeline, own); // the earnings' entries, stored once
      const entries = own ?? (timeline && entriesOf(timeline));
      if (entries) history.metrics[name] = entries;
      const others = r.income?.history.filed?.[name];
      if (others?.length) filed[name] = others;
    }
    for (const name of BALANCE_METRICS) {
      const timeline = r.timelines[name];
      if (timeline) history.metrics[name] = entriesOf(timeline);
      const values = r.instants?.get(name);
      const others = values?.length ? unservedOf(timeline, values) : undefined; // shared by the rows of one date
      if (others?.length) filed[name] = others;
    }
    for (const name of CASH_FLOW_METRICS) {
      const timeline = r.timelines[name];
      if (timeline) history.metrics[name] = entriesOf(timeline);
      const values = r.flows.get(name);
      const others = values?.length ? unservedEntries(timeline, values) : undefined;
      if (others?.length) filed[name] = others;
    }
    if (Object.keys(filed).length) history.filed = filed;
    if (r.reconciliation) history.reconciliation = r.reconciliation;
    if (r.unavailable) history.unavailable = r.unavailable;
    const exceptions: FinancialException[] = [...(r.income?.row.exceptions ?? []), ...scaleExceptions(r.timelines, STATEMENT_SERIES_SERVED)];
    const b = r.base;
    // In the schema's order (the earnings rows' order, then the statements): what a reader of the JSON expects.
    const skeleton: FinancialPeriod = {
      fiscal_year: b.fiscal_year,
      fiscal_quarter: b.fiscal_quarter,
      months: b.months,
      period_start: b.period_start,
      period_end: b.period_end,
      duration_days: b.duration_days,
      calendar_frame: b.calendar_frame,
      form: r.provenance?.form ?? "",
      filed_at: r.provenance?.filed_at ?? "",
      source_accession: r.provenance?.source_accession ?? "",
      label_accession: b.label_accession,
      label_source: b.label_source,
      filed_label: b.filed_label,
      derived: b.derived,
      label_inferred: b.label_inferred,
      alternative_dates: b.alternative_dates,
      split_unadjusted: b.split_unadjusted,
      reconciled: null,
      reconciliation: [],
      exceptions,
      income: EMPTY.income,
      balance: r.balance ? EMPTY.balance : null,
      cash_flow: EMPTY.cash_flow,
      unavailable: [], // read from the history (its reasons as of the date)
      ttm: r.ttm ?? null,
    };
    const row = financialAsOf(skeleton, history, LATEST, false, context);
    if (row) built.push({ row, history });
  };
  for (const r of rows) if (!r.ttm) publish(r);
  const context = financialsContext(
    built.map((b) => b.row),
    built.map((b) => b.history),
  );
  for (const r of rows) if (r.ttm) publish(r, context);
  const periods = built.map((b) => b.row);
  checkFinancials(periods, true);
  const order = built.map((_, i) => i).sort((a, b) => newestFirst(periods[a]!, periods[b]!));
  return { periods: order.map((i) => periods[i]!), history: order.map((i) => built[i]!.history) };
}

const nulls = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, null]));
const EMPTY = {
  income: nulls(INCOME_METRICS) as FinancialPeriod["income"] & object,
  balance: nulls(BALANCE_METRICS) as FinancialPeriod["balance"] & object,
  cash_flow: nulls(CASH_FLOW_METRICS) as FinancialPeriod["cash_flow"] & object,
};

/** Newest end first; at one end the shorter period first, a TTM row after the fiscal year it may equal. */
function newestFirst(a: FinancialPeriod, b: FinancialPeriod): number {
  return a.period_end < b.period_end ? 1 : a.period_end > b.period_end ? -1 : a.duration_days - b.duration_days || (a.ttm ? 1 : 0) - (b.ttm ? 1 : 0);
}

