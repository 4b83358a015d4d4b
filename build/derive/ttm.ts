// Trailing twelve months (issue 18): at each quarter end, the sum of the latest four discrete quarters of every flow,
// or the fiscal year itself at a year end, over time. Which sums stand on a date, and why the others are null (a
// quarter missing, a year whose quarters did not add up then), is the `ttm` block, read as of the date from the rows'
// histories (schemas/financials-ttm.ts) by the builder and the gateway alike. Per-share TTM only from the TTM income
// the company's EPS divides (its net income, or the numerator it tags) and weighted shares (basic for basic EPS,
// diluted for diluted), never by adding EPS. Pure.
import { PER_SHARE_METRICS, SHARE_COUNTS, type FiscalQuarter } from "../../schemas/earnings.ts";
import type { Ttm } from "../../schemas/financials.ts";
import { TTM_SUMMED } from "../../schemas/financials-ttm.ts";
import { addDays, dayNumber, durationDays, SAME_PERIOD_DAYS } from "./periods.ts";
import type { EpsNumerator } from "./statement-concepts.ts";
import { freeCashFlow, newRow, type Row } from "./statement-rows.ts";
import { computedEntry, computedTimeline, isQuotient, perShare, type Entry } from "./vintage.ts";

/**
 * TTM rows: one per fiscal year (the year as filed: the latest period is its end) and one per other quarter end (its
 * four quarters, chained by dates: each starts the day after the one before ends, within period identity's week).
 */
export function deriveTtm(rows: readonly Row[], years: ReadonlyMap<number, readonly Row[]>): Row[] {
  const index = new Map([...years].map(([fiscalYear, group]) => [fiscalYear, yearIndex(group)]));
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
    out.push(fromQuarters(chain, q.row, index, chain.length === 4 ? chain[0]!.start : twelveMonthsTo(q.row, quarters)));
  }
  return out;
}

/**
 * Where the twelve months to a quarter begin when fewer than four quarters chain to it (a company's first 10-Qs in
 * XBRL, a newly listed company's): the day after the same quarter a year before ends, else a calendar year before its
 * end. Its dates are those of twelve months, never of the quarters that chain.
 */
function twelveMonthsTo(last: Row, quarters: readonly { row: Row; end: number }[]): string {
  const yearBefore = quarters.find((q) => q.row.base.fiscal_year === last.base.fiscal_year - 1 && q.row.base.fiscal_quarter === last.base.fiscal_quarter);
  if (yearBefore) return addDays(yearBefore.row.end, 1);
  const end = new Date(`${last.end}T00:00:00Z`);
  end.setUTCFullYear(end.getUTCFullYear() - 1); // 29 February a year before is 1 March
  return addDays(end.toISOString().slice(0, 10), 1);
}

/** A fiscal year as TTM reads it: its row and its year-to-date rows by quarter (the per-share parts). */
interface YearIndex {
  year: Row | undefined;
  ytd: Map<number, Row>;
}

function yearIndex(group: readonly Row[]): YearIndex {
  const year = group.find((r) => r.months === 12 && r.base.fiscal_quarter === "FY");
  const ytd = new Map<number, Row>();
  for (const r of group) if (r.base.fiscal_quarter === `Q${r.months / 3}`) ytd.set(r.months / 3, r);
  return { year, ytd };
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
  for (const name of [...TTM_SUMMED, "free_cash_flow" as const, ...PER_SHARE_METRICS]) if (year.timelines[name]) row.timelines[name] = year.timelines[name];
  row.ttm = { basis: "fiscal_year", periods: [period(year)], unavailable: [] };
  row.provenance = provenance(year);
  return row;
}

/**
 * The sums of four chained quarters over time, wherever all four have a flow (fewer quarters: none). Whether a sum
 * stands on a date — its quarters' fiscal years adding up then — is read with the block (schemas/financials-ttm.ts).
 */
function fromQuarters(chain: Row[], last: Row, years: ReadonlyMap<number, YearIndex>, start: string): Row {
  const row = ttmRow(last, start, last.base.fiscal_quarter);
  if (chain.length === 4) {
    for (const metric of TTM_SUMMED) {
      const parts = chain.map((q) => q.timelines[metric]);
      if (parts.some((p) => !p)) continue;
      const timeline = computedTimeline(parts as Entry[][], sum);
      if (timeline.length) row.timelines[metric] = timeline;
    }
    perShareTtm(row, last, years);
  }
  ttmFreeCashFlow(row);
  row.ttm = { basis: "four_quarters", periods: chain.map(period), unavailable: [] };
  row.provenance = provenance(last);
  return row;
}

/** The filing a TTM row stands from when none of its values can be made: the first of its last period's values. */
function provenance(last: Row): Row["provenance"] {
  const first = TTM_SUMMED.map((m) => last.timelines[m]?.[0]).filter((e) => e !== undefined).sort((a, b) => (a.from < b.from ? -1 : 1))[0];
  return first && { form: first.form, filed_at: first.from, source_accession: first.accn };
}

/**
 * TTM weighted shares, basic and diluted, as day-weighted averages over the twelve months, from the weighted averages
 * the company filed: share-days of last fiscal year − of its year to date at this quarter + of this year to date
 * (share-days add up over time; a weighted average does not); TTM EPS = the TTM income EPS divides ÷ those shares.
 */
function perShareTtm(row: Row, last: Row, years: ReadonlyMap<number, YearIndex>): void {
  const quarter = Number(last.base.fiscal_quarter.slice(1));
  const [before, now] = [years.get(last.base.fiscal_year - 1), years.get(last.base.fiscal_year)];
  const parts = [before?.year, before?.ytd.get(quarter), now?.ytd.get(quarter)];
  if (parts.some((p) => !p)) return;
  const days = parts.map((p) => durationDays(p!.start, p!.end));
  for (const kind of SHARE_COUNTS) {
    const { shares: count, eps: per } = kind;
    const timelines = parts.map((p) => p!.timelines[count]);
    if (timelines.some((t) => !t)) continue;
    const shares = computedTimeline(timelines as Entry[][], ([year, before, now]) => {
      if (!year || !before || !now) return null;
      const total = days[0]! - days[1]! + days[2]!;
      const value = Math.round((year.value * days[0]! - before.value * days[1]! + now.value * days[2]!) / total);
      return computedEntry([year, before, now], value, year.concept);
    });
    if (!shares.length) continue;
    row.timelines[count] = shares;
    const income = epsIncome(row, parts as Row[], kind);
    const eps = income ? computedTimeline([income, shares], ([n, s]) => (n && s && s.value > 0 ? perShare(n, s) : null)) : [];
    if (eps.length) row.timelines[per] = eps;
  }
}

/**
 * The TTM income an EPS divides, over time. Most companies' EPS divides their net income, and they tag no numerator:
 * then TTM net income (so too on the dates before any numerator of these periods was filed). A company whose EPS
 * divides less — net income after preferred dividends, or the share of participating securities (two-class method),
 * or for diluted EPS adjusted for dilutive securities — tags that numerator (EPS_NUMERATORS), and its TTM EPS
 * divides it, reckoned over the periods the shares are (last fiscal year − its year to date + this year to date): a
 * diluted numerator, like a diluted count, is reckoned for each period as a whole, and its quarters need not add up
 * to its year. Each period's income is the first of its own numerator, then the next ones (diluted: the basic
 * numerator, then net income), that its EPS of that kind, as filed, shows it divides (income ÷ its weighted shares);
 * its own as tagged where it has no EPS to check against; else there is no TTM EPS. SUNation tags its numerator for
 * 2022, −27.2 million against net income of −10.4 million (10-K 0000022701-23-000008, preferred stock adjustments),
 * and none for its first quarter, whose EPS of −0.58 is its net income of −1.88 million ÷ its 3.23 million shares
 * (10-Q 0000022701-22-000009). A REIT may tag its operating partnership's outside unitholders' income under the
 * partnership's numerator concept: its EPS shows that is not its own.
 */
function epsIncome(row: Row, parts: readonly Row[], kind: (typeof SHARE_COUNTS)[number]): Entry[] | undefined {
  const numerators: EpsNumerator[] = kind.kind === "basic" ? ["_eps_income_basic"] : ["_eps_income_diluted", "_eps_income_basic"];
  if (!parts.some((p) => numerators.some((name) => p.timelines[name]))) return row.timelines.net_income;
  const incomes: Entry[][] = [];
  for (const p of parts) {
    const candidates = [...numerators.map((name) => p.timelines[name] ?? []), p.timelines.net_income ?? []];
    incomes.push(
      computedTimeline([...candidates, p.timelines[kind.eps] ?? [], p.timelines[kind.shares] ?? []], (current) => {
        const [eps, shares] = current.slice(-2);
        const tagged = current.slice(0, -2); // its own numerator first
        if (eps == null || shares == null || shares.value <= 0) return tagged[0] ?? null; // nothing to check against
        return tagged.find((e) => e != null && isQuotient(eps.value, e.value, shares.value)) ?? null;
      }),
    );
  }
  // As of each date: TTM net income while none of the periods had a numerator filed (a derivation then knew of none).
  const filed = parts.flatMap((p) => numerators.map((name) => p.timelines[name] ?? []));
  const timeline = computedTimeline([...incomes, row.timelines.net_income ?? [], ...filed], (current) => {
    const [year, before, now, ttm] = current;
    if (current.slice(4).every((e) => e === null)) return ttm ?? null;
    if (!year || !before || !now || before.unit !== year.unit || now.unit !== year.unit) return null;
    return computedEntry([year, before, now], year.value - before.value + now.value, [...new Set([year.concept, before.concept, now.concept])].join("+"));
  });
  return timeline.length ? timeline : undefined;
}

/** TTM free cash flow = TTM operating cash flow − TTM capital expenditure, wherever both are summed. */
function ttmFreeCashFlow(row: Row): void {
  const [ocf, capex] = [row.timelines.operating_cash_flow, row.timelines.capital_expenditure];
  if (!ocf || !capex) return;
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

/** A period a TTM is made of: its labels and dates (its filings and marks are read as of a date with the block). */
function period(r: Row): Ttm["periods"][number] {
  return { fiscal_year: r.base.fiscal_year, fiscal_quarter: r.base.fiscal_quarter, period_start: r.start, period_end: r.end, derived: false, accessions: [] };
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
