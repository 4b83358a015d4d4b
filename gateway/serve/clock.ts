// The time every answer's `meta.retrieved_at` carries. Under load many answers share a millisecond and share its
// text (and, in envelope.ts, their bytes); Date's own formatting (about 1 µs) runs only once per second.

/** "000Z" … "999Z": the part of the text that changes within a second. */
const MILLIS = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, "0")}Z`);

/** The last millisecond a Date can hold (ECMA-262 21.4.1.1). */
const MAX_TIME = 8.64e15;

let lastMs = Number.NaN;
let lastIso = "";
let secondStart = Number.NaN;
let secondPrefix = "";

/** A time (ms since the epoch) as ISO 8601 text with milliseconds, as `Date.prototype.toISOString` writes it. */
export function isoAt(ms: number): string {
  if (ms === lastMs) return lastIso;
  const whole = Math.trunc(ms); // as Date does (TimeClip)
  if (!(Math.abs(whole) <= MAX_TIME)) throw new RangeError("Invalid time value"); // as Date's own
  const second = whole - (((whole % 1000) + 1000) % 1000); // before 1970 too
  if (second !== secondStart) {
    secondPrefix = new Date(second).toISOString().slice(0, -4);
    secondStart = second;
  }
  lastMs = ms;
  lastIso = secondPrefix + MILLIS[whole - second]!;
  return lastIso;
}

/** Now as ISO 8601 text with milliseconds. */
export function isoNow(): string {
  return isoAt(Date.now());
}
