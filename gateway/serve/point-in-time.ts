// Point-in-time answers of /earnings/summary, /financials and /segments (issues 14, 18, 43): the rows as they
// stood on `as_of`, and each metric's history, read from the document's history section — parsed on first use, kept
// with the document. Never on the default answer's path: a query without as_of or history is served from the stored
// row bytes. An as-of answer uses only filings accepted by then, in every field: a TTM row's block is read from the
// document's other rows as of the date, not copied from today's.
import { documentContext, EarningsHistory, LATEST, periodAsOf, type PeriodHistory } from "../../schemas/earnings-history.ts";
import type { EarningsPeriod, HistoryEntry } from "../../schemas/earnings.ts";
import { expandHistory, financialAsOf, financialsContext, type StoredFinancialsHistory } from "../../schemas/financials-history.ts";
import type { FinancialsContext } from "../../schemas/financials-row-history.ts";
import type { FinancialPeriod } from "../../schemas/financials.ts";
import type { DocumentKind } from "../../schemas/snapshot.ts";
import { segmentPeriodAsOf, segmentRowKey, type SegmentsHistory } from "../../schemas/segments-history.ts";
import type { SegmentPeriod } from "../../schemas/segments.ts";
import type { FilterQuery } from "./filters.ts";
import type { PreparedDocument } from "./document.ts";

/** A document's reading as of a date: its histories, parsed once, and what every row's reading shares (STYLE habit 4). */
type Reader = (row: number, date: string, withHistory: boolean) => Record<string, unknown> | null;
const READERS = new WeakMap<PreparedDocument, Reader>();

/**
 * Each row of a point-in-time answer by its index in the document (null: a period not yet reported on `as_of`), or null
 * for the default answer.
 */
export function pointInTimeReader(doc: PreparedDocument, kind: DocumentKind, query: FilterQuery): ((row: number) => Record<string, unknown> | null) | null {
  if ((kind !== "earnings" && kind !== "financials" && kind !== "segments") || (query.as_of === undefined && !query.history)) return null;
  const read = readerOf(doc, kind);
  const date = query.as_of ?? LATEST;
  const withHistory = query.history === true;
  return (i) => read(i, date, withHistory);
}

function readerOf(doc: PreparedDocument, kind: "earnings" | "financials" | "segments"): Reader {
  let read = READERS.get(doc);
  if (read) return read;
  if (kind === "segments") {
    // Every segments document has its history section (there is no older form of it).
    const rows = doc.rows as unknown as SegmentPeriod[];
    const history = JSON.parse(doc.history ?? '{"names":{},"rows":[]}') as SegmentsHistory;
    const keys = rows.map(segmentRowKey);
    read = (i, date, withHistory) => segmentPeriodAsOf(keys[i]!, history.rows[i] ?? [], history.names, date, withHistory);
  } else if (kind === "financials") {
    const rows = doc.rows as unknown as FinancialPeriod[];
    let context: FinancialsContext;
    if (doc.history === undefined) context = financialsContext(rows, []);
    else {
      const stored = JSON.parse(doc.history) as StoredFinancialsHistory;
      context = financialsContext(rows, expandHistory(stored), stored.filings);
    }
    read = (i, date, withHistory) => (context.histories[i] ? financialAsOf(rows[i]!, context.histories[i]!, date, withHistory, context) : null);
  } else {
    const rows = doc.rows as unknown as EarningsPeriod[];
    const histories = doc.history === undefined ? fromRows(rows) : (JSON.parse(doc.history) as EarningsHistory);
    const context = documentContext(histories);
    read = (i, date, withHistory) => periodAsOf(rows[i]!, histories[i]!, date, withHistory, context);
  }
  READERS.set(doc, read);
  return read;
}

/**
 * An earnings document built before history sections existed: each metric's only known value is today's, filed when
 * its row says (a point in time before then leaves it out). Replaced by the next build.
 */
function fromRows(rows: readonly EarningsPeriod[]): PeriodHistory[] {
  return rows.map((row) => {
    const metrics: PeriodHistory["metrics"] = {};
    for (const [name, m] of Object.entries(row.metrics)) {
      if (!m) continue;
      const entry: HistoryEntry = { value: m.value, unit: m.unit, concept: m.concept, accession: m.source_accession, form: m.form, filed_at: m.filed_at, derived: m.derived };
      metrics[name as keyof PeriodHistory["metrics"]] = [entry];
    }
    return row.months === 12 && row.reconciled !== undefined ? { metrics, reconciliation: [{ from: row.filed_at, reconciled: row.reconciled, reconciliation: row.reconciliation ?? [] }] } : { metrics };
  });
}
