// The time every answer's `meta.retrieved_at` carries. Under load many answers share a millisecond: they share
// its text too (and, in envelope.ts, their bytes), so a Date is made once per millisecond, not per answer.

let lastMs = Number.NaN;
let lastIso = "";

/** A time (ms since the epoch) as ISO 8601 text with milliseconds. */
export function isoAt(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** Now as ISO 8601 text with milliseconds. */
export function isoNow(): string {
  return isoAt(Date.now());
}
