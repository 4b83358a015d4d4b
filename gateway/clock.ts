// The time every answer's `meta.retrieved_at` carries. Under load many answers share a millisecond: they share
// its text too (and, in envelope.ts, their bytes), so a Date is made once per millisecond, not per answer.

let lastMs = Number.NaN;
let lastIso = "";

/** Now as ISO 8601 text with milliseconds. */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
