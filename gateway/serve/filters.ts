// The per-request filters of the paid endpoints over a document's rows (spec 4.3–4.5; DESIGN "Derivation rules").
import { STATEMENTS, type Statement } from "../../schemas/financials.ts";
import { parsePeriod, type PeriodFilter } from "../../schemas/params.ts";
import type { SegmentAxis } from "../../schemas/segments.ts";
import type { DocumentKind } from "../../schemas/snapshot.ts";

/** The query values a filter reads (already validated). */
export interface FilterQuery {
  form?: string | undefined;
  limit?: number | undefined;
  /** Matching rows skipped before the page (issue 41). */
  offset?: number | undefined;
  period?: string | undefined;
  since?: string | undefined;
  /** Earnings as they stood on this day (point-in-time.ts). */
  as_of?: string | undefined;
  /** Earnings metrics with every value they had (point-in-time.ts). */
  history?: boolean | undefined;
  /** Financials: one statement (income, balance, cash_flow) or all. */
  statement?: Statement | "all" | undefined;
  /** Segments: one axis (business, product, geography) or all (issue 43). */
  axis?: SegmentAxis | "all" | undefined;
}

/** A row an answer keeps: its index in the document and the row itself (as of a date, for a point-in-time answer). */
export interface SelectedRow {
  index: number;
  row: Record<string, unknown>;
}

/** A page of an answer: its rows, and how many rows pass the filters in all (meta.total). */
export interface SelectedPage {
  rows: SelectedRow[];
  total: number;
}

/**
 * The page an answer keeps, in document order (newest first): after the first `offset`, the first `limit` of the
 * `count` rows `rowAt` gives that pass the filters (the filings' default 20; the other endpoints' none, every row),
 * and how many pass in all. `rowAt` is asked in order; a null is a row the answer does not have (a period not yet
 * reported on `as_of`). Made once per document and filter (envelope.ts), so counting them all is paid once.
 */
export function selectRows(kind: DocumentKind, count: number, rowAt: (i: number) => Record<string, unknown> | null, query: FilterQuery): SelectedPage {
  const keep = predicate(kind, query);
  const rows: SelectedRow[] = [];
  const offset = query.offset ?? 0;
  const end = offset + (query.limit ?? (kind === "filings" ? 20 : Infinity));
  let total = 0;
  for (let index = 0; index < count; index++) {
    const row = rowAt(index);
    if (!row || !keep(row)) continue;
    if (total >= offset && total < end) rows.push({ index, row });
    total++;
  }
  return { rows, total };
}

function predicate(kind: DocumentKind, query: FilterQuery): (row: Record<string, unknown>) => boolean {
  if (kind === "filings" && query.form) {
    // Exact and case-insensitive: 10-K does not match 10-K/A (DESIGN).
    const form = query.form.toUpperCase();
    return (row) => String(row.form).toUpperCase() === form;
  }
  if (kind === "earnings" && query.period) return periodPredicate(parsePeriod(query.period));
  if (kind === "segments") return segmentsPredicate(query);
  if (kind === "financials") return financialsPredicate(query);
  if (kind === "insiders" && query.since) {
    const since = query.since;
    return (row) => typeof row.transaction_date === "string" && row.transaction_date >= since;
  }
  return () => true;
}

/**
 * Financials: the earnings' periods (TTM rows only with period=ttm, never otherwise), and with a statement only the
 * rows that have something of it (a year-to-date row has no balance sheet).
 */
function financialsPredicate(query: FilterQuery): (row: Record<string, unknown>) => boolean {
  const filter = query.period ? parsePeriod(query.period) : null;
  const period = filter && filter.kind !== "ttm" ? periodPredicate(filter) : null;
  const ttm = filter?.kind === "ttm";
  const statement = query.statement && query.statement !== "all" ? query.statement : null;
  return (row) => {
    if ((row.ttm !== null) !== ttm || (period && !period(row))) return false;
    if (!statement) return true;
    const group = row[statement] as Record<string, unknown> | null | undefined;
    return group !== null && group !== undefined && Object.values(group).some((m) => m !== null);
  };
}

/** Segments: one axis (or all) and the earnings' periods. */
function segmentsPredicate(query: FilterQuery): (row: Record<string, unknown>) => boolean {
  const period = query.period ? periodPredicate(parsePeriod(query.period)) : null;
  const axis = query.axis && query.axis !== "all" ? query.axis : null;
  return (row) => (axis === null || row.axis === axis) && (period === null || period(row));
}

/** A financials row with only the chosen statement (the others left out, as the schema allows); null: rows whole. */
export function projection(kind: DocumentKind, query: FilterQuery): ((row: Record<string, unknown>) => Record<string, unknown>) | null {
  if (kind !== "financials" || !query.statement || query.statement === "all") return null;
  const others = STATEMENTS.filter((s) => s !== query.statement);
  return (row) => {
    const out = { ...row };
    for (const other of others) delete out[other];
    return out;
  };
}

/** DESIGN: annual = fiscal years; quarterly = three-month periods, Q4 included; interim = what quarterly reports carry. */
function periodPredicate(filter: PeriodFilter): (row: Record<string, unknown>) => boolean {
  switch (filter.kind) {
    case "ttm":
      return (row) => row.ttm !== null && row.ttm !== undefined;
    case "annual":
      return (row) => row.months === 12;
    case "quarterly":
      return (row) => row.months === 3;
    case "interim":
      return (row) => row.months !== 12 && row.derived !== true;
    case "fiscal_year":
      return (row) => row.fiscal_year === filter.year;
    case "calendar_frame": {
      const months = filter.frame.includes("Q") ? 3 : 12;
      return (row) => row.months === months && row.calendar_frame === filter.frame;
    }
  }
}
