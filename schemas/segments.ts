// Segments (issue 43): revenue and operating income by business segment, product or service and region, from the
// filings' own XBRL — what one filing reports (cached by accession) and the periods /segments serves.
import { z } from "zod";
import { FiscalQuarter } from "./earnings.ts";
import { Accession, IsoDate } from "./primitives.ts";

/** The axes /segments reads, by the name the query uses, with the XBRL dimension each is. */
export const SEGMENT_AXES = {
  business: "us-gaap:StatementBusinessSegmentsAxis",
  product: "srt:ProductOrServiceAxis",
  geography: "srt:StatementGeographicalAxis",
} as const;
export const SegmentAxis = z.enum(["business", "product", "geography"]);
export type SegmentAxis = z.infer<typeof SegmentAxis>;
/** The dimension whose members say what a figure is in the reconciliation to the consolidated total. */
export const CONSOLIDATION_AXIS = "srt:ConsolidationItemsAxis";
/** Its member that marks a figure as an operating segment's own (read as the segment's figure, issue 43.1). */
export const OPERATING_SEGMENTS_MEMBER = "us-gaap:OperatingSegmentsMember";

/** The figures each member carries. */
export const SEGMENT_METRICS = ["revenue", "operating_income"] as const;
export const SegmentMetric = z.enum(SEGMENT_METRICS);
export type SegmentMetric = z.infer<typeof SegmentMetric>;

/** A figure as one filing reports it: concept, unit and value (a derived figure's is the difference of two). */
export const SegmentFigure = z.object({
  value: z.number(),
  unit: z.string().meta({ example: "USD" }),
  concept: z.string().meta({ example: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax" }),
});
export type SegmentFigure = z.infer<typeof SegmentFigure>;

// ---- What one filing reports (the cache of parsed filings: storage/layout.ts segmentCacheKey) ----

/** A fact of one member of one axis for one duration, as the filing tags it. */
export const FiledSegmentFact = SegmentFigure.extend({
  axis: SegmentAxis,
  member: z.string(),
  within: z.string().nullable().meta({ description: "The business segment member of a fact tagged on both axes (a product within a segment), else null." }),
  metric: SegmentMetric,
  start: IsoDate,
  end: IsoDate,
});
export type FiledSegmentFact = z.infer<typeof FiledSegmentFact>;

/** A reconciling item (srt:ConsolidationItemsAxis alone: corporate, eliminations) or a consolidated total (no dimension). */
export const FiledTotalFact = SegmentFigure.extend({
  member: z.string().nullable().meta({ description: "The consolidation item's member; null for the consolidated total." }),
  metric: SegmentMetric,
  start: IsoDate,
  end: IsoDate,
});
export type FiledTotalFact = z.infer<typeof FiledTotalFact>;

/** One periodic report's segment facts, read from its XBRL once and cached by accession. */
export const SegmentFiling = z.object({
  accession: Accession,
  form: z.string(),
  filed_at: IsoDate,
  document: z.string().nullable().meta({
    description: "The EDGAR path read: the inline primary document or the extracted instance (_htm.xml); null when the source had neither (then no facts).",
  }),
  schema: z.string().nullable().meta({ description: "The taxonomy schema the document names (its label linkbase is named after it), or null." }),
  facts: z.array(FiledSegmentFact),
  totals: z.array(FiledTotalFact),
  labels: z.record(z.string(), z.string()).nullable().optional().meta({
    description: "Members' labels from the filing's label linkbase (terse, else standard); null: the source has none; absent: not read.",
  }),
});
export type SegmentFiling = z.infer<typeof SegmentFiling>;

// ---- What /segments serves ----

/** A member's figure in a period: the filing it comes from, and how it relates to what was first reported. */
export const SegmentValue = SegmentFigure.extend({
  source_accession: Accession.meta({ description: "The filing whose presentation this is (for a derived quarter, the later of the two it is computed from)." }),
  filed_at: IsoDate,
  form: z.string(),
  derived: z.boolean().meta({ description: "True for a fourth quarter computed as the year less the nine months." }),
  restated: z.boolean().meta({ description: "True when a later filing changed the value first reported for this member." }),
  original_value: z.number().nullable().meta({ description: "The value first reported, when restated." }),
}).meta({ id: "SegmentValue" });
export type SegmentValue = z.infer<typeof SegmentValue>;

/** A member of the axis in a period, named as filed and as a reader would say it. */
export const SegmentMember = z
  .object({
    member: z.string().meta({ description: "The member's QName as filed.", example: "aapl:GreaterChinaSegmentMember" }),
    name: z.string().meta({ description: "The member as a reader would say it: the filing's own label, else its QName spelled out.", example: "Greater China" }),
    segment: z
      .object({ member: z.string(), name: z.string() })
      .nullable()
      .meta({ description: "For a product or region reported within one business segment (YouTube ads within Google Services): that segment; null otherwise." }),
    revenue: SegmentValue.nullable(),
    operating_income: SegmentValue.nullable().meta({ description: "Operating income, or the segment profit measure the company reports (its concept says which)." }),
  })
  .meta({ id: "SegmentMember" });
export type SegmentMember = z.infer<typeof SegmentMember>;

/** A stated reconciling item: what the filing tags between its segments and the consolidated figure. */
export const ReconcilingItem = SegmentFigure.extend({
  member: z.string().meta({ example: "us-gaap:CorporateNonSegmentMember" }),
  name: z.string(),
  enters: z.union([z.literal(1), z.literal(-1)]).meta({ description: "1: added to the members' total (a corporate loss tagged as operating income); −1: subtracted (an expense line such as unallocated R&D)." }),
}).meta({ id: "ReconcilingItem" });
export type ReconcilingItem = z.infer<typeof ReconcilingItem>;

/** How a metric's members relate to the consolidated figure of the same filing and period (never forced to fit). */
export const SegmentReconciliation = z
  .object({
    concept: z.string(),
    consolidated: z.number().nullable().meta({ description: "The filing's consolidated figure of the concept for the period; null when it tags none." }),
    members_total: z.number().meta({
      description: "The sum of the members not within another segment (all of them when every one is), subtotals left out.",
    }),
    subtotals: z.array(z.string()).meta({
      description: "Members whose figure is the sum of members listed beside them (Apple's Products = iPhone + Mac + iPad + Wearables, Home and Accessories), left out of members_total.",
    }),
    reconciling_items: z.array(ReconcilingItem),
    difference: z.number().nullable().meta({
      description: "consolidated − members_total − the reconciling items as they enter: 0 when the filing's own figures add up; otherwise what they leave unexplained (subtotal members, items not tagged). Null without a consolidated figure.",
    }),
  })
  .meta({ id: "SegmentReconciliation" });
export type SegmentReconciliation = z.infer<typeof SegmentReconciliation>;

/** One axis of one period: its members' figures as the latest filing presents them. */
export const SegmentPeriod = z
  .object({
    axis: SegmentAxis,
    axis_qname: z.string().meta({ example: "us-gaap:StatementBusinessSegmentsAxis" }),
    fiscal_year: z.number().int(),
    fiscal_quarter: FiscalQuarter,
    months: z.union([z.literal(3), z.literal(6), z.literal(9), z.literal(12)]),
    period_start: IsoDate,
    period_end: IsoDate,
    calendar_frame: z.string().nullable(),
    source_accession: Accession.meta({ description: "The filing whose presentation is served (the latest that reports the period on this axis)." }),
    form: z.string(),
    filed_at: IsoDate,
    original_accession: Accession.meta({ description: "The filing that first presented the period on this axis." }),
    derived: z.boolean().meta({ description: "True for a fourth quarter computed as the fiscal year less the nine months, member by member." }),
    derived_from: z.array(Accession).nullable().meta({ description: "For a derived quarter, the filings it is computed from: the year's, then the nine months' (or the quarters')." }),
    recast: z.boolean().meta({
      description: "True when the served filing presents other members than the first did (a later 10-K restating earlier years under new segments); history=true lists the earlier presentation.",
    }),
    members: z.array(SegmentMember),
    reconciliation: z.object({ revenue: SegmentReconciliation.nullable(), operating_income: SegmentReconciliation.nullable() }),
    history: z.array(z.lazy(() => SegmentPresentation)).optional().meta({ description: "With history=true: every presentation of the period on this axis, in filing order (up to as_of)." }),
  })
  .meta({ id: "SegmentPeriod" });
export type SegmentPeriod = z.infer<typeof SegmentPeriod>;

/** A member's figures in one presentation. */
export const PresentedMember = z.object({
  member: z.string(),
  within: z.string().nullable(),
  revenue: SegmentFigure.nullable(),
  operating_income: SegmentFigure.nullable(),
});
export type PresentedMember = z.infer<typeof PresentedMember>;

/** A stated reconciling item in one presentation. */
export const PresentedItem = SegmentFigure.extend({ member: z.string(), metric: SegmentMetric });
export type PresentedItem = z.infer<typeof PresentedItem>;

/** One filing's presentation of a period on an axis (or a derived fourth quarter's): what history lists and as_of reads. */
export const SegmentPresentation = z
  .object({
    accession: Accession,
    form: z.string(),
    filed_at: IsoDate,
    derived: z.boolean(),
    inputs: z.array(Accession).optional().meta({ description: "A derived presentation's filings: the year's, then each part's." }),
    members: z.array(PresentedMember),
    consolidated: z.object({ revenue: SegmentFigure.nullable(), operating_income: SegmentFigure.nullable() }),
    items: z.array(PresentedItem),
  })
  .meta({ id: "SegmentPresentation" });
export type SegmentPresentation = z.infer<typeof SegmentPresentation>;

/** The fiscal labels of a row (the earnings' own: schemas/earnings.ts), as the segments document carries them. */
export type SegmentLabels = Pick<SegmentPeriod, "fiscal_year" | "fiscal_quarter" | "months" | "period_start" | "period_end" | "calendar_frame">;
