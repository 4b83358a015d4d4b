// Point-in-time answers of /earnings/summary (issue 14 "Point in time"): the rows as they stood on `as_of`, and each
// metric's history, read from the earnings document's history section — parsed on first use, kept with the document.
// Never on the default answer's path: a query without as_of or history is served from the stored row bytes.
import { EarningsHistory, LATEST, periodAsOf, type PeriodHistory } from "../schemas/earnings-history.ts";
import type { EarningsPeriod, HistoryEntry } from "../schemas/earnings.ts";
import type { FilterQuery } from "./filters.ts";
import type { PreparedDocument } from "./snapshot.ts";

/** The history section of each earnings document, parsed once (the builder validated it; STYLE habit 4). */
const HISTORIES = new WeakMap<PreparedDocument, PeriodHistory[]>();

/** The rows of a point-in-time answer (periods not yet reported on `as_of` left out), or null for the default answer. */
export function pointInTimeRows(doc: PreparedDocument, query: FilterQuery): Record<string, unknown>[] | null {
  if (query.as_of === undefined && !query.history) return null;
  const histories = historyOf(doc);
  const date = query.as_of ?? LATEST;
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < doc.rows.length; i++) {
    const row = periodAsOf(doc.rows[i] as EarningsPeriod, histories[i]!, date, query.history === true);
    if (row) rows.push(row);
  }
  return rows;
}

function historyOf(doc: PreparedDocument): PeriodHistory[] {
  let histories = HISTORIES.get(doc);
  if (!histories) {
    histories = doc.history === undefined ? fromRows(doc.rows as EarningsPeriod[]) : (JSON.parse(doc.history) as EarningsHistory);
    HISTORIES.set(doc, histories);
  }
  return histories;
}

/**
 * A document built before history sections existed: each metric's only known value is today's, filed when its row says
 * (a point in time before then leaves it out). Replaced by the next build.
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
