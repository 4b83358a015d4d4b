// Segments' CPU steps (issue 43), pure like documents.ts so compute.ts may run them on a worker: a filing's XBRL read
// into its segment facts, a label linkbase into member names, and a company's segment filings into its document.
import { SegmentsHistory } from "../../schemas/segments-history.ts";
import type { SegmentFiling } from "../../schemas/segments.ts";
import { encodeJson } from "../../storage/json.ts";
import { segmentFacts } from "../derive/segment-facts.ts";
import { deriveSegments, type LabelledPeriod } from "../derive/segments.ts";
import { parseInlineXbrl } from "../parse/inline-xbrl.ts";
import { parseXbrlInstance } from "../parse/xbrl-instance.ts";
import { encodeDocument, maxBy, type DocumentOrigin } from "./documents.ts";
import type { FilingItem } from "../../schemas/filing.ts";
import { PERIODIC_FORM } from "../forms.ts";
import { parseSubmissionsPage } from "../parse/submissions.ts";
import type { ParseSubject } from "../errors.ts";

/** Which XBRL a filing's document is: the inline primary document, or the plain instance EDGAR extracts from it. */
export type XbrlKind = "inline" | "instance";

/** The filing a document belongs to. */
export type SegmentFilingMeta = Pick<SegmentFiling, "accession" | "form" | "filed_at"> & { document: string };

/** A filing's XBRL text → its segment facts (XbrlDocumentError when the document cannot be read). */
export function readSegmentFiling(text: string, kind: XbrlKind, filing: SegmentFilingMeta): SegmentFiling {
  const subject = { accession: filing.accession, path: filing.document };
  const doc = kind === "inline" ? parseInlineXbrl(text, subject) : parseXbrlInstance(text, subject);
  return segmentFacts(doc, filing);
}

/** An older submissions page's periodic reports with inline XBRL (what the segments read of it). */
export function periodicReportsOfPage(text: string, cik: number, subject: ParseSubject): FilingItem[] {
  return parseSubmissionsPage(text, cik, subject).filter((f) => f.is_inline_xbrl && PERIODIC_FORM.test(f.form.toUpperCase()));
}

/** The segments document, with what the manifest says of it. */
export interface SegmentsResult {
  bytes: Uint8Array;
  rows: number;
  /** Spans some filing reports segments for that no earnings period matches (left out: they would have no labels). */
  unlabelled: number;
}

/**
 * A company's segment filings → its segments document, labelled by its earnings' periods, with its history section as
 * JSON text (read by the gateway only for `as_of` or `history=true`, as the earnings'). Its meta names the newest
 * filing it reflects.
 */
export function segmentsDocument(filings: readonly SegmentFiling[], periods: readonly LabelledPeriod[], origin: DocumentOrigin): SegmentsResult {
  const series = deriveSegments(filings, periods);
  const newest = maxBy([...filings].filter((f) => f.facts.length > 0), (f) => `${f.filed_at}|${f.accession}`);
  const meta = { ...origin, source_accession: newest?.accession ?? null, filed_at: newest?.filed_at ?? null };
  const history = encodeJson(SegmentsHistory, series.history, "the segments history");
  return { bytes: encodeDocument("segments", { data: series.rows, meta, history }), rows: series.rows.length, unlabelled: series.unlabelled };
}
