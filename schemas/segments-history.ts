// The segments document's history section (issue 43 "the same series rules"): every presentation of each period and
// axis, in filing order, and the one reading of it — the latest presentation filed by a date, with what changed since
// the first marked (restated values, a recast) — shared by the builder (today's rows: the history read as of LATEST)
// and the gateway (`as_of`, `history=true`), so the two can never disagree.
import { z } from "zod";
import { sameFigure } from "./figures.ts";
import {
  SEGMENT_METRICS,
  SegmentPresentation,
  type PresentedMember,
  type ReconcilingItem,
  type SegmentLabels,
  type SegmentMember,
  type SegmentMetric,
  type SegmentPeriod,
  type SegmentReconciliation,
  type SegmentValue,
} from "./segments.ts";

/** The history section: the members' names and, aligned with the rows of `data`, each row's presentations. */
export const SegmentsHistory = z.object({
  names: z.record(z.string(), z.string()).meta({ description: "Every member's name as a reader would say it, by QName." }),
  rows: z.array(z.array(SegmentPresentation)),
});
export type SegmentsHistory = z.infer<typeof SegmentsHistory>;

/** What a row is apart from its presentations: its axis and fiscal labels. */
export type SegmentRowKey = Pick<SegmentPeriod, "axis" | "axis_qname"> & SegmentLabels;

/** A row's axis and labels, without what its presentations give it. */
export function segmentRowKey(row: SegmentRowKey): SegmentRowKey {
  const { axis, axis_qname, fiscal_year, fiscal_quarter, months, period_start, period_end, calendar_frame } = row;
  return { axis, axis_qname, fiscal_year, fiscal_quarter, months, period_start, period_end, calendar_frame };
}

/**
 * The row as it stood on `date`: the latest presentation filed by then (presentations come in filing order), each
 * member's value marked restated against the first that reported it, the row marked recast when the served
 * presentation's members are not the first one's; null when nothing was filed by then. With `withHistory`, every
 * presentation filed by then.
 */
export function segmentPeriodAsOf(key: SegmentRowKey, presentations: readonly SegmentPresentation[], names: Readonly<Record<string, string>>, date: string, withHistory: boolean): SegmentPeriod | null {
  let visible = presentations.length;
  while (visible > 0 && presentations[visible - 1]!.filed_at > date) visible--;
  if (visible === 0) return null;
  const shown = presentations.slice(0, visible);
  const served = shown[visible - 1]!;
  const first = shown[0]!;
  const nameOf = (member: string) => names[member] ?? spellQName(member);
  const members: SegmentMember[] = served.members.map((m) => {
    const value = (metric: SegmentMetric): SegmentValue | null => {
      const figure = m[metric];
      if (!figure) return null;
      const original = shown.find((p) => p.members.some((o) => o.member === m.member && o.within === m.within && o[metric]))?.members.find((o) => o.member === m.member && o.within === m.within)?.[metric];
      const restated = original !== undefined && original !== null && !sameFigure(original.value, figure.value);
      return { ...figure, source_accession: served.accession, filed_at: served.filed_at, form: served.form, derived: served.derived, restated, original_value: restated ? original!.value : null };
    };
    return {
      member: m.member,
      name: nameOf(m.member),
      segment: m.within === null ? null : { member: m.within, name: nameOf(m.within) },
      revenue: value("revenue"),
      operating_income: value("operating_income"),
    };
  });
  const reconciliation = Object.fromEntries(SEGMENT_METRICS.map((metric) => [metric, reconcile(served, metric, nameOf)])) as SegmentPeriod["reconciliation"];
  return {
    ...key,
    source_accession: served.accession,
    form: served.form,
    filed_at: served.filed_at,
    original_accession: first.accession,
    derived: served.derived,
    derived_from: served.inputs ?? null,
    recast: memberSet(served) !== memberSet(first),
    members,
    reconciliation,
    ...(withHistory ? { history: shown } : {}),
  };
}

/**
 * How one metric's members relate to the consolidated figure: the members not within another segment summed, the
 * stated reconciling items entering with their sign (the metric's own concept added, an expense line subtracted), and
 * what is left (issue 43.2: shown, never forced to fit). Members all within segments (Walmart's merchandise
 * categories) are summed as they are. Null when no member reports the metric.
 */
function reconcile(p: SegmentPresentation, metric: SegmentMetric, nameOf: (member: string) => string): SegmentReconciliation | null {
  const reporting = p.members.filter((m) => m[metric] !== null);
  const subtotals = subtotalsOf(reporting, metric);
  const parts = reporting.filter((m) => !subtotals.has(m));
  const top = parts.some((m) => m.within === null) ? parts.filter((m) => m.within === null) : parts;
  const concept = top[0]?.[metric]?.concept;
  if (concept === undefined) return null;
  const items: ReconcilingItem[] = p.items
    .filter((i) => i.metric === metric)
    .map((i) => ({ value: i.value, unit: i.unit, concept: i.concept, member: i.member, name: nameOf(i.member), enters: i.concept === concept ? 1 : -1 }));
  const consolidated = p.consolidated[metric]?.concept === concept ? p.consolidated[metric]!.value : null;
  const stated = items.reduce((sum, i) => sum + i.enters * i.value, 0);
  const membersTotal = clean(top.reduce((sum, m) => sum + m[metric]!.value, 0));
  const difference = consolidated === null ? null : clean(consolidated - membersTotal - stated);
  return { concept, consolidated, members_total: membersTotal, subtotals: [...subtotals].map((m) => m.member), reconciling_items: items, difference };
}

/**
 * The members that are the sum of others listed beside them: a run of two or more consecutive members of the same
 * segment (in the filing's order) adding up to it exactly — Apple's Products = iPhone + Mac + iPad + Wearables, Home and
 * Accessories; Alphabet's Google advertising = Search + YouTube ads + Network. Figures of six digits and more do not add
 * up by chance.
 */
function subtotalsOf(members: readonly PresentedMember[], metric: SegmentMetric): Set<PresentedMember> {
  const out = new Set<PresentedMember>();
  for (const candidate of members) {
    const group = members.filter((m) => m !== candidate && m.within === candidate.within);
    const target = candidate[metric]!.value;
    for (let i = 0; i < group.length && !out.has(candidate); i++) {
      let sum = 0;
      for (let j = i; j < group.length; j++) {
        sum += group[j]![metric]!.value;
        if (j > i && sameFigure(sum, target) && target !== 0) {
          out.add(candidate);
          break;
        }
      }
    }
  }
  return out;
}

/** The members a presentation shows, as one comparable key (which members, not their values). */
function memberSet(p: SegmentPresentation): string {
  return p.members
    .map((m) => `${m.within ?? ""}>${m.member}`)
    .sort()
    .join("|");
}

/** A sum of filed figures without the binary fractions addition leaves (0.1 + 0.2). */
export function clean(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * A QName as words, for a member whose filing gives no label: prefix and "Member" dropped, words split at capitals
 * and digits (`aapl:RestOfAsiaPacificSegmentMember` → "Rest of Asia Pacific Segment"; `country:US` → "US").
 */
export function spellQName(qname: string): string {
  const local = qname.slice(qname.indexOf(":") + 1).replace(/Member$/, "");
  const words = local
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([A-Za-z])(\d)/g, "$1 $2")
    .split(" ");
  return words.map((w, i) => (i > 0 && SMALL_WORDS.has(w.toLowerCase()) ? w.toLowerCase() : w)).join(" ");
}

const SMALL_WORDS = new Set(["and", "of", "the", "for", "in", "on", "or", "to", "with"]);
