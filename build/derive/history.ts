// Timelines (vintage.ts) as the documents publish them: history entries, the values filed but never served, and the
// exception a value of unclear scale carries. Shared by earnings.ts and statements.ts.
import { scaleMessage } from "../../schemas/earnings-history.ts";
import type { StatementHistoryEntry } from "../../schemas/financials.ts";
import { entryOf, type Entry, type FiledValue } from "./vintage.ts";

/** A served value as a history entry (its terms and cover date only where it has them). */
export function toHistoryEntry(e: Entry): StatementHistoryEntry {
  const entry: StatementHistoryEntry = { value: e.value, unit: e.unit, concept: e.concept, accession: e.accn, form: e.form, filed_at: e.filed, derived: e.derived };
  if (e.from !== e.filed) entry.effective_from = e.from;
  if (e.scale) entry.scale_corrected = e.scale;
  if (e.scaleUnclear !== undefined) entry.scale_unclear = e.scaleUnclear;
  if (e.components) entry.components = e.components;
  if (e.asOf !== undefined) entry.as_of = e.asOf;
  return entry;
}

/**
 * The values filed for a period that its timeline never served, oldest filing first (each filing's value of the
 * series: its highest-priority concept, after the scale check): another concept than the fiscal year's, a 10-Q's
 * twelve-month figure for a fiscal year, one superseded by another filing of the same day. A filed value is served
 * when the timeline holds its entry: of the same filing and concept, and computed only if the value itself is (a sum
 * of a filing's lines; a quarter differenced from years to date in the same concept serves no filed value). Empty for
 * most periods: each filing in the year's concept is an entry of the timeline.
 */
export function unservedEntries(timeline: readonly Entry[] | undefined, filed: readonly FiledValue[] | undefined): StatementHistoryEntry[] {
  if (!filed?.length) return [];
  const out: StatementHistoryEntry[] = [];
  let j = 0; // both lists run in filing order, so the usual match is the timeline's next entry
  for (const f of filed) {
    const next = timeline?.[j];
    if (next && serves(next, f)) {
      j++;
      continue;
    }
    if (timeline?.some((e) => serves(e, f))) continue;
    out.push(toHistoryEntry(entryOf(f, f.filed))); // at its filing date: no effective_from
  }
  return out;
}

/** Whether a timeline entry is a filed value served: a computed value's entry is computed too, and of its very value. */
function serves(e: Entry, f: FiledValue): boolean {
  if (e.accn !== f.accn || e.concept !== f.concept) return false;
  return f.derived ? e.derived && e.value === f.value : !e.derived;
}

/** The exceptions of values whose scale a neighbour or another filing contradicts, without showing which side is wrong. */
export function scaleExceptions<N extends string>(timelines: Partial<Record<N, Entry[]>>, names: readonly N[]): { rule: "scale"; metric: N; message: string }[] {
  const out: { rule: "scale"; metric: N; message: string }[] = [];
  for (const name of names) {
    const last = timelines[name]?.at(-1);
    if (last?.scaleUnclear === undefined) continue;
    out.push({ rule: "scale", metric: name, message: scaleMessage(name, { value: last.value, accession: last.accn, scale_unclear: last.scaleUnclear }) });
  }
  return out;
}
