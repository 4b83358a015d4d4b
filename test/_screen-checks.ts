// What a cross-company screen needs of every company's series (issue 40 item 5: a screen amplifies each outlier to the
// top), checked on the rows as derived: the project's invariants, one quarter per calendar frame and one fiscal year per
// CY frame, no value about 1,000× or 1,000,000× off both its neighbours, EPS = its numerator ÷ weighted shares, unless
// the row marks why not. Independent of the derivation's own checks except where it calls them by name.
import type { EarningsPeriod, MetricName } from "../schemas/earnings.ts";
import type { FinancialPeriod } from "../schemas/financials.ts";
import { METRIC_CONCEPTS } from "../build/derive/concepts.ts";
import { deriveEarningsBase } from "../build/derive/earnings.ts";
import { checkFinancials } from "../build/derive/financial-invariants.ts";
import { checkInvariants } from "../build/derive/invariants.ts";
import { BALANCE_SERIES, EPS_NUMERATORS, SHARES_OUTSTANDING } from "../build/derive/statement-concepts.ts";
import { deriveFinancials } from "../build/derive/statements.ts";
import { dayNumber } from "../build/derive/periods.ts";
import type { CompanyFacts } from "../build/parse/companyfacts.ts";

/**
 * The numerators EPS divides besides net income (the statements' own: after preferred dividends, a partnership's
 * limited partners' share); a diluted EPS may divide the basic one (no dilutive adjustment).
 */
const NUMERATORS: Record<"eps_basic" | "eps_diluted", readonly string[]> = {
  eps_basic: EPS_NUMERATORS._eps_income_basic.concepts,
  eps_diluted: [...EPS_NUMERATORS._eps_income_diluted.concepts, ...EPS_NUMERATORS._eps_income_basic.concepts],
};
/** EPS is rounded to the cent and share counts to thousands or millions: within a cent and 5 % is the same quotient. */
const [EPS_CENTS, EPS_SHARE] = [0.011, 0.05];
/** A ratio within this factor of 10^3 or 10^6 is a unit-scale step (the derivation's own slack: invariants.ts). */
const STEP_SLACK = Math.log10(2);
/** Periods further apart than this (days) are no neighbours: a value is compared with the years around it. */
const NEIGHBOURS_WITHIN = 800;
/**
 * The series whose values stay within a small factor of their neighbours (revenue, share counts, total assets and
 * liabilities): one a 1,000th of both neighbours is a slip too. Any other (income, cash flows, equity) can near zero.
 */
const STEADY: ReadonlySet<string> = new Set(
  Object.entries({ ...METRIC_CONCEPTS, ...BALANCE_SERIES, shares_outstanding: SHARES_OUTSTANDING })
    .filter(([, spec]) => spec.steady)
    .map(([name]) => name),
);

/** One company's rows and every finding no row marks. */
export interface ScreenCheck {
  rows: number;
  findings: string[];
}

type Row = Pick<EarningsPeriod, "months" | "period_start" | "period_end" | "calendar_frame" | "fiscal_year" | "fiscal_quarter"> & {
  exceptions: readonly { rule: string; metric: string | null }[];
  values: Record<string, { value: number } | null | undefined>;
};

/** Derives a company's earnings and statements and lists every unmarked finding. */
export function screenCheck(facts: CompanyFacts): ScreenCheck {
  const base = deriveEarningsBase(facts);
  const earnings = base.series.periods;
  const statements = deriveFinancials(facts, base).periods;
  // The statements' rows carry the earnings' (their income statement is the earnings' own) and more.
  const rows = statements.filter((p) => p.ttm === null).map(statementRow);
  return {
    rows: earnings.length + statements.length,
    findings: [
      ...checkInvariants(earnings, METRIC_CONCEPTS).filter((v) => !v.marked).map((v) => `earnings ${v.rule}: ${v.message}`),
      ...checkFinancials(statements).filter((v) => !v.marked).map((v) => `statements ${v.rule}: ${v.message}`),
      ...oneRowPerFrame(earnings.map(earningsRow), "earnings"),
      ...oneRowPerFrame(rows, "statements"),
      ...scaleOutliers(rows),
      ...epsIdentity(earnings, facts),
    ],
  };
}

/** At most one three-month row per calendar quarter and one fiscal year per calendar year (what a screen ranks by). */
function oneRowPerFrame(rows: readonly Row[], what: string): string[] {
  const byFrame = new Map<string, Row[]>();
  for (const r of rows) {
    if ((r.months !== 3 && r.months !== 12) || !r.calendar_frame) continue;
    const key = `${r.months} months ${r.calendar_frame}`;
    byFrame.set(key, [...(byFrame.get(key) ?? []), r]);
  }
  return [...byFrame]
    .filter(([, list]) => list.length > 1)
    .map(([key, list]) => `${what} ${key}: ${list.map((r) => `${r.fiscal_year} ${r.fiscal_quarter} ${r.period_start}..${r.period_end}`).join(", ")}`);
}

/**
 * A value about 10^3 or 10^6 times each of its neighbours of the same length (or, in a steady series, a 10^3rd or 10^6th
 * of each), unless its row marks a scale exception for the metric: a unit-scale slip a screen would rank first.
 */
function scaleOutliers(rows: readonly Row[]): string[] {
  const out: string[] = [];
  const metrics = new Set(rows.flatMap((r) => Object.keys(r.values)));
  for (const months of [3, 6, 9, 12]) {
    const lane = rows.filter((r) => r.months === months).sort((a, b) => (a.period_end < b.period_end ? -1 : a.period_end > b.period_end ? 1 : 0));
    for (const metric of metrics) {
      const withValue = lane.filter((r) => r.values[metric] && r.values[metric]!.value !== 0);
      withValue.forEach((r, i) => {
        const near = (n: Row | undefined): n is Row => n !== undefined && n.period_end !== r.period_end && Math.abs(dayNumber(n.period_end) - dayNumber(r.period_end)) <= NEIGHBOURS_WITHIN;
        const neighbours = [withValue[i - 1], withValue[i + 1]].filter(near);
        const v = r.values[metric]!.value;
        if (!neighbours.length || !neighbours.every((n) => isStep(v / n.values[metric]!.value, STEADY.has(metric)))) return;
        if (r.exceptions.some((e) => e.rule === "scale" && e.metric === metric)) return;
        out.push(`scale: ${metric} ${v} (${r.period_start}..${r.period_end}) is a unit step off ${neighbours.map((n) => `${n.values[metric]!.value} (${n.period_end})`).join(" and ")}`);
      });
    }
  }
  return [...new Set(out)];
}

function isStep(ratio: number, smallerToo: boolean): boolean {
  const exponent = Math.log10(Math.abs(ratio));
  return (smallerToo ? [3, 6, -3, -6] : [3, 6]).some((k) => Math.abs(exponent - k) <= STEP_SLACK);
}

/**
 * EPS = net income (or the filing's own EPS numerator for the span: after preferred dividends, a partnership's limited
 * partners' share) ÷ the row's weighted shares, within rounding; or the row marks why not (split_unadjusted: counts and
 * EPS of two bases; a scale or one_entity exception on its members).
 */
function epsIdentity(rows: readonly EarningsPeriod[], facts: CompanyFacts): string[] {
  const out: string[] = [];
  for (const r of rows) {
    for (const [eps, shares] of [["eps_basic", "basic_shares"], ["eps_diluted", "diluted_shares"]] as const) {
      const [e, s, n] = [r.metrics[eps], r.metrics[shares], r.metrics.net_income];
      if (!e || !s || !n || s.value <= 0) continue;
      const numerators = [n.value, ...filedFor(facts, NUMERATORS[eps], r.period_start, r.period_end)];
      if (numerators.some((v) => Math.abs(v / s.value - e.value) <= EPS_CENTS + EPS_SHARE * Math.abs(e.value))) continue;
      const members: MetricName[] = [eps, shares, "net_income"];
      if (r.split_unadjusted || r.exceptions.some((x) => x.rule === "one_entity" || (x.rule === "scale" && members.includes(x.metric as MetricName)))) continue;
      out.push(`eps: ${r.fiscal_year} ${r.fiscal_quarter} (${r.period_start}..${r.period_end}) ${eps} ${e.value} vs net income ${n.value} ÷ ${shares} ${s.value}`);
    }
  }
  return out;
}

function filedFor(facts: CompanyFacts, concepts: readonly string[], start: string, end: string): number[] {
  return concepts.flatMap((c) => Object.values(facts.concepts[c] ?? {}).flatMap((list) => list.filter((f) => f.start === start && f.end === end).map((f) => f.val)));
}

function earningsRow(p: EarningsPeriod): Row {
  return { ...p, values: p.metrics };
}

function statementRow(p: FinancialPeriod): Row {
  return { ...p, values: { ...p.income, ...p.balance, ...p.cash_flow } };
}
