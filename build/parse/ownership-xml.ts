// Reading ownership XML: the one configured parser, the document split (tables vs footnotes and remarks), the
// ordered-output converter, and the leaf readers (text, numbers, dates, flags). Pure; used by form4.ts only.
import { XMLParser } from "fast-xml-parser";
import { isIsoDate } from "../../schemas/primitives.ts";

// Every element that can repeat is ALWAYS an array: a single-row table parsed as an object is how
// "first row only" bugs begin (STYLE "Decisions already taken"; pitfall 34).
const REPEATING = new Set([
  "reportingOwner",
  "nonDerivativeTransaction",
  "nonDerivativeHolding",
  "derivativeTransaction",
  "derivativeHolding",
  "footnote",
  "footnoteId",
  "ownerSignature",
]);

/** EDGAR's deepest ownership element: ownershipDocument › table › row › amounts › field › value. */
const MAX_DEPTH = 6;

// Configured once. Values stay strings (we read numbers and dates ourselves). Footnotes and remarks may hold
// markup that must stay raw text (pitfall 31): they are cut out of the text before parsing and read by
// `splitDocument` (cheaper than the parser's stop nodes, which match a path for every element). The ordered
// output is turned into objects by `toTree`, leaner than the library's own conversion.
const PARSER = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  preserveOrder: true,
  jPath: false, // the default builds a path string per element: ~12% of parse time
  processEntities: false, // decoded by text() only where a "&" occurs, which is rare
  maxNestedTags: MAX_DEPTH - 1, // the parser counts the ancestors of the element it opens
});
const FOOTNOTE = /<footnote\b([^>]*?)(?:\/>|>([\s\S]*?)<\/footnote\s*>)/g;
const ID_ATTRIBUTE = /\bid\s*=\s*(?:"([^"]*)"|'([^']*)')/;
const SECTION_OPEN = { footnotes: /<footnotes[\s/>]/, remarks: /<remarks[\s/>]/ } as const;

const ADDRESS_OPEN = "<reportingOwnerAddress>";
const ADDRESS_CLOSE = "</reportingOwnerAddress>";
const BETWEEN_TAGS = />\s+</g;
const CDATA_OPEN = "<![CDATA[";
const CDATA_CLOSE = "]]>";
const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

export function footnoteTexts(section: string): Map<string, string> {
  const notes = new Map<string, string>();
  for (const match of section.matchAll(FOOTNOTE)) {
    const attr = ID_ATTRIBUTE.exec(match[1] ?? "");
    const id = attr ? text(attr[1] ?? attr[2] ?? "") : null;
    if (id !== null) notes.set(id, markupText(match[2] ?? "") ?? "");
  }
  return notes;
}

/** Raw text of a footnote or the remarks: child markup dropped, CDATA kept literally, entities decoded. */
export function markupText(raw: unknown): string | null {
  const source = typeof raw === "string" ? raw : typeof raw === "object" && raw !== null ? (raw as XmlNode)["#text"] : null;
  if (typeof source !== "string") return null;
  let out = "";
  let from = 0;
  for (let at = source.indexOf(CDATA_OPEN); at >= 0; at = source.indexOf(CDATA_OPEN, from)) {
    const end = source.indexOf(CDATA_CLOSE, at);
    if (end < 0) break;
    out += plainText(source.slice(from, at)) + source.slice(at + CDATA_OPEN.length, end);
    from = end + CDATA_CLOSE.length;
  }
  // Filers wrap long footnotes over several indented lines: one line of text is what a reader wants.
  out = (out + plainText(source.slice(from))).replace(/\s+/g, " ").trim();
  return out === "" ? null : out;
}

function plainText(markup: string): string {
  const text = markup.includes("<") ? markup.replace(/<br\s*\/?>|<\/p>/gi, " ").replace(/<[^>]*>/g, "") : markup;
  return text.includes("&") ? decodeEntities(text) : text;
}

/** XML's five entities, &nbsp; and character references; a stray "&" stays as filed (pitfall 42). */
function decodeEntities(raw: string): string {
  return raw.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, decodeEntity);
}

function decodeEntity(whole: string, name: string): string {
  if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? whole;
  const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
}

/** A parsed element: children by tag name, text under "#text", attributes under "@_name". */
export type XmlNode = { readonly [key: string]: unknown };

/**
 * Well-formed ownership XML that EDGAR's schema does not allow, which a lenient reading would turn into other data:
 * an element that occurs once repeated (the first would be read, the second dropped), an impossible date, nesting
 * deeper than the schema's.
 */
export class XmlDefect extends Error {
  override readonly name = "XmlDefect";
}

/** Parses the tables part of a document into objects (fast-xml-parser's errors propagate; XmlDefect as above). */
export function parseTree(tables: string): XmlNode {
  let ordered: OrderedNode[];
  try {
    ordered = PARSER.parse(tables) as OrderedNode[];
  } catch (error) {
    if ((error as Error).message.startsWith("Maximum nested tags")) throw new XmlDefect(`elements nested deeper than EDGAR's ${MAX_DEPTH} levels`);
    throw error;
  }
  return toTree(ordered, "(document)");
}

/** fast-xml-parser's ordered output: one tag (or "#text") per entry, attributes under ":@". */
type OrderedNode = { [tag: string]: unknown };

/**
 * Ordered nodes → objects: an element with only text becomes its text, an empty one "", others an object of their
 * children; every REPEATING element is an array even with one item (a single-row table is still a table).
 */
function toTree(nodes: OrderedNode[], parent: string): XmlNode {
  const out: Record<string, unknown> = {};
  for (const entry of nodes) {
    for (const tag in entry) {
      if (tag === ":@") continue;
      const children = entry[tag];
      if (tag === "#text") {
        out["#text"] = children;
        continue;
      }
      const attrs = entry[":@"] as Record<string, unknown> | undefined;
      const list = children as OrderedNode[];
      let value: unknown;
      if (!attrs && list.length === 0) value = "";
      else if (!attrs && list.length === 1 && "#text" in list[0]!) value = list[0]!["#text"];
      else value = attrs ? Object.assign(toTree(list, tag), attrs) : toTree(list, tag);
      if (REPEATING.has(tag)) ((out[tag] ??= []) as unknown[]).push(value);
      else if (tag in out) throw new XmlDefect(`<${tag}> repeated in <${parent}>`);
      else out[tag] = value;
    }
  }
  return out;
}

export function node(x: unknown): XmlNode {
  return typeof x === "object" && x !== null && !Array.isArray(x) ? (x as XmlNode) : {};
}

/** A repeating element's items; an empty element (`<row/>` parses as "") still counts as a row. */
export function rows(x: unknown): XmlNode[] {
  return Array.isArray(x) ? x.map(node) : [];
}

export function text(x: unknown): string | null {
  if (typeof x === "string") return x === "" ? null : x.includes("&") ? decodeEntities(x) : x;
  if (typeof x === "object" && x !== null && "#text" in x) return text((x as XmlNode)["#text"]);
  return null;
}

/** The <value> of an EDGAR leaf `{value, footnoteId[]}`; null when only a footnote is given. */
export function value(x: unknown): string | null {
  return typeof x === "object" && x !== null ? text((x as XmlNode).value) : text(x);
}

/** A number as filed; thousands separators tolerated; null when absent or not a number. */
export function num(raw: string | null): number | null {
  if (raw === null) return null;
  const n = Number(raw.includes(",") ? raw.replace(/,/g, "") : raw);
  return Number.isFinite(n) ? n : null;
}

/**
 * YYYY-MM-DD from a date as filed, dropping time-zone or time suffixes ("2026-05-21-05:00"); null when absent.
 * EDGAR's schema types these xs:date, so one that is not a real date (2026-02-30) is an XmlDefect naming `element`.
 */
export function isoDate(raw: string | null, element: string): string | null {
  if (raw === null) return null;
  const date = raw.length === 10 ? raw : raw.slice(0, 10);
  if (raw.length < 10 || !isIsoDate(date)) throw new XmlDefect(`impossible date ${JSON.stringify(raw.slice(0, 40))} in <${element}>`);
  return date;
}

export function flag(raw: string | null): boolean | null {
  switch (raw?.toLowerCase()) {
    case "1":
    case "true":
      return true;
    case "0":
    case "false":
      return false;
    default:
      return null;
  }
}

export function oneOf<T extends string>(raw: string | null, a: T, b: T): T | null {
  if (raw === null) return null;
  const upper = raw.length === 1 ? raw.toUpperCase() : "";
  return upper === a ? a : upper === b ? b : null;
}

/**
 * The document with what we never read (owner addresses) dropped and the indentation between tags removed up to
 * <footnotes> or <remarks>: the tables hold no mixed content, footnotes and remarks may (pitfall 31). ~20% faster.
 */
export function splitDocument(xml: string): { tables: string; footnotes: string; remarks: string } {
  let out = "";
  let from = 0;
  for (let at = xml.indexOf(ADDRESS_OPEN); at >= 0; at = xml.indexOf(ADDRESS_OPEN, from)) {
    const end = xml.indexOf(ADDRESS_CLOSE, at);
    if (end < 0) break;
    out += xml.slice(from, at);
    from = end + ADDRESS_CLOSE.length;
  }
  out += xml.slice(from);
  const notes = cutSection(out, "footnotes");
  const remarks = cutSection(notes.rest, "remarks");
  return { tables: remarks.rest.replace(BETWEEN_TAGS, "><"), footnotes: notes.inner, remarks: remarks.inner };
}

/** Cuts `<name …>inner</name>` (or `<name/>`) out of the text; the parser never sees its markup. */
function cutSection(xml: string, name: keyof typeof SECTION_OPEN): { rest: string; inner: string } {
  const open = xml.search(SECTION_OPEN[name]);
  if (open < 0) return { rest: xml, inner: "" };
  const tagEnd = xml.indexOf(">", open);
  if (tagEnd < 0) return { rest: xml, inner: "" };
  if (xml[tagEnd - 1] === "/") return { rest: xml.slice(0, open) + xml.slice(tagEnd + 1), inner: "" };
  const close = xml.indexOf(`</${name}>`, tagEnd);
  if (close < 0) return { rest: xml, inner: "" };
  return { rest: xml.slice(0, open) + xml.slice(close + name.length + 3), inner: xml.slice(tagEnd + 1, close) };
}

export function countTags(xml: string, open: string): number {
  let count = 0;
  for (let at = xml.indexOf(open); at >= 0; at = xml.indexOf(open, at + open.length)) {
    const next = xml.charCodeAt(at + open.length);
    if (next === 62 /* > */ || next === 47 /* / */ || next <= 32) count++;
  }
  return count;
}
