// Trailing twelve months (issue 18): at each quarter end, the sum of the latest four discrete quarters of every flow,
// or the fiscal year itself at a year end; null, with the reason, where a quarter is missing or its year does not
// reconcile. Per-share TTM only from TTM net income and weighted shares, never by adding EPS. Pure.
import type { FiscalQuarter } from "../../schemas/earnings.ts";
import type { FinancialMetricName, Ttm } from "../../schemas/financials.ts";
import { SAME_PERIOD_DAYS } from "./period-identity.ts";
import { dayNumber, durationDays } from "./periods.ts";
import { ADDITIVE, freeCashFlow, newRow, type Row } from "./statement-rows.ts";
import { computedEntry, computedTimeline, perShare, type Entry } from "./vintage.ts";

/** The flows a TTM row sums (free cash flow follows from two of them), and the per-share values a year carries. */
const SUMMED: readonly FinancialMetricName[] = ADDITIVE;
const PER_SHARE: readonly FinancialMetricName[] = ["eps_basic", "eps_diluted", "diluted_shares"];
type Gap = Ttm["unavailable"][number];

/**
 * TTM rows: one per fiscal year (the year as filed: the latest period is its end) and one per other quarter end (its
 * four quarters, chained by dates: each starts the day after the one before ends, within period identity's week).
 */
export function deriveTtm(rows: readonly Row[], years: ReadonlyMap<number, readonly Row[]>): Row[] {
  const index = new Map([...years].map(([label, group]) => [label, yearIndex(group)]));
  const fiscalYears = rows.filter((r) => r.months === 12 && r.base.fiscal_quarter === "FY");
  const yearEnds = fiscalYears.map((y) => dayNumber(y.end));
  const quarters = rows
    .filter((r) => r.months === 3)
    .map((row) => ({ row, end: dayNumber(row.end) }))
    .sort((a, b) => a.end - b.end);
  const out: Row[] = fiscalYears.map(fromYear);
  for (const q of quarters) {
    if (yearEnds.some((end) => Math.abs(end - q.end) <= SAME_PERIOD_DAYS)) continue; // the year's TTM is the year
    const chain = [q.row];
    for (let k = 0; k < 3; k++) {
      const previous = nearest(quarters, dayNumber(chain[0]!.start) - 1);
      if (!previous) break;
      chain.unshift(previous);
    }
    out.push(fromQuarters(chain, q.row, index));
  }
  return out;
}

/** A fiscal year as TTM reads it: the year's row, its year-to-date rows by quarter, today's misses by metric. */
interface YearIndex {
  year: Row | undefined;
  ytd: Map<number, Row>;
  misses: Map<string, number>;
}

function yearIndex(group: readonly Row[]): YearIndex {
  const year = group.find((r) => r.months === 12 && r.base.fiscal_quarter === "FY");
  const ytd = new Map<number, Row>();
  for (const r of group) if (r.base.fiscal_quarter === `Q${r.months / 3}`) ytd.set(r.months / 3, r);
  const misses = new Map((year?.reconciliation?.at(-1)?.reconciliation ?? []).map((m) => [m.metric, m.difference]));
  return { year, ytd, misses };
}

/** The quarter ending closest to a day, within period identity's week (quarters sorted by end). */
function nearest(quarters: readonly { row: Row; end: number }[], day: number): Row | undefined {
  let [lo, hi] = [0, quarters.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (quarters[mid]!.end < day) lo = mid + 1;
    else hi = mid;
  }
  let best: Row | undefined;
  let distance = SAME_PERIOD_DAYS + 1;
  for (const i of [lo - 1, lo]) {
    const q = quarters[i];
    if (q && Math.abs(q.end - day) < distance) [best, distance] = [q.row, Math.abs(q.end - day)];
  }
  return best;
}

/** At a fiscal year end the TTM is the year as filed (issue 18: "or FY when the latest period is a fiscal year end"). */
function fromYear(year: Row): Row {
  const row = ttmRow(year, year.start, "Q4");
  for (const name of [...SUMMED, "free_cash_flow" as const, ...PER_SHARE]) if (year.timelines[name]) row.timelines[name] = year.timelines[name];
  row.ttm = { basis: "fiscal_year", periods: [period(year, [...SUMMED, ...PER_SHARE])], unavailable: missing(year) };
  return row;
}

/** The sum of four chained quarters (fewer: every flow null, the missing quarter named). */
function fromQuarters(chain: Row[], last: Row, years: ReadonlyMap<number, YearIndex>): Row {
  const row = ttmRow(last, chain[0]!.start, last.base.fiscal_quarter);
  const gaps: Gap[] = [];
  if (chain.length < 4) {
    const message = `no quarter ends the day before ${chain[0]!.start} (${label(chain[0]!)} begins then): the four quarters to ${last.end} are not all reported`;
    for (const metric of SUMMED) gaps.push({ metric, reason: "missing_quarter", message });
  } else {
    for (const metric of SUMMED) {
      const parts = chain.map((q) => q.timelines[metric]);
      const lacking = chain.find((q) => !q.timelines[metric]);
      if (lacking) {
        if (parts.some((p) => p)) gaps.push({ metric, reason: "missing_value", message: `${label(lacking)} has no ${metric}` });
        continue;
      }
      const q = chain.find((c) => years.get(c.base.fiscal_year)?.misses.has(metric));
      if (q) {
        const difference = years.get(q.base.fiscal_year)!.misses.get(metric);
        gaps.push({ metric, reason: "unreconciled", message: `fiscal ${q.base.fiscal_year}'s quarters miss its year by ${difference} in ${metric} (see that year's reconciliation), so its quarters cannot be summed` });
        continue;
      }
      const timeline = computedTimeline(parts as Entry[][], sum);
      if (timeline.length) row.timelines[metric] = timeline;
    }
    perShareTtm(row, chain, last, years, gaps);
  }
  ttmFreeCashFlow(row, gaps);
  row.ttm = { basis: "four_quarters", periods: chain.map((q) => period(q, SUMMED)), unavailable: gaps };
  if (Object.keys(row.timelines).length === 0) {
    // Nothing to sum: the row stands with its reasons, from when its last quarter was filed.
    const first = SUMMED.map((m) => last.timelines[m]?.[0]).filter((e) => e !== undefined).sort((a, b) => (a.from < b.from ? -1 : 1))[0];
    if (first) row.provenance = { form: first.form, filed_at: first.from, source_accession: first.accn };
  }
  return row;
}

/**
 * TTM diluted shares as a day-weighted average over the twelve months, from the weighted averages the company filed:
 * share-days of last fiscal year − of its year to date at this quarter + of this year to date (share-days add up over
 * time; a weighted average does not); TTM diluted EPS = TTM net income ÷ those shares.
 */
function perShareTtm(row: Row, chain: readonly Row[], last: Row, years: ReadonlyMap<number, YearIndex>, gaps: Gap[]): void {
  const quarter = Number(last.base.fiscal_quarter.slice(1));
  const [before, now] = [years.get(last.base.fiscal_year - 1), years.get(last.base.fiscal_year)];
  const parts = [before?.year, before?.ytd.get(quarter), now?.ytd.get(quarter)];
  const timelines = parts.map((p) => p?.timelines.diluted_shares);
  gaps.push({ metric: "eps_basic", reason: "no_weighted_shares", message: "only diluted EPS is computed for a TTM (from TTM net income and diluted weighted shares); basic weighted shares are not among the series" });
  if (timelines.some((t) => !t) || chain.length < 4) {
    const message = "the diluted weighted share counts of the last fiscal year and of both years to date are needed for a TTM share count, and one is not reported";
    gaps.push({ metric: "diluted_shares", reason: "no_weighted_shares", message }, { metric: "eps_diluted", reason: "no_weighted_shares", message });
    return;
  }
  const days = parts.map((p) => durationDays(p!.start, p!.end));
  const shares = computedTimeline(timelines as Entry[][], ([year, before, now]) => {
    if (!year || !before || !now) return null;
    const total = days[0]! - days[1]! + days[2]!;
    const value = Math.round((year.value * days[0]! - before.value * days[1]! + now.value * days[2]!) / total);
    return computedEntry([year, before, now], value, year.concept);
  });
  if (shares.length) row.timelines.diluted_shares = shares;
  const income = row.timelines.net_income;
  if (!income || !shares.length) {
    gaps.push({ metric: "eps_diluted", reason: "missing_value", message: "no TTM net income to divide" });
    return;
  }
  const eps = computedTimeline([income, shares], ([n, s]) => (n && s && s.value > 0 ? perShare(n, s) : null));
  if (eps.length) row.timelines.eps_diluted = eps;
}

/** TTM free cash flow = TTM operating cash flow − TTM capital expenditure (null with the reason one of them has). */
function ttmFreeCashFlow(row: Row, gaps: Gap[]): void {
  const [ocf, capex] = [row.timelines.operating_cash_flow, row.timelines.capital_expenditure];
  if (!ocf || !capex) {
    const cause = gaps.find((g) => g.metric === (ocf ? "capital_expenditure" : "operating_cash_flow"));
    if (cause) gaps.push({ metric: "free_cash_flow", reason: cause.reason, message: `${cause.metric}: ${cause.message}` });
    return;
  }
  const fcf = freeCashFlow(ocf, capex);
  if (fcf.length) row.timelines.free_cash_flow = fcf;
}

/** A TTM row ending where `last` ends: its labels, derived. */
function ttmRow(last: Row, start: string, quarter: FiscalQuarter): Row {
  const label = { fiscalYear: last.base.fiscal_year, fiscalQuarter: quarter, source: last.base.label_source, labelAccession: last.base.label_accession, filed: null };
  const row = newRow(start, last.end, 12, label, true);
  row.base.calendar_frame = null;
  return row;
}

/** How each period enters a TTM (the same quarter enters four). */
const PERIODS = new WeakMap<Row, Ttm["periods"][number]>();

/** How a period enters a TTM: its labels, dates, whether derived, and the filings its values came from. */
function period(r: Row, metrics: readonly FinancialMetricName[]): Ttm["periods"][number] {
  const known = PERIODS.get(r);
  if (known) return known;
  const used = metrics.map((m) => r.timelines[m]?.at(-1)).filter((e) => e !== undefined);
  const made = {
    fiscal_year: r.base.fiscal_year,
    fiscal_quarter: r.base.fiscal_quarter,
    period_start: r.start,
    period_end: r.end,
    derived: r.base.derived || used.some((e) => e.derived),
    accessions: [...new Set(used.map((e) => e.accn))].sort(),
  };
  PERIODS.set(r, made);
  return made;
}

/** Flows a fiscal year does not report: its TTM lacks them too. */
function missing(year: Row): Gap[] {
  return SUMMED.filter((metric) => !year.timelines[metric]).map((metric) => ({ metric, reason: "missing_value" as const, message: `fiscal ${year.base.fiscal_year} reports no ${metric}` }));
}

/** The sum of the entries in effect, when all four are and share a unit (in the latest one's provenance). */
function sum(current: (Entry | null)[]): Entry | null {
  if (current.some((e) => !e) || current.some((e) => e!.unit !== current[0]!.unit)) return null;
  const entries = current as Entry[];
  let value = 0;
  const concepts: string[] = [];
  for (const e of entries) {
    value += e.value;
    if (!concepts.includes(e.concept)) concepts.push(e.concept);
  }
  return computedEntry(entries, value, concepts.length === 1 ? concepts[0]! : concepts.join("+"));
}

function label(r: Row): string {
  return `${r.base.fiscal_quarter} ${r.base.fiscal_year} (${r.start}..${r.end})`;
}
