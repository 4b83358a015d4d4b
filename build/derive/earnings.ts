// Company facts → earnings periods and their history (DESIGN "Derivation rules" → Earnings): earnings as one user of
// the period, calendar, vintage and scale layer (observations → period-identity → fiscal-calendar → scale → vintage →
// quarters → reconcile → invariants). Pure: never fetches, never reads the clock, never guesses an unfiled value.
import { LATEST, periodAsOf, type PeriodHistory, type ReconciliationState } from "../../schemas/earnings-history.ts";
import { METRIC_NAMES, PER_SHARE_METRICS, SHARE_COUNTS, type EarningsPeriod, type MetricName } from "../../schemas/earnings.ts";
import type { EntityChange } from "../../schemas/entity-change.ts";
import { NoXbrlHistoryError } from "../errors.ts";
import type { CompanyFacts } from "../parse/companyfacts.ts";
import { BANK_REVENUE_LINES, METRIC_CONCEPTS, REVENUE_GROSS_OF_TAX } from "./concepts.ts";
import { learnCalendar, type FiscalCalendar, type PeriodLabel } from "./fiscal-calendar.ts";
import { fillQuarter, planLastQuarter } from "./quarters.ts";
import { entityChanges } from "./entity-change.ts";
import { checkInvariants } from "./invariants.ts";
import { observe, type Filing, type Observation, type RawSpan, type SeriesSpec } from "./observations.ts";
import { mergeSpans, type Period } from "./period-identity.ts";
import { calendarFrame, durationDays, type Months } from "./periods.ts";
import { holdFiscalYearSet, reconcileYear } from "./reconcile.ts";
import { correctScales, stepBetween, type ProductIdentity, type ScalePeriod } from "./scale.ts";
import { scaleExceptions, toHistoryEntry, unservedEntries } from "./history.ts";
import { detectSplits, type History } from "./splits.ts";
import { markAlike, taggedAlike, type AlikeConcepts } from "./tagged-alike.ts";
import { byFiling, clean, combineTimelines, isQuotient, perShare, serveYear, type ConceptChoice, type Entry, type FiledValue } from "./vintage.ts";

/** Share counts first: the other checks read them (issue 14 "Scale errors": share counts first, every metric checked). */
const SCALE_ORDER: readonly MetricName[] = ["diluted_shares", "basic_shares", "eps_diluted", "eps_basic", "revenue", "gross_profit", "operating_income", "net_income"];
/**
 * Net income = EPS × its weighted shares in each filing (basic EPS × diluted shares too, for filings without a basic
 * count): a witness of each member's scale, never a verdict on one (a net income filed in thousands breaks it as much
 * as a share count in millions).
 */
const IDENTITIES: readonly ProductIdentity[] = [
  { product: "net_income", factors: ["eps_diluted", "diluted_shares"] },
  { product: "net_income", factors: ["eps_basic", "basic_shares"] },
  { product: "net_income", factors: ["eps_basic", "diluted_shares"] },
];
const IDENTITY_MEMBERS: ReadonlySet<MetricName> = new Set(IDENTITIES.flatMap((r) => [r.product, ...r.factors] as MetricName[]));
const ADDITIVE = METRIC_NAMES.filter((name) => METRIC_CONCEPTS[name].additive);

/** The earnings document's content: rows newest first, and each row's history (aligned). */
export interface EarningsSeries {
  periods: EarningsPeriod[];
  history: PeriodHistory[];
}

/** A period under derivation: its dates, labels, each filing's value per metric, and per metric its timeline. */
interface Working {
  start: string;
  end: string;
  months: Months;
  label: PeriodLabel;
  alternatives: Period["alternatives"];
  values: Map<MetricName, FiledValue[]>;
  timelines: Partial<Record<MetricName, Entry[]>>;
  derived: boolean;
  reconciliation?: ReconciliationState[];
  /** Why the calendar could only place the period, not label it as one of its quarters, year-to-dates or years. */
  placed?: string;
}

/** What the statements build on (issue 18): the earnings, the company's fiscal calendar, its reporting currency and filings. */
export interface EarningsBase {
  series: EarningsSeries;
  /** Each row's timelines per metric (what its history was made from), aligned with `series.periods`. */
  timelines: Partial<Record<MetricName, Entry[]>>[];
  calendar: FiscalCalendar;
  currency: string;
  filings: Filing[];
  /** Changes of reporting entity the balance sheets show (entity-change.ts), for the `one_entity` marks. */
  entityChanges: EntityChange[];
}

/**
 * The earnings derivation — the company's earnings periods newest first (period end descending, then shorter periods
 * first) with their history — and the calendar learned for it, which the statements reuse rather than learn again.
 */
export function deriveEarningsBase(facts: CompanyFacts): EarningsBase {
  const observed = observe(facts, METRIC_CONCEPTS);
  addBankRevenue(observed.spans, observe(facts, BANK_LINES, observed.currency).spans);
  const alike = taggedAlike(observed.spans, (series) => METRIC_CONCEPTS[series as MetricName]?.concepts.length ?? 0);
  const merged = mergeSpans(observed.spans);
  const calendar = learnCalendar(
    merged.map((p) => ({ start: p.start, end: p.end, months: p.months, annual: p.observations.some((o) => o.annual), filings: p.months === 12 ? filingCount(p) : 0 })),
    observed.filings,
  );
  if (merged.length === 0) throw new NoXbrlHistoryError({ cik: facts.cik }, "no income-statement facts from periodic reports (10-K, 10-Q, 20-F…)");
  if (!calendar) {
    throw new NoXbrlHistoryError({ cik: facts.cik }, "income-statement facts from periodic reports, but no fiscal calendar: no year, year-to-date or filing's own fiscal quarter shows where a year begins");
  }
  const working: Working[] = [];
  for (const p of merged) {
    const label = calendar.label(p, p.alternatives.length ? [p.end, ...p.alternatives.map((a) => a.end)] : undefined);
    // A period no quarter, year-to-date or year of the calendar (a comparative recast on another calendar) is placed
    // by where it ends and marked, never dropped.
    const placed = label ? null : calendar.place(p);
    if (!label && !placed) throw new NoXbrlHistoryError({ cik: facts.cik }, `${p.start}..${p.end} lies in no fiscal year of the calendar learned`);
    working.push({
      start: p.start,
      end: p.end,
      months: p.months,
      label: label ?? placed!.label,
      alternatives: p.alternatives,
      values: filedValues(p.observations, alike),
      timelines: {},
      derived: false,
      ...(placed ? { placed: placed.reason } : {}),
    });
  }
  const scaled: ScalePeriod[] = working.map((w) => ({ start: w.start, end: w.end, months: w.months, values: w.values }));
  correctScales(scaled, METRIC_CONCEPTS, SCALE_ORDER, undefined, IDENTITIES);

  const years = new Map<number, Working[]>();
  for (const w of working) {
    const group = years.get(w.label.fiscalYear);
    if (group) group.push(w);
    else years.set(w.label.fiscalYear, [w]);
  }
  for (const group of years.values()) {
    const fourth = addFourthQuarter(group, selectValues(group), calendar);
    if (fourth) working.push(fourth);
    holdFiscalYearSet(group, (w) => w.label.fiscalQuarter, ADDITIVE);
    markReconciliation(group);
  }
  const changes = entityChanges(facts, observed.currency);
  const { series, timelines } = assemble(working, changes);
  return { series, timelines, calendar, currency: observed.currency, filings: observed.filings, entityChanges: changes };
}

/** The lines a bank's revenue is summed from (concepts.ts), each read as a flow of its own. */
const BANK_LINES: Readonly<Record<string, SeriesSpec>> = Object.fromEntries(
  BANK_REVENUE_LINES.map((concept) => [concept, { kind: "currency", additive: true, steady: false, concepts: [concept] } satisfies SeriesSpec]),
);

/**
 * Each filing's bank revenue (concepts.ts BANK_REVENUE_LINES): where it tags every line for a span the income
 * statement has, their sum joins the span's revenue candidates, derived and with its terms; it never makes a span.
 */
function addBankRevenue(spans: readonly RawSpan[], lines: readonly RawSpan[]): void {
  const byDates = new Map<string, RawSpan>();
  for (const span of spans) byDates.set(`${span.start}/${span.end}`, span);
  for (const line of lines) {
    const span = byDates.get(`${line.start}/${line.end}`);
    if (!span) continue;
    // observe reads one line after the other, so each filing's terms come in BANK_REVENUE_LINES order.
    const byAccn = new Map<string, Observation[]>();
    for (const o of line.observations) {
      const terms = byAccn.get(o.accn) ?? [];
      if (!terms.some((t) => t.series === o.series)) byAccn.set(o.accn, [...terms, o]); // one value per line and filing
    }
    const sums: (Observation & Pick<FiledValue, "components" | "derived">)[] = [];
    for (const [accn, terms] of byAccn) {
      if (terms.length < BANK_REVENUE_LINES.length) continue;
      const first = terms[0]!;
      sums.push({
        series: "revenue",
        concept: terms.map((t) => t.concept).join("+"),
        priority: METRIC_CONCEPTS.revenue.concepts.length, // after every tagged total: a tie goes to the filer's own
        unit: first.unit,
        value: clean(terms.reduce((sum, t) => sum + t.value, 0)),
        accn,
        filed: first.filed,
        form: first.form,
        annual: first.annual,
        components: terms.map((t) => ({ concept: t.concept, value: t.value })),
        derived: true,
      });
    }
    // Observations stay grouped by series (filedValues reads one series' run at a time): after the span's revenue.
    const at = span.observations.findLastIndex((o) => o.series === "revenue") + 1 || span.observations.length;
    span.observations.splice(at, 0, ...sums);
  }
}

/** How many filings report a period: which of two overlapping stated years stands (fiscal-calendar.ts). */
function filingCount(period: Period): number {
  return new Set(period.observations.map((o) => o.accn)).size;
}

/**
 * Each filing's value of each metric for a period: its highest-priority concept (chosen per filing, pitfall 14). For
 * revenue the largest candidate wins instead: a total is never smaller than a slice, and filers tag slices with total
 * tags (pitfall 16; SunEdison's 2010 `Revenues` is a segment, Under Armour's total sits in `SalesRevenueGoodsNet`);
 * a revenue tag gross of sales taxes only when the filing tagged no other.
 */
function filedValues(observations: readonly Observation[], alike: AlikeConcepts): Map<MetricName, FiledValue[]> {
  const out = new Map<MetricName, FiledValue[]>();
  // Observations come grouped by series (observations.ts reads one series' concepts at a time), and a period has a
  // handful of filings: short lists per series, searched linearly, beat a map per period.
  let k = 0;
  while (k < observations.length) {
    const series = observations[k]!.series;
    const accns: string[] = [];
    const net: (Observation | undefined)[] = [];
    const gross: (Observation | undefined)[] = [];
    for (; k < observations.length && observations[k]!.series === series; k++) {
      const o = observations[k]!;
      let slot = accns.indexOf(o.accn);
      if (slot < 0) slot = accns.push(o.accn) - 1;
      if (series === "revenue" && REVENUE_GROSS_OF_TAX.has(o.concept)) gross[slot] = preferred(series, o, gross[slot]);
      else net[slot] = preferred(series, o, net[slot]);
    }
    // The picked observations themselves (the scale check corrects them in place; nothing else reads them).
    const values = byFiling(accns.map((_, i) => (net[i] ?? gross[i])!));
    markAlike(series, values, alike);
    out.set(series as MetricName, values);
  }
  return out;
}

/** The better of a filing's two candidates for one metric: the larger revenue, else (or on a tie) the higher priority. */
function preferred(series: string, candidate: Observation, best: Observation | undefined): Observation {
  if (!best) return candidate;
  const revenue = series === "revenue";
  if (revenue && candidate.value > best.value) return candidate;
  return (!revenue || candidate.value === best.value) && candidate.priority < best.priority ? candidate : best;
}

/** Every metric's timelines for the periods of one fiscal year (one concept, latest filing within it); the concept choices. */
function selectValues(group: Working[]): Partial<Record<MetricName, ConceptChoice[]>> {
  return serveYear(group, METRIC_NAMES, (w) => w.values, (w) => w.months === 12);
}

/**
 * The fiscal year's Q4, added (derived) or completed: additive metrics it lacks come from the year − nine months of the
 * same vintage, in the year's concept; EPS only from its net income ÷ a filed Q4 weighted share count, basic by basic and
 * diluted by diluted (pitfall 13), and only where the year's EPS is its net income ÷ its shares (else it divides less).
 */
function addFourthQuarter(group: Working[], concepts: Partial<Record<MetricName, ConceptChoice[]>>, calendar: { label: (p: { start: string; end: string; months: Months }) => PeriodLabel | null }): Working | null {
  const year = group.find((w) => w.months === 12);
  if (!year) return null;
  const plan = planLastQuarter(year, group);
  if (!plan) return null;
  let q4 = group.find((w) => w.months === 3 && w.end === plan.end && w.label.fiscalQuarter === "Q4");
  const created = !q4;
  if (!q4) {
    const label = calendar.label({ start: plan.start, end: plan.end, months: 3 });
    if (!label || label.fiscalYear !== year.label.fiscalYear || label.fiscalQuarter !== "Q4") return null;
    q4 = { start: plan.start, end: plan.end, months: 3, label, alternatives: [], values: new Map(), timelines: {}, derived: true };
  }
  fillQuarter(q4, year, plan, ADDITIVE, concepts);
  const income = q4.timelines.net_income;
  for (const { shares: count, eps: per } of SHARE_COUNTS) {
    const shares = q4.timelines[count];
    if (!income || !shares) continue;
    const yearly = [year.timelines[per] ?? [], year.timelines.net_income ?? [], year.timelines[count] ?? []];
    const eps = combineTimelines([q4.timelines[per] ?? [], income, shares, ...yearly], ([filed, n, s, yearEps, yearIncome, yearShares]) => {
      if (filed) return filed;
      // The year's EPS, where it can be checked, must be its net income ÷ its shares: else the company's EPS divides
      // less (preferred dividends, participating securities), and the quarter's net income would overstate its EPS.
      const dividesIncome = !yearEps || !yearIncome || !yearShares || yearShares.value <= 0 || isQuotient(yearEps.value, yearIncome.value, yearShares.value);
      return n && s && s.value > 0 && dividesIncome ? perShare(n, s) : null;
    });
    if (eps.length) q4.timelines[per] = eps;
  }
  if (!created) return null;
  if (Object.keys(q4.timelines).length === 0) return null;
  group.push(q4);
  return q4;
}

/** Marks the fiscal year's reconciliation over time (issue 14: quarters that add up to the year, or the difference). */
function markReconciliation(group: Working[]): void {
  const year = group.find((w) => w.months === 12);
  const quarters = (["Q1", "Q2", "Q3", "Q4"] as const).map((q) => group.find((w) => w.months === 3 && w.label.fiscalQuarter === q));
  const states = year && reconcileYear(year, quarters, ADDITIVE);
  if (states) year.reconciliation = states;
}

/** Rows (read from their histories as of today), split flags, marked invariants, newest first. */
function assemble(working: readonly Working[], changes: EntityChange[]): { series: EarningsSeries; timelines: Working["timelines"][] } {
  // The dates the company's splits took effect, found in its filed per-share values, read by every row as of any date,
  // and when the filings first showed each.
  const found = new Map<string, string>();
  for (const s of detectSplits(new Map(working.map((w) => [`${w.start}/${w.end}`, perShareHistories(w)])))) {
    if (!found.has(s.by) || s.known! < found.get(s.by)!) found.set(s.by, s.known!);
  }
  const splits = [...found.keys()].sort();
  const known = splits.map((by) => found.get(by)!);
  const built = working.map((w) => {
    const history: PeriodHistory = { metrics: {} };
    for (const name of METRIC_NAMES) if (w.timelines[name]) history.metrics[name] = w.timelines[name]!.map(toHistoryEntry);
    for (const name of METRIC_NAMES) {
      const others = unservedEntries(w.timelines[name], w.values.get(name)); // values filed but never served (history=true)
      if (others.length) (history.filed ??= {})[name] = others;
    }
    if (w.reconciliation) history.reconciliation = w.reconciliation;
    if (splits.length) history.splits = splits;
    if (known.some((k, i) => k !== splits[i])) history.splits_known = known;
    if (changes.length) history.entity_changes = changes;
    return { row: periodAsOf(skeleton(w), history, LATEST, false)!, history, w };
  });
  const rows = built.map((b) => b.row);
  const worked = built.map((b) => b.w);
  for (const v of checkInvariants(rows, METRIC_CONCEPTS)) {
    if (v.marked) continue;
    const message = v.rule === "scale" ? explainJump(rows, worked, v.rows, v.metric as MetricName) : v.message;
    for (const i of v.rows) rows[i]!.exceptions.push({ rule: v.rule, metric: v.metric as MetricName | null, message });
  }
  const order = built.map((_, i) => i).sort((a, b) => newestFirst(rows[a]!, rows[b]!));
  return {
    series: { periods: order.map((i) => rows[i]!), history: order.map((i) => built[i]!.history) },
    timelines: order.map((i) => built[i]!.w.timelines),
  };
}

/**
 * Why neighbouring rows' values of a metric differ by a unit-scale step although neither was corrected: what shows a
 * side to be right as filed (another filing's figure, a nested period, its own net income = EPS × shares) — a real
 * change, such as a reverse split or a restated predecessor's figures — or that nothing shows which side is wrong.
 */
function explainJump(rows: readonly EarningsPeriod[], working: readonly Working[], pair: readonly number[], metric: MetricName): string {
  const [a, b] = pair.map((i) => rows[i]!) as [EarningsPeriod, EarningsPeriod];
  const [va, vb] = [a.metrics[metric]!.value, b.metrics[metric]!.value];
  const head = `${metric} ${va} (${a.period_start}..${a.period_end}) and ${vb} (${b.period_start}..${b.period_end}) differ by about ×${stepBetween(vb, va, 2, 30)}`;
  const reasons = pair.flatMap((i) => {
    const row = rows[i]!;
    const span = `${row.period_start}..${row.period_end}`;
    const confirmed = working[i]!.timelines[metric]?.at(-1)?.scaleConfirmed;
    if (confirmed) return [`${span} agrees with ${confirmed}`];
    return IDENTITY_MEMBERS.has(metric) && ownIdentity(row) ? [`${span} agrees with its own net income = EPS × shares`] : [];
  });
  if (reasons.length === 0) return `${head}; no other figure shows which side is in the wrong scale, so neither is corrected`;
  return `${head}, but ${reasons.join(", and ")}: a real change, not a unit-scale slip (not corrected)`;
}

/** Whether a row's own net income, EPS and weighted shares agree in scale: the first identity (above) it has all of. */
function ownIdentity(row: EarningsPeriod): boolean {
  for (const { product, factors } of IDENTITIES) {
    const [n, eps, s] = [product, ...factors].map((name) => row.metrics[name as MetricName]);
    if (!n || !eps || !s || Math.abs(eps.value) < 0.01) continue;
    return stepBetween(n.value, eps.value * s.value, 3) === 1;
  }
  return false;
}

/** A row's fixed fields: dates, frame, labels; metrics and provenance are read from its history. */
function skeleton(w: Working): EarningsPeriod {
  const none = null;
  return {
    fiscal_year: w.label.fiscalYear,
    fiscal_quarter: w.label.fiscalQuarter,
    months: w.months,
    period_start: w.start,
    period_end: w.end,
    duration_days: durationDays(w.start, w.end),
    calendar_frame: calendarFrame(w.start, w.end, w.months),
    form: "",
    filed_at: "",
    source_accession: "",
    label_accession: w.label.labelAccession,
    label_source: w.label.source,
    filed_label: w.label.filed,
    derived: w.derived,
    label_inferred: w.label.source === "calendar",
    alternative_dates: w.alternatives.map((a) => ({ period_start: a.start, period_end: a.end, accession: a.accn })),
    split_unadjusted: false,
    reconciled: null,
    reconciliation: [],
    exceptions: [...(w.placed ? [{ rule: "label_in_year" as const, metric: null, message: w.placed }] : []), ...scaleExceptions(w.timelines, METRIC_NAMES)],
    metrics: { revenue: none, net_income: none, operating_income: none, gross_profit: none, eps_basic: none, eps_diluted: none, basic_shares: none, diluted_shares: none },
  };
}

function newestFirst(a: EarningsPeriod, b: EarningsPeriod): number {
  // Plain comparison: localeCompare (ICU) was a visible share of a derivation, and dates are ASCII.
  return a.period_end < b.period_end ? 1 : a.period_end > b.period_end ? -1 : a.duration_days - b.duration_days;
}

/** A period's filed (never derived) per-share values over time, the evidence of splits. */
function perShareHistories(w: Working): Map<MetricName, History> {
  return new Map(PER_SHARE_METRICS.map((name) => [name, (w.timelines[name] ?? []).filter((e) => !e.derived) as History]));
}
