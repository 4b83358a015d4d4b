// A trailing-twelve-month row's `ttm` block as it stood on a date (issue 18; point in time): which periods it is made
// of and the filings their values came from, and which flows are null and why — read from the document's other rows
// and their histories, so that the builder (today: LATEST) and the gateway (`as_of`) give one answer and an as-of
// answer uses only filings accepted by then. The builder stores the sums over time (ttm.ts); this decides which of
// them stand on a date: a year whose quarters stopped adding up on a later date still adds up before it.
import { PER_SHARE_METRICS, SHARE_COUNTS, splitsKnownBy } from "./earnings.ts";
import { entryOn, LATEST } from "./earnings-history.ts";
import { straddledChange, type EntityChange } from "./entity-change.ts";
import type { FinancialPeriodHistory, FinancialsContext } from "./financials-row-history.ts";
import { FLOW_METRICS, type FinancialMetricName, type FinancialPeriod, type StatementHistoryEntry, type Ttm } from "./financials.ts";

/** The flows a TTM sums: the additive income metrics and the filed cash flows (free cash flow follows from two). */
export const TTM_SUMMED = [
  "revenue",
  "net_income",
  "operating_income",
  "gross_profit",
  "operating_cash_flow",
  "capital_expenditure",
  "dividends_paid",
  "share_repurchases",
] as const satisfies readonly FinancialMetricName[];

type Gap = Ttm["unavailable"][number];
type Part = Ttm["periods"][number];

/**
 * The `ttm` block of a TTM row on `date`. The row's own block gives its shape (basis, the periods' labels and dates,
 * fixed by dates); the periods' accessions and derived marks, and every gap, are read as of the date: a quarter not
 * yet filed, a fiscal year whose quarters did not add up then.
 */
export function ttmAsOf(row: FinancialPeriod, history: TtmHistory, context: FinancialsContext, date: string): Ttm {
  const shape = row.ttm!;
  const at = (index: number | undefined, metric: FinancialMetricName): StatementHistoryEntry | null =>
    index === undefined ? null : (entryOn(context.histories[index]!.metrics[metric], date) ?? null);
  const part = (p: Part, index: number | undefined, metrics: readonly FinancialMetricName[]): Part => {
    const key = date === LATEST && index !== undefined ? `${index}/${shape.basis}` : null;
    const known = key === null ? undefined : context.latestParts.get(key);
    if (known) return known;
    const used = metrics.map((m) => at(index, m)).filter((e) => e !== null);
    const derived = (index !== undefined && context.rows[index]!.derived) || used.some((e) => e.derived);
    const made = { ...p, derived, accessions: [...new Set(used.map((e) => e.accession))].sort() };
    if (key !== null) context.latestParts.set(key, made);
    return made;
  };
  if (shape.basis === "fiscal_year") {
    const p = shape.periods[0]!;
    const year = context.bySpan.get(spanKey(p.period_start, p.period_end, 12));
    const unavailable: Gap[] = TTM_SUMMED.filter((m) => !at(year, m)).map((metric) => ({ metric, reason: "missing_value", message: `fiscal ${p.fiscal_year} reports no ${metric}` }));
    return { basis: shape.basis, periods: [part(p, year, [...TTM_SUMMED, ...PER_SHARE_METRICS])], unavailable };
  }
  // As of a date the chain is the quarters reported by then, back from the last: a company's first 10-Qs in XBRL
  // chain fewer than four, whatever later filings' comparatives add (as a derivation on that day makes it). Today
  // every row of the document has been reported.
  const indexes = shape.periods.map((p) => context.bySpan.get(spanKey(p.period_start, p.period_end, 3)));
  let from = date === LATEST ? 0 : shape.periods.length;
  while (from > 0 && firstReport(indexes[from - 1], date, context)) from--;
  if (from === shape.periods.length) from = 0; // its last quarter not yet reported: financialAsOf leaves the row out
  const chain = shape.periods.slice(from);
  const quarters = indexes.slice(from);
  const gaps: Gap[] = [];
  const own = (metric: FinancialMetricName) => entryOn(history.metrics[metric], date) !== undefined;
  if (chain.length < 4) {
    const message = `no quarter ends the day before ${chain[0]!.period_start} (${label(chain[0]!)} begins then): the four quarters to ${row.period_end} are not all reported`;
    for (const metric of TTM_SUMMED) gaps.push({ metric, reason: "missing_quarter", message });
  } else {
    const misses = new Map<number, Map<string, number>>();
    const missesOf = (fiscalYear: number) => {
      let found = misses.get(fiscalYear);
      if (!found) {
        const year = context.byLabel.get(labelKey(fiscalYear, "FY", 12));
        const verdict = year === undefined ? undefined : context.histories[year]!.reconciliation?.findLast((s) => s.from <= date);
        misses.set(fiscalYear, (found = new Map((verdict?.reconciliation ?? []).map((m) => [m.metric, m.difference]))));
      }
      return found;
    };
    for (const metric of TTM_SUMMED) {
      const parts = quarters.map((q) => at(q, metric));
      const lacking = parts.findIndex((p) => p === null);
      if (lacking >= 0) {
        if (parts.some((p) => p !== null)) gaps.push({ metric, reason: "missing_value", message: `${label(chain[lacking]!)} has no ${metric}` });
        continue;
      }
      const change = straddledChange(parts.map((e) => e!.filed_at), history.entity_changes, date);
      if (change) {
        gaps.push({ metric, reason: "entity_change", message: entityChangeMessage(`its quarters' values of ${metric}`, change) });
        continue;
      }
      const q = chain.find((c) => missesOf(c.fiscal_year).has(metric));
      if (q) {
        const difference = missesOf(q.fiscal_year).get(metric);
        gaps.push({ metric, reason: "unreconciled", message: `fiscal ${q.fiscal_year}'s quarters miss its year by ${difference} in ${metric} (see that year's reconciliation), so its quarters cannot be summed` });
      }
    }
    perShareGaps(row, history, context, date, at, own, gaps);
  }
  const standing = (metric: FinancialMetricName) => own(metric) && !gaps.some((g) => g.metric === metric);
  if (!standing("operating_cash_flow") || !standing("capital_expenditure")) {
    const cause = gaps.find((g) => g.metric === (standing("operating_cash_flow") ? "capital_expenditure" : "operating_cash_flow"));
    if (cause) gaps.push({ metric: "free_cash_flow", reason: cause.reason, message: `${cause.metric}: ${cause.message}` });
  }
  return { basis: shape.basis, periods: chain.map((p, i) => part(p, quarters[i], TTM_SUMMED)), unavailable: gaps };
}

/** What a TTM row's own history gives its block: its values over time, the company's splits and changes of entity. */
type TtmHistory = Pick<FinancialPeriodHistory, "metrics" | "splits" | "splits_known" | "entity_changes">;

function entityChangeMessage(what: string, change: EntityChange): string {
  return `${what} were filed on both sides of a change of reporting entity (${change.accession}, filed ${change.filed_at}, gave another company's balance sheet at ${change.date}): their sum would mix two companies`;
}

/**
 * TTM weighted shares, basic and diluted, come from the filed weighted averages (last fiscal year, its year to date at
 * this quarter, this year to date): null while one of them is not filed, or while they were filed on both sides of a
 * stock split known by then (counts of two bases: SUNation's 2023 year from a 10-K after its reverse split, its half
 * from a 10-Q before it), or where they cannot be one company's counts (their day-weighted average comes out at no
 * shares); TTM EPS needs TTM net income too, and the income the company's EPS divides where that is not its net
 * income (its numerator, for each of the same periods).
 */
function perShareGaps(
  row: FinancialPeriod,
  history: TtmHistory,
  context: FinancialsContext,
  date: string,
  at: (index: number | undefined, metric: FinancialMetricName) => StatementHistoryEntry | null,
  own: (metric: FinancialMetricName) => boolean,
  gaps: Gap[],
): void {
  const quarter = Number(row.fiscal_quarter.slice(1));
  const parts = [labelKey(row.fiscal_year - 1, "FY", 12), labelKey(row.fiscal_year - 1, row.fiscal_quarter, quarter * 3), labelKey(row.fiscal_year, row.fiscal_quarter, quarter * 3)];
  const noIncome = !own("net_income") || gaps.some((g) => g.metric === "net_income");
  const splits = splitsKnownBy(history.splits, history.splits_known, date);
  for (const { shares, eps, kind } of SHARE_COUNTS) {
    const counts = parts.map((key) => at(context.byLabel.get(key), shares));
    if (counts.some((e) => !e)) {
      const message = `the ${kind} weighted share counts of the last fiscal year and of both years to date are needed for a TTM share count, and one is not reported`;
      gaps.push({ metric: shares, reason: "no_weighted_shares", message }, { metric: eps, reason: "no_weighted_shares", message });
      continue;
    }
    const dates = counts.map((e) => e!.filed_at).sort();
    const change = straddledChange(dates, history.entity_changes, date);
    if (change) {
      const message = entityChangeMessage(`the ${kind} weighted share counts it is made of`, change);
      gaps.push({ metric: shares, reason: "entity_change", message }, { metric: eps, reason: "entity_change", message });
      continue;
    }
    const split = splits.find((by) => dates[0]! < by && by <= dates[2]!);
    const value = entryOn(history.metrics[shares], date)?.value;
    if (split !== undefined || (value !== undefined && value <= 0)) {
      const message =
        split !== undefined
          ? `the ${kind} weighted share counts it is made of were filed on both sides of the stock split of ${split} (filed ${dates[0]} to ${dates[2]}): counts of two bases do not combine`
          : `the ${kind} weighted share counts it is made of do not combine: their day-weighted average comes out at no shares (counts of two bases, or one restated between their filings)`;
      gaps.push({ metric: shares, reason: "split_basis", message }, { metric: eps, reason: "split_basis", message });
    } else if (noIncome || !own(shares)) {
      gaps.push({ metric: eps, reason: "missing_value", message: "no TTM net income to divide" });
    } else if (!own(eps)) {
      // Income and shares stand: what is missing is the income this EPS divides (build/derive/ttm.ts epsIncome).
      const message = `the company's ${kind} EPS divides other than its net income (after preferred dividends or participating securities), and for one of the last fiscal year and the two years to date that numerator is neither reported nor shown by the period's EPS to be its net income`;
      gaps.push({ metric: eps, reason: "no_eps_numerator", message });
    }
  }
}

export function spanKey(start: string, end: string, months: number): string {
  return `${start}/${end}/${months}`;
}

export function labelKey(fiscalYear: number, fiscalQuarter: string, months: number): string {
  return `${fiscalYear}/${fiscalQuarter}/${months}`;
}

/**
 * A period's first reported flow, if filed by `date` (the earliest entry of its income and cash flow metrics: what
 * makes a quarter or a year a period of its own, where a balance sheet date alone does not); null for a row not in the
 * document. Each row's is found once per document (FinancialsContext.firstReports).
 */
function firstReport(index: number | undefined, date: string, context: FinancialsContext): StatementHistoryEntry | null {
  if (index === undefined) return null;
  let first = context.firstReports.get(index);
  if (first === undefined) {
    first = null;
    const metrics = context.histories[index]!.metrics;
    for (const name of FLOW_METRICS) {
      const e = metrics[name]?.[0];
      if (e && (!first || effectiveFrom(e) < effectiveFrom(first))) first = e;
    }
    context.firstReports.set(index, first);
  }
  return first && effectiveFrom(first) <= date ? first : null;
}

/** The first reported flow of a TTM row's last period (its fiscal year, or its last quarter), if filed by `date`. */
export function lastPeriodReport(ttm: Ttm, date: string, context: FinancialsContext): StatementHistoryEntry | null {
  const last = ttm.periods.at(-1)!;
  return firstReport(context.bySpan.get(spanKey(last.period_start, last.period_end, ttm.basis === "fiscal_year" ? 12 : 3)), date, context);
}

function effectiveFrom(e: StatementHistoryEntry): string {
  return e.effective_from ?? e.filed_at;
}

function label(p: Part): string {
  return `${p.fiscal_quarter} ${p.fiscal_year} (${p.period_start}..${p.period_end})`;
}
