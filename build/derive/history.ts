// Timelines (vintage.ts) as the documents publish them: history entries, and the exception a value of unclear scale
// carries. Shared by earnings.ts and statements.ts.
import type { StatementHistoryEntry } from "../../schemas/financials.ts";
import type { Entry } from "./vintage.ts";

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

/** The exceptions of values whose scale a neighbour or another filing contradicts, without showing which side is wrong. */
export function scaleExceptions<N extends string>(timelines: Partial<Record<N, Entry[]>>, names: readonly N[]): { rule: "scale"; metric: N; message: string }[] {
  const out: { rule: "scale"; metric: N; message: string }[] = [];
  for (const name of names) {
    const last = timelines[name]?.at(-1);
    if (last?.scaleUnclear === undefined) continue;
    out.push({
      rule: "scale",
      metric: name,
      message: `${name} ${last.value} (${last.accn}) differs from a neighbouring period or another filing by a unit-scale step (×${last.scaleUnclear}); the filings do not show which is wrong, so it is not corrected`,
    });
  }
  return out;
}
