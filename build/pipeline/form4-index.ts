// Incremental Form 4 discovery: EDGAR's daily form indexes for the days since the last run name the Forms 4 and
// 4/A filed since; only those (and ones filed after the index coverage) are fetched. Reads; never writes.
import type { Logger } from "../../logging/log.ts";
import { INSIDER_FORMS } from "../forms.ts";
import { parseDailyFormIndex, type DailyIndexRow } from "../parse/daily-index.ts";
import { dailyFormIndexPath } from "../sources/paths.ts";
import { SourceNotFoundError, type Source } from "../sources/source.ts";

/** Past this many days without a run, reading every daily index costs more than rediscovering from submissions. */
export const MAX_INDEX_DAYS = 31;

/** What the daily indexes since the last run named, by issuer-or-owner CIK. */
export interface Form4Index {
  /** The previous run's coverage: Form 4s filed on or before it are known (cached, or missing then). */
  after: string;
  /** The newest day whose index was read (the coverage this run records); `after` when none was. */
  through: string;
  days_read: number;
  /** Days without an index: weekends, holidays, and today until EDGAR publishes it (HTTP 404, normal). */
  days_missing: number;
  byCik: Map<number, DailyIndexRow[]>;
}

/**
 * Reads the daily indexes of the days after `after` up to `today` (both YYYY-MM-DD). Null when the gap is too long
 * or an index could not be read: the caller then falls back to discovery from submissions, which is always correct.
 */
export async function readForm4Index(source: Source, after: string, today: string, log: Logger): Promise<Form4Index | null> {
  const days = daysBetween(after, today);
  if (days.length > MAX_INDEX_DAYS) {
    log.log("info", "form4_index_gap_too_long", { after, today, days: days.length });
    return null;
  }
  const index: Form4Index = { after, through: after, days_read: 0, days_missing: 0, byCik: new Map() };
  for (const day of days) {
    const path = dailyFormIndexPath(day);
    let rows: DailyIndexRow[];
    try {
      rows = parseDailyFormIndex(await source.getText(path), { path });
    } catch (error) {
      if (error instanceof SourceNotFoundError) {
        index.days_missing++;
        continue;
      }
      log.log("warn", "form4_index_unreadable", { path, error: (error as Error).message });
      return null;
    }
    for (const row of rows) {
      if (!INSIDER_FORMS.has(row.form.toUpperCase())) continue;
      index.byCik.set(row.cik, [...(index.byCik.get(row.cik) ?? []), row]);
    }
    index.days_read++;
    index.through = day;
  }
  log.log("info", "form4_index_read", { after, through: index.through, days_read: index.days_read, days_missing: index.days_missing });
  return index;
}

/** The calendar days after `after`, through `last`, as YYYY-MM-DD. */
export function daysBetween(after: string, last: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${after}T00:00:00Z`) + 86_400_000; t <= Date.parse(`${last}T00:00:00Z`); t += 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}
