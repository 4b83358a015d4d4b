// A company's segment filings → its segment periods and their history (issue 43 "the same series rules"): each
// filing's presentation of a period on an axis, the latest filed one served, the earliest kept; fiscal labels the
// earnings' own; a fourth quarter derived as the year less the nine months. Pure: never fetches, never reads the clock.
import { LATEST } from "../../schemas/earnings-history.ts";
import { clean, segmentPeriodAsOf, segmentRowKey, spellQName, type SegmentRowKey, type SegmentsHistory } from "../../schemas/segments-history.ts";
import {
  SEGMENT_AXES,
  SEGMENT_METRICS,
  type FiledSegmentFact,
  type PresentedItem,
  type PresentedMember,
  type SegmentAxis,
  type SegmentFigure,
  type SegmentFiling,
  type SegmentLabels,
  type SegmentMetric,
  type SegmentPeriod,
  type SegmentPresentation,
} from "../../schemas/segments.ts";
import { calendarFrame, classifyMonths, dayNumber } from "./periods.ts";
import { planLastQuarter } from "./quarters.ts";
import { conceptRank } from "./segment-concepts.ts";

/** A period of the earnings document, as the segments label theirs (the same spans: one period per span). */
export type LabelledPeriod = SegmentLabels & { alternative_dates: readonly { period_end: string }[] };

/** The segments document's content: rows newest first, their history aligned, and what could not be placed. */
export interface SegmentSeries {
  rows: SegmentPeriod[];
  history: SegmentsHistory;
  /** Spans a filing reports segments for that no earnings period matches (never served: they would have no labels). */
  unlabelled: number;
}

/** Ends this many days apart are one period (DESIGN "Period identity": filings disagree by a day or a week). */
const SAME_PERIOD_DAYS = 7;
const AXIS_ORDER: readonly SegmentAxis[] = ["business", "product", "geography"];

/** A row under derivation: its axis and labels, and its presentations in filing order. */
interface Row {
  axis: SegmentAxis;
  label: LabelledPeriod;
  presentations: SegmentPresentation[];
}

/**
 * Every period and axis the filings report segments for, each served as the latest filing presents it, with the
 * derived fourth quarters; labelled by the earnings' periods (`periods`), so a segment row and an earnings row of one
 * span carry one fiscal year and quarter.
 */
export function deriveSegments(filings: readonly SegmentFiling[], periods: readonly LabelledPeriod[]): SegmentSeries {
  const ordered = [...filings].sort((a, b) => (a.filed_at < b.filed_at ? -1 : a.filed_at > b.filed_at ? 1 : a.accession < b.accession ? -1 : 1));
  const rows = new Map<string, Row>();
  let unlabelled = 0;
  for (const filing of ordered) {
    const groups = new Map<string, FiledSegmentFact[]>();
    for (const fact of filing.facts) {
      const key = `${fact.axis}|${fact.start}|${fact.end}`;
      const group = groups.get(key);
      if (group) group.push(fact);
      else groups.set(key, [fact]);
    }
    for (const [key, facts] of groups) {
      const [axis, start, end] = key.split("|") as [SegmentAxis, string, string];
      const label = labelOf(periods, start, end);
      if (!label) {
        unlabelled++;
        continue;
      }
      const presentation = present(filing, facts, start, end);
      if (!presentation) continue;
      const rowKey = `${axis}|${label.period_end}|${label.months}`;
      const row = rows.get(rowKey) ?? { axis, label, presentations: [] };
      rows.set(rowKey, row);
      row.presentations.push(presentation);
    }
  }
  addFourthQuarters(rows, periods);
  const names = memberNames(ordered);
  const sorted = [...rows.values()].sort(
    (a, b) =>
      (a.label.period_end < b.label.period_end ? 1 : a.label.period_end > b.label.period_end ? -1 : 0) ||
      a.label.months - b.label.months ||
      AXIS_ORDER.indexOf(a.axis) - AXIS_ORDER.indexOf(b.axis),
  );
  const out: SegmentPeriod[] = sorted.map((row) => segmentPeriodAsOf(keyOf(row), row.presentations, names, LATEST, false)!);
  return { rows: out, history: { names, rows: sorted.map((r) => r.presentations) }, unlabelled };
}

/** The earnings period a span is (same month class, ends within a week of its end or of one of its other ends). */
function labelOf(periods: readonly LabelledPeriod[], start: string, end: string): LabelledPeriod | undefined {
  const months = classifyMonths(start, end);
  if (months === null) return undefined;
  const day = dayNumber(end);
  const near = (other: string) => Math.abs(dayNumber(other) - day) <= SAME_PERIOD_DAYS;
  return periods.find((p) => p.months === months && (p.period_end === end || near(p.period_end) || p.alternative_dates.some((a) => near(a.period_end))));
}

/**
 * One filing's presentation of a span on an axis: per metric, the concept of highest priority that its members
 * report (one concept for every member: issue 43, the segment note's own line), in the unit most of them use; the
 * consolidated figure of that concept; the reconciling items it states. Null when no member reports either metric.
 */
function present(filing: SegmentFiling, facts: readonly FiledSegmentFact[], start: string, end: string): SegmentPresentation | null {
  const chosen: Partial<Record<SegmentMetric, { concept: string; unit: string }>> = {};
  for (const metric of SEGMENT_METRICS) {
    const candidates = facts.filter((f) => f.metric === metric);
    if (candidates.length === 0) continue;
    const top = candidates.some((f) => f.within === null) ? candidates.filter((f) => f.within === null) : candidates;
    const concept = top.reduce((best, f) => (conceptRank(metric, f.concept)! < conceptRank(metric, best)! ? f.concept : best), top[0]!.concept);
    chosen[metric] = { concept, unit: mostCommon(candidates.filter((f) => f.concept === concept).map((f) => f.unit)) };
  }
  const members = new Map<string, PresentedMember>();
  for (const fact of facts) {
    const pick = chosen[fact.metric];
    if (!pick || fact.concept !== pick.concept || fact.unit !== pick.unit) continue;
    const key = `${fact.within ?? ""}>${fact.member}`;
    const member = members.get(key) ?? { member: fact.member, within: fact.within, revenue: null, operating_income: null };
    members.set(key, member);
    member[fact.metric] ??= { value: fact.value, unit: fact.unit, concept: fact.concept };
  }
  if (members.size === 0) return null;
  const inSpan = filing.totals.filter((t) => t.start === start && t.end === end);
  const consolidated = { revenue: null, operating_income: null } as SegmentPresentation["consolidated"];
  const items: PresentedItem[] = [];
  for (const metric of SEGMENT_METRICS) {
    const pick = chosen[metric];
    if (!pick) continue;
    const total = inSpan.find((t) => t.member === null && t.metric === metric && t.concept === pick.concept && t.unit === pick.unit);
    if (total) consolidated[metric] = { value: total.value, unit: total.unit, concept: total.concept };
    // Per consolidation member: its figure in the metric's own concept where it states one, else its expense lines.
    const stated = inSpan.filter((t) => t.member !== null && t.metric === metric && t.unit === pick.unit);
    for (const member of new Set(stated.map((t) => t.member!))) {
      const own = stated.filter((t) => t.member === member && t.concept === pick.concept);
      const lines = own.length ? own : metric === "operating_income" ? stated.filter((t) => t.member === member && conceptRank(metric, t.concept) === null) : [];
      for (const t of lines) items.push({ member, metric, value: t.value, unit: t.unit, concept: t.concept });
    }
  }
  return { accession: filing.accession, form: filing.form, filed_at: filing.filed_at, derived: false, members: [...members.values()], consolidated, items };
}

/**
 * A fourth quarter for each fiscal year and axis that has the year and no filed fourth quarter: at each filing date,
 * the year's presentation less the months before it (the nine months, else the half and the third quarter, else the
 * three quarters: quarters.ts planLastQuarter), metric by metric, only where every part presents the very members the
 * year does in the same concept and unit — one segmentation, never a member missing from either (issue 43.2). A new
 * derived presentation only when its figures change: a later filing re-reporting the same year does not make the
 * quarter newer (the earnings' vintage rule).
 */
function addFourthQuarters(rows: Map<string, Row>, periods: readonly LabelledPeriod[]): void {
  const byYear = new Map<string, Row[]>();
  for (const row of rows.values()) {
    const key = `${row.axis}|${row.label.fiscal_year}`;
    byYear.set(key, [...(byYear.get(key) ?? []), row]);
  }
  for (const group of byYear.values()) {
    const year = group.find((r) => r.label.months === 12);
    if (!year || group.some((r) => r.label.months === 3 && r.label.fiscal_quarter === "Q4")) continue;
    const spans = group.map((r) => ({ start: r.label.period_start, end: r.label.period_end, months: r.label.months, row: r }));
    const plan = planLastQuarter(spans.find((s) => s.row === year)!, spans);
    if (!plan) continue;
    const label = periods.find((p) => p.months === 3 && p.period_end === plan.end) ?? {
      ...year.label,
      months: 3 as const,
      fiscal_quarter: "Q4" as const,
      period_start: plan.start,
      calendar_frame: calendarFrame(plan.start, plan.end, 3),
      alternative_dates: [],
    };
    const derived: SegmentPresentation[] = [];
    const inputs = [year, ...plan.tilings.flat().map((s) => s.row)];
    const dates = [...new Set(inputs.flatMap((r) => r.presentations.map((p) => p.filed_at)))].sort();
    for (const date of dates) {
      const total = latest(year.presentations, date);
      if (!total) continue;
      for (const tiling of plan.tilings) {
        const parts = tiling.map((s) => latest(s.row.presentations, date));
        if (parts.some((p) => !p)) continue;
        const quarter = subtract(total, parts as SegmentPresentation[]);
        if (quarter && !sameFigures(quarter, derived.at(-1))) derived.push(quarter);
        break;
      }
    }
    if (derived.length) rows.set(`${year.axis}|${label.period_end}|3`, { axis: year.axis, label, presentations: derived });
  }
}

/** The year less its parts, metric by metric where they present the same members in the same concept and unit; null when neither can be. */
function subtract(total: SegmentPresentation, parts: readonly SegmentPresentation[]): SegmentPresentation | null {
  const ok = SEGMENT_METRICS.filter((metric) => parts.every((p) => sameMembers(total, p, metric)));
  if (ok.length === 0) return null;
  const newest = [total, ...parts].reduce((a, b) => (b.filed_at > a.filed_at || (b.filed_at === a.filed_at && b.accession > a.accession) ? b : a));
  const minus = (figure: SegmentFigure | null, others: (SegmentFigure | null | undefined)[]): SegmentFigure | null =>
    figure && others.every((o) => o && o.concept === figure.concept && o.unit === figure.unit) ? { ...figure, value: clean(figure.value - others.reduce((s, o) => s + o!.value, 0)) } : null;
  const members = total.members
    .map((m) => {
      const others = parts.map((p) => p.members.find((o) => o.member === m.member && o.within === m.within));
      const value = (metric: SegmentMetric) => (ok.includes(metric) ? minus(m[metric], others.map((o) => o?.[metric])) : null);
      return { member: m.member, within: m.within, revenue: value("revenue"), operating_income: value("operating_income") };
    })
    .filter((m) => m.revenue !== null || m.operating_income !== null);
  const consolidated = Object.fromEntries(ok.map((metric) => [metric, minus(total.consolidated[metric], parts.map((p) => p.consolidated[metric]))])) as SegmentPresentation["consolidated"];
  for (const metric of SEGMENT_METRICS) consolidated[metric] ??= null;
  const items = total.items.flatMap((item) => {
    if (!ok.includes(item.metric)) return [];
    const others = parts.map((p) => p.items.find((o) => o.member === item.member && o.metric === item.metric && o.concept === item.concept));
    const figure = minus(item, others);
    return figure ? [{ ...figure, member: item.member, metric: item.metric }] : [];
  });
  const inputs = [...new Set([total, ...parts].map((p) => p.accession))];
  return { accession: newest.accession, form: newest.form, filed_at: newest.filed_at, derived: true, inputs, members, consolidated, items };
}

/** Whether two presentations show the same members for a metric, in one concept and unit. */
function sameMembers(a: SegmentPresentation, b: SegmentPresentation, metric: SegmentMetric): boolean {
  const key = (p: SegmentPresentation) =>
    p.members
      .filter((m) => m[metric] !== null)
      .map((m) => `${m.within ?? ""}>${m.member}|${m[metric]!.concept}|${m[metric]!.unit}`)
      .sort()
      .join(",");
  const ka = key(a);
  return ka !== "" && ka === key(b);
}

/** Whether a derived presentation has the figures of the previous one (then it is not a new vintage). */
function sameFigures(a: SegmentPresentation, b: SegmentPresentation | undefined): boolean {
  if (!b) return false;
  const figures = (p: SegmentPresentation) => JSON.stringify([p.members, p.consolidated, p.items]);
  return figures(a) === figures(b);
}

/** The last presentation filed by `date` (presentations come in filing order). */
function latest(presentations: readonly SegmentPresentation[], date: string): SegmentPresentation | undefined {
  return presentations.findLast((p) => p.filed_at <= date);
}

/** Each member's name: the label of the newest filing whose label linkbase names it, else its QName spelled out. */
function memberNames(ordered: readonly SegmentFiling[]): Record<string, string> {
  const members = new Set<string>();
  for (const f of ordered) {
    for (const fact of f.facts) {
      members.add(fact.member);
      if (fact.within) members.add(fact.within);
    }
    for (const t of f.totals) if (t.member) members.add(t.member);
  }
  const names: Record<string, string> = {};
  for (const member of [...members].sort()) {
    const labelled = ordered.findLast((f) => f.labels?.[member] !== undefined);
    names[member] = labelled ? labelled.labels![member]! : spellQName(member);
  }
  return names;
}

function keyOf(row: Row): SegmentRowKey {
  return segmentRowKey({ ...row.label, axis: row.axis, axis_qname: SEGMENT_AXES[row.axis] });
}

function mostCommon(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}
