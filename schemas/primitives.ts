// Shared scalar vocabulary (tickers, CIKs, accession numbers, dates) used by every other schema.
// Validation only: no I/O, no clock.
import { z } from "zod";

/** A real calendar date, `YYYY-MM-DD` (2023-02-30 is refused, 2024-02-29 accepted). */
// zod's ISO date pattern checks month lengths and leap years itself: one regex, no refinement (validated per row).
export const IsoDate = z.iso.date("expected a real calendar date as YYYY-MM-DD").meta({ format: "date", example: "2024-01-31" });

/** An ISO 8601 timestamp as EDGAR or our builder writes it (`2026-02-26T18:34:19.000Z`). */
export const IsoDateTime = z.iso.datetime({ offset: true }).meta({ example: "2026-02-26T18:34:19.000Z" });

/** EDGAR accession number in its dashed form, `0000320193-24-000123`. */
export const Accession = z
  .string()
  .regex(/^\d{10}-\d{2}-\d{6}$/, "expected an accession number like 0000320193-24-000123")
  .meta({ example: "0000320193-24-000123" });

/** A Central Index Key as a plain number (leading zeros dropped), e.g. 320193. */
export const Cik = z.number().int().positive().max(9_999_999_999).meta({ example: 320193 });

/**
 * A ticker in EDGAR's canonical form: upper case, class suffix after a hyphen (`BRK-B`).
 * Only letters, digits and single inner hyphens, so a ticker can never name a path.
 */
export const Ticker = z
  .string()
  .regex(/^[A-Z0-9]{1,10}(-[A-Z0-9]{1,6}){0,2}$/, "expected an EDGAR ticker like AAPL or BRK-B")
  .meta({ example: "AAPL" });

/**
 * A ticker as a user types it (`brk.b`, `BRK/B`, `brk-b`), normalised to EDGAR's form (`BRK-B`).
 * Anything else — slashes at the ends, dots in a row, spaces, control characters — is refused.
 */
export const TickerInput = z
  .string()
  .max(24, "a ticker is at most 24 characters")
  .regex(/^[A-Za-z0-9]{1,10}([.\-/][A-Za-z0-9]{1,6}){0,2}$/, "expected a ticker symbol like AAPL or BRK.B")
  .transform(normalizeTicker)
  .meta({ example: "BRK.B", description: "Ticker symbol; case-insensitive, `BRK.B`, `BRK/B` and `BRK-B` are the same." });

/** EDGAR's ticker form: upper case, `.` and `/` as class separators become `-`. */
export function normalizeTicker(raw: string): string {
  return raw.trim().toUpperCase().replace(/[./]/g, "-");
}

/** Strips leading zeros from a CIK given as a number or a (zero-padded) string; null when it is not one. */
export function toCik(raw: unknown): number | null {
  const text = typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw.trim() : "";
  if (!/^\d{1,10}$/.test(text)) return null;
  const cik = Number(text);
  return cik > 0 ? cik : null;
}

/** The 10-digit zero-padded form EDGAR uses in file names (`CIK0000320193.json`). */
export function padCik(cik: number): string {
  return String(cik).padStart(10, "0");
}

/** True for a timestamp IsoDateTime accepts: its own pattern (all its check is), without a zod parse per cell. */
export function isIsoDateTime(text: string): boolean {
  return IsoDateTime._zod.def.pattern!.test(text);
}

/** True for a `YYYY-MM-DD` string naming a real calendar date: IsoDate's own rule, without a zod parse per cell. */
export function isIsoDate(text: string): boolean {
  return z.core.regexes.date.test(text);
}
