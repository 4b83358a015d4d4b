// Reads chosen members of a JSON object straight from its text, in one pass, without building the values it
// skips: a company facts file holds ~500 concepts of which earnings keep ~30, and JSON.parse of the rest was
// most of a bulk build. Skipped values are scanned for strings and nesting (a truncated file, nesting deeper than
// the caller allows), not for their grammar; what a visitor keeps goes through `parseStrict`: JSON.parse, which
// checks it, and a count of members, which finds the repeated key JSON.parse would let replace the first.
// Every object the scanner walks refuses a repeated key too.

/**
 * Called for each member of an object with its key and the index where its value starts. Return the index just
 * past the value when the visitor read it (`valueEnd`, `scanObject`), or nothing to have it skipped.
 */
export type MemberVisitor = (key: string, start: number) => number | void;

/** Text that is not the JSON the caller expected; `offset` is where the scan stopped. */
export class JsonScanError extends SyntaxError {
  override readonly name = "JsonScanError";
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(`${message} at offset ${offset}`);
    this.offset = offset;
  }
}

/** Well-formed JSON that is not what the caller reads: a repeated key, or nesting deeper than it allows. */
export class JsonDefect extends Error {
  override readonly name = "JsonDefect";
}

/**
 * Where the scanner is: `room` is how many levels of objects and arrays a member's value may open (the value
 * itself included), `path` names the object in errors ("facts.us-gaap").
 */
export interface ScanPlace {
  room: number;
  path: string;
}

/** Visits the members of the object that is the whole text (whitespace aside), in order; `maxDepth` counts it. */
export function scanDocument(text: string, visit: MemberVisitor, maxDepth = Infinity): void {
  const end = skipSpace(text, scanObject(text, skipSpace(text, 0), visit, { room: maxDepth - 1, path: "(root)" }));
  if (end !== text.length) throw new JsonScanError("unexpected text after the object", end);
}

/** Visits the members of the object whose `{` is at `at`; returns the index just past its `}`. */
export function scanObject(text: string, at: number, visit: MemberVisitor, place: ScanPlace = { room: Infinity, path: "(root)" }): number {
  if (text.charCodeAt(at) !== OPEN_BRACE) throw new JsonScanError("expected an object", at);
  let i = skipSpace(text, at + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return i + 1;
  const seen = new Set<string>();
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) throw new JsonScanError("expected a member name", i);
    const keyEnd = stringEnd(text, i);
    const raw = text.slice(i + 1, keyEnd - 1);
    const key = raw.includes("\\") ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw;
    if (seen.size === seen.add(key).size) throw new JsonDefect(`duplicate key ${JSON.stringify(key)} in ${place.path}`);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) throw new JsonScanError("expected ':'", i);
    const start = skipSpace(text, i + 1);
    i = skipSpace(text, visit(key, start) ?? valueEnd(text, start, place));
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACE) return i + 1;
    if (c !== COMMA) throw new JsonScanError("expected ',' or '}'", i);
    i = skipSpace(text, i + 1);
  }
}

/**
 * The index just past the value starting at `i`: a string, an object or array with all it nests, or a literal.
 * JsonDefect when it nests more than `place.room` levels.
 */
export function valueEnd(text: string, i: number, place: ScanPlace = { room: Infinity, path: "(root)" }): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return stringEnd(text, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) return nestedEnd(text, i, place);
  let j = i;
  for (;;) {
    const c = text.charCodeAt(j);
    if (c !== c || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break;
    j++;
  }
  if (j === i) throw new JsonScanError("expected a value", i);
  return j;
}

/** Parses the value starting at `start` (this is where its grammar is checked); returns it and its end. */
export function parseValue(text: string, start: number): { value: unknown; end: number } {
  const end = valueEnd(text, start);
  return { value: JSON.parse(text.slice(start, end)), end };
}

/**
 * `parseValue` refusing what JSON.parse lets through: nesting deeper than `place.room` levels, and a repeated key
 * (JSON.parse keeps the last). The colons of the text are one per member plus those inside its strings; a duplicate
 * takes at least its own member's colon out of the parsed value, so the value then accounts for fewer colons than the
 * text holds, both counted cheaply. Only when they differ (or a colon may hide in a `\u003a` escape, which could
 * make up for a lost one) is the text walked again, to name the duplicate or find there is none. Counting the colons
 * inside strings matters: acceptance times and descriptions have them, and walking every such file was a third of
 * reading submissions.
 */
export function parseStrict(text: string, start: number, place: ScanPlace): { value: unknown; end: number } {
  const end = valueEnd(text, start, place);
  const value: unknown = JSON.parse(start === 0 && end === text.length ? text : text.slice(start, end));
  if (colonsOf(value) !== countColons(text, start, end) || escapedColon(text, start, end)) findDuplicate(text, start, place.path);
  return { value, end };
}

/** The whole text as one JSON value, strictly (`parseStrict`): at most `maxDepth` levels of objects and arrays. */
export function parseDocumentStrict(text: string, maxDepth: number): unknown {
  const start = skipSpace(text, 0);
  const { value, end } = parseStrict(text, start, { room: maxDepth, path: "(root)" });
  if (skipSpace(text, end) !== text.length) JSON.parse(text); // throws: text after the value
  return value;
}

/** Whether the value starting at `start` is an object. */
export function isObjectAt(text: string, start: number): boolean {
  return text.charCodeAt(start) === OPEN_BRACE;
}

/** Colons between `start` and `end`, by the engine's own search. */
function countColons(text: string, start: number, end: number): number {
  let count = 0;
  for (let i = text.indexOf(":", start); i !== -1 && i < end; i = text.indexOf(":", i + 1)) count++;
  return count;
}

/** The colons a parsed value's text had without duplicates: one per key, and those inside its keys and strings. */
function colonsOf(value: unknown): number {
  if (typeof value === "string") return colonsIn(value);
  if (typeof value !== "object" || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === "string" || (typeof item === "object" && item !== null)) count += colonsOf(item);
    return count;
  }
  for (const key in value) {
    count += 1 + colonsIn(key);
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === "string" || (typeof item === "object" && item !== null)) count += colonsOf(item);
  }
  return count;
}

function colonsIn(s: string): number {
  let count = 0;
  for (let i = s.indexOf(":"); i !== -1; i = s.indexOf(":", i + 1)) count++;
  return count;
}

/**
 * Where the last text read writes a colon as an escape (`\u003a`): found in one search of the whole text, since a
 * search per value ran on to the end of the text whenever it found none (nearly always), once per kept value.
 */
let escapes: { text: string; at: number[] } = { text: "", at: [] };

/** Whether a colon may be written as an escape between `start` and `end`. */
function escapedColon(text: string, start: number, end: number): boolean {
  if (escapes.text !== text) {
    const at: number[] = [];
    for (let i = text.indexOf("\\u003"); i !== -1; i = text.indexOf("\\u003", i + 1)) {
      const c = text.charCodeAt(i + 5);
      if (c === 0x61 || c === 0x41) at.push(i);
    }
    escapes = { text, at };
  }
  return escapes.at.some((i) => i >= start && i < end);
}

/** Walks the value at `at` with the scanner, which throws JsonDefect naming the repeated key and where it is. */
function findDuplicate(text: string, at: number, path: string): number {
  const c = text.charCodeAt(at);
  if (c === OPEN_BRACE) {
    return scanObject(text, at, (key, start) => findDuplicate(text, start, `${path}.${key}`), { room: Infinity, path });
  }
  if (c !== OPEN_BRACKET) return valueEnd(text, at);
  let i = skipSpace(text, at + 1);
  for (let n = 0; text.charCodeAt(i) !== CLOSE_BRACKET; n++) {
    i = skipSpace(text, findDuplicate(text, i, `${path}[${n}]`));
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return i + 1;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** The index just past the string whose opening quote is at `i` (an escaped quote is not its end). */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; ; j++) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
    else if (c !== c) throw new JsonScanError("unterminated string", i);
  }
}

/**
 * Text up to the next bracket: runs of other characters and whole strings (escapes included), a bounded number at a
 * time — each one repeated is a frame of the regex engine's backtracking stack, which millions would overflow.
 */
const NOT_A_BRACKET = /(?:[^"{}[\]]+|"[^"\\]*(?:\\[\s\S][^"\\]*)*"){0,4096}/y;

/** The deepest nesting a single regex skips (a company facts file has 7 levels); deeper values take the bracket loop. */
const REGEX_LEVELS = 8;
/**
 * Per level count, a sticky regex matching one object or array of at most that many levels, strings whole: the
 * pattern is unrolled (`other* (string-or-bracket other*)*`, each position read one way only), so a failing match
 * backtracks linearly, never exponentially. Built on first use.
 */
const NESTED: RegExp[] = [];

function nestedPattern(levels: number): RegExp {
  let regex = NESTED[levels];
  if (regex) return regex;
  const string = String.raw`"[^"\\]*(?:\\[\s\S][^"\\]*)*"`;
  const other = String.raw`[^"{}[\]]*`;
  let [inner, bracket] = [string, ""];
  for (let k = 0; k < levels; k++) {
    bracket = String.raw`[{[]${other}(?:(?:${inner})${other})*[}\]]`;
    inner = `${string}|${bracket}`;
  }
  return (NESTED[levels] = new RegExp(bracket, "y"));
}

/**
 * The index just past the object or array opening at `i`. One regex skips the whole value in native code when it
 * nests no deeper than allowed (~1.5× faster than returning to JavaScript at every bracket, which is most of a company
 * facts read); otherwise, when it is unterminated, or too long for the regex engine, the bracket loop finds where, and says so.
 */
function nestedEnd(text: string, i: number, place: ScanPlace): number {
  const levels = Math.min(place.room, REGEX_LEVELS);
  if (levels >= 1) {
    const regex = nestedPattern(levels);
    regex.lastIndex = i;
    try {
      if (regex.test(text)) return regex.lastIndex;
    } catch (error) {
      // A value of millions of members outgrows the regex engine's backtracking stack (a RangeError): the loop has none.
      if (!(error instanceof RangeError)) throw error;
    }
  }
  return bracketLoop(text, i, place);
}

/** nestedEnd by counting brackets, a sticky regex consuming the text and strings between them. */
function bracketLoop(text: string, i: number, place: ScanPlace): number {
  let depth = 0;
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > place.room) throw new JsonDefect(`nesting deeper than EDGAR's files have, in ${place.path} (offset ${j})`);
      j++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      j++;
      if (--depth === 0) return j;
    } else {
      NOT_A_BRACKET.lastIndex = j;
      NOT_A_BRACKET.test(text);
      if (NOT_A_BRACKET.lastIndex === j) throw new JsonScanError("unterminated string", j); // only a quote stops it
      j = NOT_A_BRACKET.lastIndex;
    }
  }
  throw new JsonScanError("unterminated object or array", i);
}
