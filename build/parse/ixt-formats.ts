// Inline XBRL's numeric transformations (the `format` of ix:nonFraction: XBRL International's registry, versions 1–5,
// and SEC's ixt-sec) and `scale`: the displayed text → the fact's value, exactly (issue 43). Pure.
import { decodeText as decode } from "./xbrl.ts";

/** What a displayed number reads as: the value, or why it cannot be read. */
export type Reading = { value: number } | { reason: string };

/** Formats whose decimal separator is a comma (`1.234,5`, `1 234,5`); every other numeric format uses a point. */
const COMMA_DECIMAL = new Set(["numcommadecimal", "numdotcomma", "numspacecomma", "numcomma"]);
/** Formats that mean zero whatever the text shows (`—`, `-`, an empty cell). */
const ZERO = new Set(["zerodash", "fixedzero", "nocontent", "zero", "numzero"]);
/** Formats that spell the amount in a unit and a sub-unit (`5 dollars 25 cents`): integer part, then fraction. */
const UNIT_DECIMAL = new Set(["numunitdecimal", "numunitdecimalin"]);
/** The numeric formats we read by their decimal separator (the others are named when met, never guessed). */
const POINT_DECIMAL = new Set(["numdotdecimal", "numcommadot", "numspacedot", "numdotdecimalin", "numdecimal", ""]);
/** Words SEC's `numwordsen` spells small counts with; amounts never use it. */
const WORDS: Readonly<Record<string, number>> = { no: 0, none: 0, zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

/**
 * The value of a displayed number: `format` (a QName, or null) read with its registry's rule, shifted by `scale`
 * (powers of ten: 6 = millions) and negated for `sign="-"`. Done on the digits, never by multiplying floats:
 * "383,285" at scale 6 is 383285000000 exactly.
 */
export function readNumber(text: string, format: string | null, scale: number, negative: boolean): Reading {
  const name = formatName(format);
  let integer: string;
  let fraction: string;
  if (ZERO.has(name)) [integer, fraction] = ["0", ""];
  else if (name === "numwordsen") {
    const word = WORDS[decode(text).trim().toLowerCase()];
    if (word === undefined) return { reason: `the words ${JSON.stringify(text.slice(0, 30))} are not a number we read` };
    [integer, fraction] = [String(word), ""];
  } else if (UNIT_DECIMAL.has(name)) {
    const groups = decode(text).match(/\d+/g) ?? [];
    if (groups.length === 0) return { reason: `no digits in ${JSON.stringify(text.slice(0, 30))}` };
    [integer, fraction] = [groups[0]!, groups[1] ?? ""];
  } else if (COMMA_DECIMAL.has(name) || POINT_DECIMAL.has(name)) {
    const separator = COMMA_DECIMAL.has(name) ? "," : ".";
    const shown = decode(text).replace(/[^\d.,]/g, "");
    const at = shown.lastIndexOf(separator);
    // A comma format's "1.234" has no fraction; a point format's "1,234" neither: only the separator splits.
    integer = (at < 0 ? shown : shown.slice(0, at)).replace(/[.,]/g, "");
    fraction = at < 0 ? "" : shown.slice(at + 1);
    if (!/^\d*$/.test(fraction) || (integer === "" && fraction === "")) return { reason: `${JSON.stringify(text.slice(0, 30))} is not a number in ${format ?? "no format"}` };
  } else return { reason: `the format ${format} is not one we read` };
  if (!Number.isInteger(scale) || Math.abs(scale) > 30) return { reason: `scale ${scale} is not a whole power of ten we read` };
  const value = shifted(integer || "0", fraction, scale);
  return { value: negative && value !== 0 ? -value : value };
}

/** A format's local name without its registry, hyphens and case: `ixt:num-dot-decimal` → `numdotdecimal`. */
function formatName(format: string | null): string {
  if (format === null) return "";
  const local = format.slice(format.indexOf(":") + 1);
  return local.replace(/-/g, "").toLowerCase();
}

/** integer.fraction × 10^scale, computed on the digit string. */
function shifted(integer: string, fraction: string, scale: number): number {
  let digits = integer + fraction;
  let point = integer.length + scale;
  if (point > digits.length) digits = digits.padEnd(point, "0");
  if (point < 0) {
    digits = "0".repeat(-point) + digits;
    point = 0;
  }
  return Number(`${digits.slice(0, point) || "0"}.${digits.slice(point) || "0"}`);
}
