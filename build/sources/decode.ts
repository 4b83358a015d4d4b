// EDGAR's bytes as text. Its JSON and ownership XML strictly: UTF-8 (or the single-byte charset an XML declaration
// names); bytes that are not text fail their company, naming the file and the first bad byte, instead of becoming
// U+FFFD in a name or a number. Other files (a full submission's text, indexes) may carry legacy bytes in parts never
// read, and are decoded leniently.
import { isAscii, isUtf8 } from "node:buffer";
import { MalformedInputError } from "../errors.ts";

/** The files read strictly: EDGAR's JSON APIs (company facts, submissions, tickers) and ownership XML. */
const STRICT = /\.(?:json|xml)$/i;
/** `<?xml … encoding="…"?>` at the very start; XML without one is UTF-8 by definition. */
const XML_ENCODING = /^(?:\uFEFF)?<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;
/** Charsets a declaration may name in which every byte is a character (WHATWG reads latin1 as windows-1252). */
const SINGLE_BYTE = new Set(["iso-8859-1", "latin1", "l1", "windows-1252", "cp1252", "us-ascii", "ascii"]);

/** The text of an EDGAR file; MalformedInputError (naming `path`) when its bytes are not the text they claim to be. */
export function decodeText(bytes: Buffer, path: string): string {
  // EDGAR's JSON is almost always ASCII, where latin1 decoding is a plain copy and UTF-8 decoding is not.
  if (isAscii(bytes)) return bytes.toString("latin1");
  if (isUtf8(bytes)) return bytes.toString("utf8");
  // EDGAR's Atom feed declares ISO-8859-1: a company name in it is decoded as declared, not turned into U+FFFD.
  const declared = XML_ENCODING.exec(bytes.subarray(0, 200).toString("latin1"))?.[1]?.toLowerCase();
  if (declared && SINGLE_BYTE.has(declared)) return new TextDecoder(declared).decode(bytes);
  if (!STRICT.test(path)) return bytes.toString("utf8");
  const at = firstInvalid(bytes);
  throw new MalformedInputError({ path }, `not valid UTF-8: byte 0x${bytes[at]!.toString(16).padStart(2, "0")} at offset ${at}`);
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence (called only on bad input). */
function firstInvalid(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const length = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (length === 0) return i;
    if (length > 1 && !isUtf8(bytes.subarray(i, i + length))) return i;
    i += length;
  }
  return bytes.length - 1;
}
