// Company facts → earnings periods, by DESIGN "Derivation rules" → Earnings (periods, restatements, labels, Q4, splits).
// Pure: facts in, periods out; never fetches, never reads the clock, never guesses a value that was not filed.
import { METRIC_NAMES, type EarningsPeriod, type Metric, type MetricName } from "../../schemas/earnings.ts";
import { NoXbrlHistoryError } from "../errors.ts";
import type { CompanyFacts } from "../parse/companyfacts.ts";
import { METRIC_CONCEPTS, REVENUE_GROSS_OF_TAX } from "./concepts.ts";
import { collectFilings, labelPeriod, type PeriodLabel } from "./fiscal-labels.ts";
import { planFourthQuarters } from "./fourth-quarter.ts";
import { calendarFrame, classifyMonths, durationDays, type Months } from "./periods.ts";
import { flagSplitUnadjusted, type History } from "./splits.ts";

/** Only periodic reports supply values and labels (DESIGN; pitfall 8: a DEF 14A once won the dedup). */
const PERIODIC_FORM = /^(10-K|10-Q|20-F|40-F|10-KT|10-QT)(\/A)?$/;

/** One value one filing reported for one period and metric, from the best concept that filing used. */
interface Observation {
  value: number;
  concept: string;
  unit: string;
  accn: string;
  filed: string;
  form: string;
  priority: number;
}

/** A (start, end) duration and, per metric, each filing's candidates for it. */
interface PeriodFacts {
  start: string;
  end: string;
  months: Months;
  candidates: Map<MetricName, Map<string, Observation[]>>;
}

/** Derives the company's earnings periods, newest first (period end descending, then shorter periods first). */
export function deriveEarnings(facts: CompanyFacts): EarningsPeriod[] {
  const currency = dominantCurrency(facts);
  const filings = collectFilings(facts, PERIODIC_FORM);
  const periods = collectPeriods(facts, currency);
  const histories = new Map<string, Map<MetricName, History>>();
  const out = new Map<string, EarningsPeriod>();
  for (const [key, period] of periods) {
    const label = labelPeriod(period, filings);
    if (!label) continue;
    const metrics = emptyMetrics();
    const byMetric = new Map<MetricName, History>();
    for (const [name, perFiling] of period.candidates) {
      const history = [...perFiling.values()].map((c) => pick(name, c)).sort(byFiled);
      byMetric.set(name, history);
      metrics[name] = toMetric(history);
    }
    histories.set(key, byMetric);
    out.set(key, assemble(period.start, period.end, period.months, label, metrics, false));
  }
  addFourthQuarters(out);
  flagSplitUnadjusted(out, histories);
  if (out.size === 0) {
    throw new NoXbrlHistoryError({ cik: facts.cik }, "no income-statement facts from periodic reports (10-K, 10-Q, 20-F…)");
  }
  return [...out.values()].sort(newestFirst);
}

/** The currency most of the company's revenue and net income facts are in (TSMC: TWD; USD convenience figures lose). */
function dominantCurrency(facts: CompanyFacts): string {
  const counts = new Map<string, number>();
  for (const name of ["revenue", "net_income"] as const) {
    for (const concept of METRIC_CONCEPTS[name].concepts) {
      for (const [unit, list] of Object.entries(facts.concepts[concept] ?? {})) {
        if (/^[A-Z]{3}$/.test(unit)) counts.set(unit, (counts.get(unit) ?? 0) + list.length);
      }
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? "USD";
}

/** Groups periodic duration facts by (start, end) — pitfall 1: periods are keyed by dates, never by fy/fp. */
function collectPeriods(facts: CompanyFacts, currency: string): Map<string, PeriodFacts> {
  const periods = new Map<string, PeriodFacts | null>(); // null: a duration that is no period we publish (DESIGN)
  const units = { currency, per_share: `${currency}/shares`, shares: "shares" };
  for (const name of METRIC_NAMES) {
    const { kind, concepts } = METRIC_CONCEPTS[name];
    for (let priority = 0; priority < concepts.length; priority++) {
      const concept = concepts[priority]!;
      for (const f of facts.concepts[concept]?.[units[kind]] ?? []) {
        if (f.start === undefined || !PERIODIC_FORM.test(f.form)) continue;
        const key = `${f.start}/${f.end}`;
        let period = periods.get(key);
        if (period === undefined) {
          const months = classifyMonths(f.start, f.end);
          period = months === null ? null : { start: f.start, end: f.end, months, candidates: new Map() };
          periods.set(key, period);
        }
        if (period === null) continue;
        let perFiling = period.candidates.get(name);
        if (!perFiling) period.candidates.set(name, (perFiling = new Map()));
        const obs = { value: f.val, concept, unit: units[kind], accn: f.accn, filed: f.filed, form: f.form, priority };
        const same = perFiling.get(f.accn);
        if (same) same.push(obs);
        else perFiling.set(f.accn, [obs]);
      }
    }
  }
  for (const [key, period] of periods) if (period === null) periods.delete(key);
  return periods as Map<string, PeriodFacts>;
}

/**
 * One filing's value for a period: its highest-priority concept (chosen per period and filing, pitfall 14). For
 * revenue the largest candidate wins instead: a total is never smaller than a slice, and filers tag slices with total
 * tags (pitfall 16; SunEdison's 2010 `Revenues` is a segment, Under Armour's total sits in `SalesRevenueGoodsNet`).
 */
function pick(name: MetricName, candidates: readonly Observation[]): Observation {
  const net = name === "revenue" ? candidates.filter((c) => !REVENUE_GROSS_OF_TAX.has(c.concept)) : [];
  const pool = net.length > 0 ? net : candidates;
  let best = pool[0]!;
  for (const c of pool) {
    const larger = name === "revenue" && c.value > best.value;
    if (larger || ((name !== "revenue" || c.value === best.value) && c.priority < best.priority)) best = c;
  }
  return best;
}

/** Latest periodic filing wins; restated when it differs from the first reported value (DESIGN "Restatements"). */
function toMetric(history: readonly Observation[]): Metric {
  const first = history[0]!;
  const last = history[history.length - 1]!;
  const restated = last.value !== first.value;
  return {
    value: last.value,
    unit: last.unit,
    concept: last.concept,
    source_accession: last.accn,
    filed_at: last.filed,
    form: last.form,
    restated,
    original_value: restated ? first.value : null,
    original_accession: restated ? first.accn : null,
    derived: false,
  };
}

/** Adds derived fourth quarters and completes filed ones with the additive metrics they lack (DESIGN "Q4"). */
function addFourthQuarters(periods: Map<string, EarningsPeriod>): void {
  for (const plan of planFourthQuarters(periods)) {
    const key = `${plan.start}/${plan.end}`;
    const filed = periods.get(key);
    const metrics = { ...(filed?.metrics ?? emptyMetrics()), ...plan.metrics };
    const year = plan.fiscalYear;
    const label: PeriodLabel = filed
      ? { fiscalYear: filed.fiscal_year, fiscalQuarter: filed.fiscal_quarter, labelAccession: filed.label_accession, inferred: filed.label_inferred }
      : { fiscalYear: year.fiscal_year, fiscalQuarter: "Q4", labelAccession: year.label_accession, inferred: year.label_inferred };
    periods.set(key, assemble(plan.start, plan.end, 3, label, metrics, !filed));
  }
}

/** One output period: dates, frame, labels, metrics, and the latest filing among its metrics as its source. */
function assemble(
  start: string,
  end: string,
  months: Months,
  label: PeriodLabel,
  metrics: EarningsPeriod["metrics"],
  derived: boolean,
): EarningsPeriod {
  const source = Object.values(metrics).reduce<Metric | null>(
    (a, m) => (m && (!a || m.filed_at > a.filed_at || (m.filed_at === a.filed_at && m.source_accession > a.source_accession)) ? m : a),
    null,
  )!;
  return {
    fiscal_year: label.fiscalYear,
    fiscal_quarter: label.fiscalQuarter,
    months,
    period_start: start,
    period_end: end,
    duration_days: durationDays(start, end),
    calendar_frame: calendarFrame(start, end, months),
    form: source.form,
    filed_at: source.filed_at,
    source_accession: source.source_accession,
    label_accession: label.labelAccession,
    derived,
    label_inferred: label.inferred,
    split_unadjusted: false,
    metrics,
  };
}

function emptyMetrics(): EarningsPeriod["metrics"] {
  const none = null;
  return { revenue: none, net_income: none, operating_income: none, gross_profit: none, eps_basic: none, eps_diluted: none, diluted_shares: none };
}

function byFiled(a: { filed: string; accn: string }, b: { filed: string; accn: string }): number {
  return a.filed.localeCompare(b.filed) || a.accn.localeCompare(b.accn);
}

function newestFirst(a: EarningsPeriod, b: EarningsPeriod): number {
  return b.period_end.localeCompare(a.period_end) || a.duration_days - b.duration_days;
}
