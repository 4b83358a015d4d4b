// A company's screen timelines (issue 40): for each calendar frame and `ttm`, each metric's value as the company's own
// /financials answer gave it from each date on. Read with the gateway's own point-in-time reading (financialAsOf) at
// every date its inputs change, so a screen's value is byte for byte the company's answer, today and as of any day.
import { LATEST } from "../../schemas/earnings-history.ts";
import { PER_SHARE_METRICS } from "../../schemas/earnings.ts";
import { sameScreenValue, type MadeTimelines, type ScreenMark, type ScreenValue } from "../../schemas/cross.ts";
import { financialAsOf, financialsContext } from "../../schemas/financials-history.ts";
import type { FinancialPeriodHistory, FinancialReconciliationState, FinancialsContext } from "../../schemas/financials-row-history.ts";
import { labelKey } from "../../schemas/financials-ttm.ts";
import { FLOW_METRICS, STATEMENT_METRICS, STATEMENTS, type FinancialMetricName, type FinancialPeriod, type Statement, type StatementMetric } from "../../schemas/financials.ts";

/** The frame of the trailing twelve months: each company's latest TTM row. */
export const TTM_FRAME = "ttm";

const QUARTER_FRAME = /^CY\d{4}Q[1-4]$/;
const YEAR_FRAME = /^CY\d{4}$/;
/** Each metric with its statement, in FINANCIAL_METRIC_NAMES's order (a timeline's metrics are listed in it). */
const METRICS = STATEMENTS.flatMap((statement) => STATEMENT_METRICS[statement].map((metric) => ({ metric: metric as FinancialMetricName, statement })));
const FLOWS: ReadonlySet<string> = new Set(FLOW_METRICS);
const PER_SHARE: ReadonlySet<string> = new Set([...PER_SHARE_METRICS, "shares_outstanding"]);

/**
 * Every frame the company's rows file under, with each metric's states. A frame's value on a date is its first row
 * (the document's order: newest period end first) that the company had reported by then — as `/financials?period=F`
 * lists them — and that row's metric; `ttm` likewise over the TTM rows (`period=ttm`: the latest first).
 */
export function frameTimelines(rows: readonly FinancialPeriod[], histories: readonly FinancialPeriodHistory[]): Record<string, MadeTimelines> {
  const context = financialsContext(rows, histories);
  const byFrame = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const frame = frameOf(row);
    if (frame === null) return;
    const list = byFrame.get(frame);
    if (list) list.push(i);
    else byFrame.set(frame, [i]);
  });
  // A TTM row's block is read from its quarters' and years' rows: every date the company's values changed counts.
  const allDates = [...new Set(histories.flatMap(historyDates))].sort();
  const out: Record<string, MadeTimelines> = {};
  for (const [frame, indices] of byFrame) {
    const ttm = frame === TTM_FRAME;
    const dates = ttm ? allDates : frameDates(indices, rows, context);
    // A TTM row's reading is the costliest (its quarters' and years' blocks), and the search for its first date reads
    // it on the dates the timeline then reads it on: each read once. A frame's row is read once a date anyway.
    const read = ttm ? remembered(readerOf(context)) : readerOf(context);
    const timelines = timelinesOf(ttm ? newestFirst(indices, allDates, context, read) : indices, dates, context, read);
    if (Object.keys(timelines).length) out[frame] = timelines;
  }
  return out;
}

/**
 * The frame's rows, newest first, each from the first of `dates` it was reported by: the rows a date's reading tries,
 * cut to those reported by then. A reading once reported stays reported, so each row's first date is searched for
 * (a TTM row every quarter: trying each of them on each date cost most of a company's time).
 */
function newestFirst(indices: readonly number[], dates: readonly string[], context: FinancialsContext, read: Reader): Candidates {
  const from = new Map<number, string>();
  for (const i of indices) {
    const reported = (k: number) => read(i, dates[k]!) !== null;
    // Most often the first filing of the row's own values (nine in ten TTM rows): searched outwards from there.
    let own = LATEST;
    for (const entries of Object.values(context.histories[i]!.metrics)) for (const e of entries ?? []) if (e.filed_at < own) own = e.filed_at;
    const first = firstReported(dates.length, reported, firstHolding(0, dates.length, (k) => dates[k]! >= own));
    if (first < dates.length) from.set(i, dates[first]!);
  }
  return { indices: indices.filter((i) => from.has(i)), from };
}

/**
 * The first of `n` indices at which `reported` holds (n when none does), given that once it holds it holds on: from
 * `guess` outwards by doubling steps, then by halving between the last two tried.
 */
function firstReported(n: number, reported: (k: number) => boolean, from: number): number {
  if (n === 0) return 0;
  const guess = Math.min(from, n - 1);
  let [lo, hi] = [0, n]; // the answer lies in [lo, hi]
  if (reported(guess)) {
    hi = guess;
    for (let step = 1; hi - step >= 0; step *= 2) {
      if (!reported(hi - step)) {
        lo = hi - step + 1;
        break;
      }
      hi -= step;
    }
  } else {
    lo = guess + 1;
    for (let step = 1; lo + step - 1 < n; step *= 2) {
      if (reported(lo + step - 1)) {
        hi = lo + step - 1;
        break;
      }
      lo += step;
    }
  }
  return firstHolding(lo, hi, reported);
}

/** The first index in [lo, hi) at which `holds` is true (hi when none), given that once true it stays true. */
function firstHolding(lo: number, hi: number, holds: (k: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (holds(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The frame a row files under: a quarter's or a fiscal year's calendar frame, `ttm` for a TTM row; null for the rest. */
function frameOf(row: FinancialPeriod): string | null {
  if (row.ttm !== null) return TTM_FRAME;
  const frame = row.calendar_frame;
  if (frame === null) return null;
  if (row.months === 3 && QUARTER_FRAME.test(frame)) return frame;
  if (row.months === 12 && YEAR_FRAME.test(frame)) return frame;
  return null;
}

/** The dates a frame's reading may change on: its rows' own, and for a quarter its fiscal year's verdicts (unreconciled). */
function frameDates(indices: readonly number[], rows: readonly FinancialPeriod[], context: FinancialsContext): string[] {
  const dates = new Set<string>();
  for (const i of indices) {
    for (const d of historyDates(context.histories[i]!)) dates.add(d);
    const year = yearRowOf(rows[i]!, context);
    for (const s of year === undefined ? [] : (context.histories[year]!.reconciliation ?? [])) dates.add(s.from);
  }
  return [...dates].sort();
}

/** Every date a row's reading can change on: its values' filings and effective dates, its verdicts, splits and spans. */
function historyDates(history: FinancialPeriodHistory): string[] {
  const out: string[] = [];
  for (const entries of Object.values(history.metrics)) for (const e of entries ?? []) out.push(e.effective_from ?? e.filed_at, e.filed_at);
  for (const s of history.reconciliation ?? []) out.push(s.from);
  for (const u of history.unavailable ?? []) out.push(u.from, ...(u.until === undefined ? [] : [u.until]));
  out.push(...(history.splits ?? []), ...(history.splits_known ?? []));
  for (const c of history.entity_changes ?? []) out.push(c.filed_at);
  return out;
}

/** Row `i` of the document as the company's answer gave it on a date (financialAsOf); null when not yet reported. */
type Reader = (i: number, date: string) => FinancialPeriod | null;

function readerOf(context: FinancialsContext): Reader {
  return (i, date) => financialAsOf(context.rows[i]!, context.histories[i]!, date, false, context);
}

/** A reader that reads each row on each date once. */
function remembered(read: Reader): Reader {
  const readings = new Map<number, Map<string, FinancialPeriod | null>>();
  return (i, date) => {
    let byDate = readings.get(i);
    if (!byDate) readings.set(i, (byDate = new Map()));
    let reading = byDate.get(date);
    if (reading === undefined) byDate.set(date, (reading = read(i, date)));
    return reading;
  };
}

/** A frame's rows in the document's order, and (for TTM rows) the first date each was reported by. */
type Candidates = readonly number[] | { indices: readonly number[]; from: ReadonlyMap<number, string> };

/** Each metric's states over the dates: the value of the frame's first row reported by each date, when it changed. */
function timelinesOf(rows: Candidates, dates: readonly string[], context: FinancialsContext, read: Reader): MadeTimelines {
  const out: MadeTimelines = {};
  const last = new Map<FinancialMetricName, ScreenValue | null>();
  const record = (date: string) => {
    const reading = readingOn(rows, date, context, read);
    for (const { metric, statement } of METRICS) {
      const value = reading && screenValue(reading.row, metric, statement, reading.verdict);
      if (sameScreenValue(last.get(metric) ?? null, value)) continue;
      last.set(metric, value);
      (out[metric] ??= []).push({ from: date, row: value });
    }
  };
  for (const date of dates) record(date);
  // Today's answer is the reading of every entry (LATEST), which can differ from the reading on the latest date (an
  // exception whose filing the document does not date): a state from LATEST on holds it, reached only without as_of.
  record(LATEST);
  return out;
}

/** The frame's first row reported by a date, as of then, with its fiscal year's verdict on its quarters then; null when none was. */
function readingOn(rows: Candidates, date: string, context: FinancialsContext, read: Reader): { row: FinancialPeriod; verdict: FinancialReconciliationState | undefined } | null {
  for (const i of "from" in rows ? rows.indices : rows) {
    if ("from" in rows && rows.from.get(i)! > date) continue;
    const row = read(i, date);
    if (!row) continue;
    // The fiscal year's verdict on its quarters as the year's own reading gives it on the date (financialAsOf).
    const year = yearRowOf(context.rows[i]!, context);
    return { row, verdict: year === undefined ? undefined : context.histories[year]!.reconciliation?.findLast((v) => v.from <= date) };
  }
  return null;
}

/** The fiscal-year row of a quarter or year (its verdict on the year's quarters), if the document has one. */
function yearRowOf(row: FinancialPeriod, context: FinancialsContext): number | undefined {
  return row.ttm === null ? context.byLabel.get(labelKey(row.fiscal_year, "FY", 12)) : undefined;
}

/** A row's metric as a screen serves it, with the marks its row and fiscal year put on it; null when the row has none. */
function screenValue(row: FinancialPeriod, metric: FinancialMetricName, statement: Statement, year: FinancialReconciliationState | undefined): ScreenValue | null {
  const m = (row[statement] as Partial<Record<string, StatementMetric | null>> | null)?.[metric];
  if (!m) return null;
  const marks: ScreenMark[] = [];
  if (m.scale_corrected) marks.push("scale_corrected");
  for (const e of row.exceptions) {
    if (e.metric !== metric && !(e.rule === "one_entity" && e.metric === null)) continue;
    const mark: ScreenMark | null = e.rule === "scale" ? "scale_unclear" : e.rule === "sign" ? "sign" : e.rule === "one_entity" ? "entity_change" : null;
    if (mark && !marks.includes(mark)) marks.push(mark);
  }
  if (FLOWS.has(metric) && year?.reconciled === false && year.reconciliation.some((r) => r.metric === metric)) marks.push("unreconciled");
  if (PER_SHARE.has(metric) && (metric === "shares_outstanding" ? m.split_unadjusted === true : row.split_unadjusted)) marks.push("split_unadjusted");
  return {
    value: m.value,
    unit: m.unit,
    concept: m.concept,
    fiscal_year: row.fiscal_year,
    fiscal_quarter: row.fiscal_quarter,
    months: row.months as 3 | 12,
    period_start: row.period_start,
    period_end: row.period_end,
    derived: m.derived,
    restated: m.restated,
    original_value: m.original_value,
    marks,
    source_accession: m.source_accession,
    filed_at: m.filed_at,
  };
}
