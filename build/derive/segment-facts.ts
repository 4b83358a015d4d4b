// One filing's XBRL → the facts segments read (issue 43): each member's revenue and profit measure on the business,
// product and geography axes, the stated reconciling items and the consolidated totals. Pure; what it returns is
// cached by accession (build/pipeline/segments.ts), so a filing is parsed once.
import { CONSOLIDATION_AXIS, OPERATING_SEGMENTS_MEMBER, SEGMENT_AXES, type FiledSegmentFact, type FiledTotalFact, type SegmentAxis, type SegmentFiling } from "../../schemas/segments.ts";
import type { XbrlContext, XbrlDocument } from "../parse/xbrl.ts";
import { isExpenseConcept, segmentMetric } from "./segment-concepts.ts";

/** The axes by their XBRL dimension. */
const AXIS_OF: ReadonlyMap<string, SegmentAxis> = new Map(Object.entries(SEGMENT_AXES).map(([axis, qname]) => [qname, axis as SegmentAxis]));

/** What a fact's dimensions make it: a member's figure, a reconciling item, the consolidated total, or nothing we read. */
type Placement =
  | { kind: "member"; axis: SegmentAxis; member: string; within: string | null }
  | { kind: "item"; member: string }
  | { kind: "total" }
  | null;

/** The filing's segment facts, reconciling items and totals, each once (a figure repeated in several tables is one fact). */
export function segmentFacts(doc: XbrlDocument, filing: Pick<SegmentFiling, "accession" | "form" | "filed_at" | "document">): SegmentFiling {
  const facts = new Map<string, FiledSegmentFact>();
  const totals = new Map<string, FiledTotalFact>();
  const placements = new Map<string, Placement>();
  for (const fact of doc.facts) {
    if (fact.value === null) continue;
    let placement = placements.get(fact.context);
    if (placement === undefined) placements.set(fact.context, (placement = place(doc.contexts.get(fact.context)!)));
    if (placement === null) continue;
    const context = doc.contexts.get(fact.context)!;
    const figure = { value: fact.value, unit: doc.units.get(fact.unit)!, concept: fact.concept, start: context.start!, end: context.end };
    const metric = segmentMetric(fact.concept);
    if (placement.kind === "member") {
      if (metric === null) continue;
      const key = `${placement.axis}|${placement.within ?? ""}|${placement.member}|${fact.concept}|${figure.unit}|${figure.start}|${figure.end}`;
      if (!facts.has(key)) facts.set(key, { ...figure, axis: placement.axis, member: placement.member, within: placement.within, metric });
      continue;
    }
    // A reconciling item may be an expense line (Apple's unallocated R&D); a consolidated total only a metric's concept.
    const itemMetric = metric ?? (placement.kind === "item" && isExpenseConcept(fact.concept) ? "operating_income" : null);
    if (itemMetric === null) continue;
    const member = placement.kind === "item" ? placement.member : null;
    const key = `${member ?? ""}|${fact.concept}|${figure.unit}|${figure.start}|${figure.end}`;
    if (!totals.has(key)) totals.set(key, { ...figure, member, metric: itemMetric });
  }
  return { ...filing, schema: doc.schema, facts: [...facts.values()], totals: [...totals.values()] };
}

/** Whether segments read a fact of this concept in this context (a test fixture's cut keeps exactly these). */
export function readsFact(concept: string, context: XbrlContext): boolean {
  const placement = place(context);
  return placement !== null && (segmentMetric(concept) !== null || (placement.kind === "item" && isExpenseConcept(concept)));
}

/**
 * Where a context's facts belong. One of the three axes, with the consolidation axis at most saying "operating
 * segment" (Walmart and Alphabet tag their segments so: issue 43.1); a product or region within a business segment
 * (Alphabet's YouTube ads within Google Services); the consolidation axis alone (corporate, eliminations: a
 * reconciling item; its operating-segments member is the segments' own sum, not an item); no dimension (the total).
 * Durations only; anything else (another dimension, a typed one) is not a segment figure.
 */
function place(context: XbrlContext): Placement {
  if (context.start === null || context.typed) return null;
  let consolidation: string | null = null;
  const on: [SegmentAxis, string][] = [];
  for (const [dimension, member] of Object.entries(context.dims)) {
    if (dimension === CONSOLIDATION_AXIS) consolidation = member;
    else {
      const axis = AXIS_OF.get(dimension);
      if (axis === undefined) return null;
      on.push([axis, member]);
    }
  }
  if (on.length === 0) {
    if (consolidation === null) return { kind: "total" };
    return consolidation === OPERATING_SEGMENTS_MEMBER ? null : { kind: "item", member: consolidation };
  }
  if (consolidation !== null && consolidation !== OPERATING_SEGMENTS_MEMBER) return null;
  if (on.length === 1) return { kind: "member", axis: on[0]![0], member: on[0]![1], within: null };
  const business = on.find(([axis]) => axis === "business");
  const other = on.find(([axis]) => axis !== "business");
  if (on.length !== 2 || !business || !other) return null;
  return { kind: "member", axis: other[0], member: other[1], within: business[1] };
}
