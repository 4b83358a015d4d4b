// Point-in-time answers of /earnings/summary and /financials (issue 14 "Point in time", issue 18): the rows as they
// stood on `as_of`, and each metric's history, read from the document's history section — parsed on first use, kept
// with the document. Never on the default answer's path: a query without as_of or history is served from the stored
// row bytes.
import { EarningsHistory, LATEST, periodAsOf, type PeriodHistory } from "../../schemas/earnings-history.ts";
import type { EarningsPeriod, HistoryEntry } from "../../schemas/earnings.ts";
import { expandHistory, financialAsOf, type FinancialPeriodHistory, type StoredFinancialsHistory } from "../../schemas/financials-history.ts";
import type { FinancialPeriod } from "../../schemas/financials.ts";
import type { DocumentKind } from "../../schemas/snapshot.ts";
import type { FilterQuery } from "./filters.ts";
import type { PreparedDocument } from "./document.ts";

/** The history section of each document, parsed once (the builder validated it; STYLE habit 4). */
const HISTORIES = new WeakMap<PreparedDocument, PeriodHistory[] | FinancialPeriodHistory[]>();

/** The documents answered as of a date, each with its reading of a row and its history. */
const READERS: Partial<Record<DocumentKind, (row: Record<string, unknown>, history: never, date: string, withHistory: boolean) => Record<string, unknown> | null>> = {
  earnings: (row, history: PeriodHistory, date, withHistory) => periodAsOf(row as unknown as EarningsPeriod, history, date, withHistory),
  financials: (row, history: FinancialPeriodHistory, date, withHistory) => financialAsOf(row as unknown as FinancialPeriod, history, date, withHistory),
};

/** The rows of a point-in-time answer (periods not yet reported on `as_of` left out), or null for the default answer. */
export function pointInTimeRows(doc: PreparedDocument, kind: DocumentKind, query: FilterQuery): Record<string, unknown>[] | null {
  const read = READERS[kind];
  if (!read || (query.as_of === undefined && !query.history)) return null;
  const histories = historyOf(doc, kind);
  const date = query.as_of ?? LATEST;
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < doc.rows.length; i++) {
    const row = read(doc.rows[i]!, histories[i] as never, date, query.history === true);
    if (row) rows.push(row);
  }
  return rows;
}

function historyOf(doc: PreparedDocument, kind: DocumentKind): PeriodHistory[] | FinancialPeriodHistory[] {
  let histories = HISTORIES.get(doc);
  if (!histories) {
    if (doc.history === undefined) histories = kind === "earnings" ? fromRows(doc.rows as unknown as EarningsPeriod[]) : [];
    else if (kind === "financials") histories = expandHistory(JSON.parse(doc.history) as StoredFinancialsHistory);
    else histories = JSON.parse(doc.history) as EarningsHistory;
    HISTORIES.set(doc, histories);
  }
  return histories;
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
