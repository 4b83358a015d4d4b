// The invariants of the statements (issue 18), for every company: the earnings' series invariants over all flows and
// balances (unique labels, one period per span, quarters that add up to the year, no unit-scale jumps), a fiscal
// year's balance sheet equal to its fourth quarter's, TTM rows equal to the fiscal year at a year end and to the sum of
// their four quarters otherwise, and outflows that are never negative. Pure; the builder marks what it finds, `dataset
// audit` re-checks.
import { OUTFLOW_METRICS, signMessage } from "../../schemas/financials-history.ts";
import { STATEMENT_METRICS, type FinancialInvariant, type FinancialMetricName, type FinancialPeriod } from "../../schemas/financials.ts";
import { METRIC_CONCEPTS } from "./concepts.ts";
import { checkInvariants, type SeriesRow } from "./invariants.ts";
import type { SeriesSpec } from "./observations.ts";
import { BALANCE_SERIES, CASH_FLOW_SERIES, SHARES_OUTSTANDING } from "./statement-concepts.ts";

/** How each served metric behaves (additive flows are checked to add up; steady ones for unit-scale jumps). */
const SPECS: Readonly<Record<FinancialMetricName, SeriesSpec>> = {
  ...METRIC_CONCEPTS,
  ...CASH_FLOW_SERIES,
  // Additive, but its own digits understate its rounding: a year whose two parts add up within theirs may miss by a unit.
  free_cash_flow: { kind: "currency", additive: false, steady: false, concepts: [] },
  total_assets: BALANCE_SERIES.total_assets!,
  total_liabilities: BALANCE_SERIES.total_liabilities!,
  equity: BALANCE_SERIES.equity!,
  cash: BALANCE_SERIES.cash!,
  debt_current: BALANCE_SERIES.debt_current!,
  debt_noncurrent: BALANCE_SERIES.debt_noncurrent!,
  total_debt: { kind: "currency", additive: false, steady: false, concepts: [] },
  shares_outstanding: SHARES_OUTSTANDING,
};
const BALANCE = STATEMENT_METRICS.balance;
const TTM_SUMMED = [...STATEMENT_METRICS.income.filter((m) => METRIC_CONCEPTS[m].additive), ...STATEMENT_METRICS.cash_flow];

/** One broken invariant: the rows (indices) and metric it concerns, and whether the data marks it. */
export interface FinancialViolation {
  rule: FinancialInvariant;
  rows: number[];
  metric: FinancialMetricName | null;
  message: string;
  marked: boolean;
}

/**
 * Every violation among the rows. With `mark`, each unmarked one is marked in the data (an exception on its rows,
 * explained): the builder's way of never publishing a series that is silently wrong.
 */
export function checkFinancials(rows: FinancialPeriod[], mark = false): FinancialViolation[] {
  const periods = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.ttm === null);
  const views: SeriesRow[] = periods.map(({ r }) => ({
    fiscal_year: r.fiscal_year,
    fiscal_quarter: r.fiscal_quarter,
    months: r.months,
    period_start: r.period_start,
    period_end: r.period_end,
    reconciled: r.reconciled,
    exceptions: r.exceptions,
    metrics: { ...r.income, ...r.balance, ...r.cash_flow } as SeriesRow["metrics"],
  }));
  const found: FinancialViolation[] = checkInvariants(views, SPECS).map((v) => ({
    ...v,
    rows: v.rows.map((k) => periods[k]!.i),
    metric: v.metric as FinancialMetricName | null,
  }));
  found.push(...yearEndBalances(rows), ...ttmRows(rows), ...negativeOutflows(rows));
  if (mark) {
    for (const v of found) {
      if (v.marked) continue;
      for (const i of v.rows) rows[i]!.exceptions.push({ rule: v.rule, metric: v.metric, message: v.message });
      v.marked = true;
    }
  }
  return found;
}

/** A fiscal year's balance sheet is its fourth quarter's: instants are never summed or derived. */
function yearEndBalances(rows: readonly FinancialPeriod[]): FinancialViolation[] {
  const out: FinancialViolation[] = [];
  const quarters = new Map(rows.filter((r) => r.months === 3 && r.fiscal_quarter === "Q4" && r.ttm === null).map((r) => [`${r.fiscal_year} ${r.period_end}`, r]));
  rows.forEach((year, i) => {
    if (year.months !== 12 || year.ttm !== null || !year.balance) return;
    const q4 = quarters.get(`${year.fiscal_year} ${year.period_end}`);
    if (!q4?.balance) return;
    for (const metric of BALANCE) {
      const [a, b] = [year.balance[metric]?.value ?? null, q4.balance[metric]?.value ?? null];
      if (a === b) continue;
      out.push(violation("year_end_balance", [i, rows.indexOf(q4)], metric, `fiscal ${year.fiscal_year}'s ${metric} at ${year.period_end} is ${a}, its fourth quarter's ${b}`, rows));
    }
  });
  return out;
}

/** A TTM row equals its fiscal year at a year end, and the sum of its four quarters otherwise. */
function ttmRows(rows: readonly FinancialPeriod[]): FinancialViolation[] {
  const out: FinancialViolation[] = [];
  const byDates = new Map(rows.filter((r) => r.ttm === null).map((r) => [`${r.period_start}/${r.period_end}/${r.months}`, r]));
  rows.forEach((row, i) => {
    if (!row.ttm) return;
    const parts = row.ttm.periods.map((p) => byDates.get(`${p.period_start}/${p.period_end}/${p.fiscal_quarter === "FY" ? 12 : 3}`));
    for (const metric of TTM_SUMMED) {
      const value = valueOf(row, metric);
      if (value === null) continue;
      if (parts.some((p) => !p || valueOf(p, metric) === null)) {
        out.push(violation("ttm", [i], metric, `TTM ${metric} to ${row.period_end} is ${value} but a period it is made of is missing or has none`, rows));
        continue;
      }
      const total = parts.reduce((s, p) => s + valueOf(p!, metric)!, 0);
      if (Math.abs(total - value) > 1e-12 * Math.max(1, Math.abs(total))) {
        const what = row.ttm.basis === "fiscal_year" ? "the fiscal year's" : "the sum of its four quarters";
        out.push(violation("ttm", [i], metric, `TTM ${metric} to ${row.period_end} is ${value}, ${what} ${total}`, rows));
      }
    }
  });
  return out;
}

/**
 * Cash paid out is never negative: a filed negative was flipped (statement-values.ts), so a negative here is a quarter
 * derived from years to date that shrink — a later filing's year to date below an earlier one's (Celadon's capex for
 * the half to December 2015, 67,093 thousand, under its first quarter's 67,442) — or a TTM summing one.
 */
function negativeOutflows(rows: readonly FinancialPeriod[]): FinancialViolation[] {
  const out: FinancialViolation[] = [];
  rows.forEach((row, i) => {
    for (const metric of OUTFLOW_METRICS) {
      const m = row.cash_flow?.[metric];
      if (!m || m.value >= 0) continue;
      out.push(violation("sign", [i], metric, signMessage(metric, m.value, row), rows));
    }
  });
  return out;
}

/** A flow's value in a row (metric names are unique across statements). */
function valueOf(row: FinancialPeriod, metric: FinancialMetricName): number | null {
  const m = (row.income as Record<string, { value: number } | null> | undefined)?.[metric] ?? (row.cash_flow as Record<string, { value: number } | null> | undefined)?.[metric];
  return m ? m.value : null;
}

function violation(rule: FinancialInvariant, indices: number[], metric: FinancialMetricName | null, message: string, rows: readonly FinancialPeriod[]): FinancialViolation {
  return { rule, rows: indices, metric, message, marked: indices.every((i) => rows[i]!.exceptions.some((e) => e.rule === rule && e.metric === metric)) };
}
