// Fourth quarters computed from fiscal years (DESIGN "Q4 is rarely filed on its own"; pitfalls 11–13).
// Pure; subtracts only additive metrics and never derives a per-share value or a share count by subtraction.
import type { EarningsPeriod, Metric, MetricName } from "../../schemas/earnings.ts";
import { METRIC_CONCEPTS } from "./concepts.ts";
import { addDays, classifyMonths } from "./periods.ts";

const ADDITIVE = (Object.keys(METRIC_CONCEPTS) as MetricName[]).filter((name) => METRIC_CONCEPTS[name].additive);

/** A fourth quarter to add or complete: its dates, the fiscal year it closes, and the metrics computed for it. */
export interface FourthQuarter {
  start: string;
  end: string;
  fiscalYear: EarningsPeriod;
  metrics: Partial<Record<MetricName, Metric>>;
}

/**
 * For each fiscal year, Q4 = FY − the nine months before it: the nine-month YTD, else H1 + Q3, else Q1 + Q2 + Q3
 * (quarters chained by dates, never by `fp`, pitfall 11). A filed Q4 keeps every filed value and only gains the
 * additive metrics it lacks. Diluted EPS comes only from Q4 net income ÷ a filed Q4 diluted share count (pitfall 13).
 */
export function planFourthQuarters(periods: ReadonlyMap<string, EarningsPeriod>): FourthQuarter[] {
  const byStart = new Map<string, EarningsPeriod[]>();
  for (const p of periods.values()) if (!p.derived) byStart.set(p.period_start, [...(byStart.get(p.period_start) ?? []), p]);
  const plans: FourthQuarter[] = [];
  for (const year of periods.values()) {
    if (year.months !== 12) continue;
    const nine = nineMonths(year, byStart);
    if (!nine) continue;
    const start = addDays(nine.end, 1);
    const filed = periods.get(`${start}/${year.period_end}`);
    const metrics: FourthQuarter["metrics"] = {};
    for (const name of ADDITIVE) {
      if (filed?.metrics[name]) continue;
      const total = year.metrics[name];
      const parts = total && nine.tilings.find((t) => t.every((p) => p.metrics[name]?.unit === total.unit));
      if (total && parts) metrics[name] = subtract(total, parts.map((p) => p.metrics[name]!));
    }
    const income = metrics.net_income ?? filed?.metrics.net_income;
    const shares = filed?.metrics.diluted_shares;
    if (income && shares && !filed?.metrics.eps_diluted && shares.value > 0) metrics.eps_diluted = perShare(income, shares);
    if (Object.keys(metrics).length > 0) plans.push({ start, end: year.period_end, fiscalYear: year, metrics });
  }
  return plans;
}

/** The nine months before a fiscal year's last quarter, as every way filed periods tile them, fewest pieces first. */
function nineMonths(year: EarningsPeriod, byStart: Map<string, EarningsPeriod[]>): { end: string; tilings: EarningsPeriod[][] } | null {
  const ends = new Set<string>();
  for (const list of byStart.values()) {
    for (const p of list) {
      if (p.period_start >= year.period_start && p.period_end < year.period_end && p.months !== 12) ends.add(p.period_end);
    }
  }
  for (const end of [...ends].sort().reverse()) {
    if (classifyMonths(addDays(end, 1), year.period_end) !== 3) continue;
    const tilings = tile(year.period_start, end, byStart, 3).sort((a, b) => a.length - b.length);
    if (tilings.length > 0) return { end, tilings };
  }
  return null;
}

/** Every chain of filed periods running exactly from `start` to `end`, each piece starting the day after the last. */
function tile(start: string, end: string, byStart: Map<string, EarningsPeriod[]>, depth: number): EarningsPeriod[][] {
  if (depth === 0) return [];
  const out: EarningsPeriod[][] = [];
  for (const p of byStart.get(start) ?? []) {
    if (p.months === 12 || p.period_end > end) continue;
    if (p.period_end === end) out.push([p]);
    else for (const rest of tile(addDays(p.period_end, 1), end, byStart, depth - 1)) out.push([p, ...rest]);
  }
  return out;
}

/**
 * FY − parts, traced to the latest input filing; restated when the inputs as first reported give another answer
 * (the original accession is then that of the first restated input, the fiscal year's before the parts').
 */
function subtract(total: Metric, parts: Metric[]): Metric {
  const inputs = [total, ...parts];
  const value = total.value - parts.reduce((sum, m) => sum + m.value, 0);
  const original = (total.original_value ?? total.value) - parts.reduce((sum, m) => sum + (m.original_value ?? m.value), 0);
  const latest = latestOf(inputs.map((m) => ({ accn: m.source_accession, filed: m.filed_at, form: m.form })));
  const firstAccession = inputs.find((m) => m.restated)?.original_accession ?? total.source_accession;
  return {
    value,
    unit: total.unit,
    concept: total.concept,
    source_accession: latest.accn,
    filed_at: latest.filed,
    form: latest.form,
    restated: original !== value,
    original_value: original !== value ? original : null,
    original_accession: original !== value ? firstAccession : null,
    derived: true,
  };
}

/** Q4 diluted EPS = Q4 net income ÷ Q4 diluted weighted shares, to the cent as filers report it. */
function perShare(income: Metric, shares: Metric): Metric {
  const latest = latestOf([income, shares].map((m) => ({ accn: m.source_accession, filed: m.filed_at, form: m.form })));
  return {
    value: Math.round((income.value / shares.value) * 100) / 100,
    unit: `${income.unit}/shares`,
    concept: `${income.concept}÷${shares.concept}`,
    source_accession: latest.accn,
    filed_at: latest.filed,
    form: latest.form,
    restated: false,
    original_value: null,
    original_accession: null,
    derived: true,
  };
}

function latestOf<T extends { accn: string; filed: string }>(items: T[]): T {
  return items.reduce((a, b) => (b.filed > a.filed || (b.filed === a.filed && b.accn > a.accn) ? b : a));
}
