// An inline XBRL document (the XHTML primary document of a 10-K or 10-Q since 2019) → its numeric facts, contexts and
// units (issue 43). Only the XBRL in it is parsed: ix:resources (contexts, units) and every ix:nonFraction — in the
// body or in ix:hidden, nested ones too — cut out of the text and parsed together; the XHTML around them, text blocks
// (ix:nonNumeric, their continuations and exclusions) and footnotes are never parsed. Pure.
import type { ParseSubject } from "../errors.ts";
import { readNumber } from "./ixt-formats.ts";
import {
  attribute,
  checkReferences,
  children,
  Namespaces,
  NS,
  ownText,
  readDecimals,
  readResources,
  rootStartTag,
  schemaRef,
  tagEnd,
  XBRL_PARSER,
  XbrlDocumentError,
  type Node,
  type XbrlDocument,
  type XbrlFact,
} from "./xbrl.ts";

/** Reads an inline XBRL document. */
export function parseInlineXbrl(text: string, subject: ParseSubject): XbrlDocument {
  const root = rootStartTag(text);
  if (root === null) throw new XbrlDocumentError(subject, `not an inline XBRL document (${text.length} bytes, starts ${JSON.stringify(text.slice(0, 40))})`);
  const ns = new Namespaces(root);
  const ix = ns.prefixOf(NS.inline);
  if (ix === null || ix === "") throw new XbrlDocumentError(subject, "not an inline XBRL document: its root declares no inline XBRL namespace prefix");
  const rootName = /^<([\w.:-]+)/.exec(root)?.[1] ?? "";
  if (!new RegExp(`</${rootName.replace(/[.]/g, "\\.")}\\s*>\\s*$`).test(text)) throw new XbrlDocumentError(subject, `truncated: the document does not end with </${rootName}> (${text.length} bytes)`);

  const resources = cutElements(text, `${ix}:resources`, subject);
  if (resources.length !== 1) throw new XbrlDocumentError(subject, `${resources.length} <${ix}:resources> elements (an inline XBRL document has one)`);
  const resourcesNode = children(parse(resources[0]!, `${ix}:resources`, subject), [`${ix}:resources`])[0] ?? {};
  const { contexts, units } = readResources(resourcesNode, ns, subject);

  const tag = `${ix}:nonFraction`;
  const facts: XbrlFact[] = [];
  const unreadable: XbrlDocument["unreadable"] = [];
  const nil = ns.tags(NS.xsi, "nil");
  const read = (fact: Node): string => {
    const inner = children(fact, [tag]);
    // A nested ix:nonFraction shows the same number as its parent: the parent's value is the child's text.
    const shown = inner.length ? inner.map(read).join("") : ownText(fact);
    const concept = attribute(fact, "name");
    const context = attribute(fact, "contextRef");
    const unit = attribute(fact, "unitRef");
    if (concept === null || context === null || unit === null) throw new XbrlDocumentError(subject, `an <${tag}> without name, contextRef or unitRef`);
    const qname = ns.qname(concept);
    if (nil.some((n) => attribute(fact, n) === "true")) facts.push({ concept: qname, context, unit, value: null, decimals: null });
    else {
      const reading = readNumber(shown, attribute(fact, "format"), Number(attribute(fact, "scale") ?? "0"), attribute(fact, "sign") === "-");
      if ("reason" in reading) unreadable.push({ concept: qname, context, reason: reading.reason });
      else facts.push({ concept: qname, context, unit, value: reading.value, decimals: readDecimals(attribute(fact, "decimals")) });
    }
    return shown;
  };
  const pieces = cutElements(text, tag, subject);
  if (pieces.length) for (const fact of children(parse(pieces.join(""), tag, subject), [tag])) read(fact);
  const doc: XbrlDocument = { kind: "inline", contexts, units, facts, unreadable, schema: schemaRef(text) };
  checkReferences(doc, subject);
  return doc;
}

/** Parses cut-out elements inside a wrapper element (the parser wants one root). */
function parse(xml: string, what: string, subject: ParseSubject): Node {
  try {
    return (children(XBRL_PARSER.parse(`<r>${xml}</r>`) as Node, ["r"])[0] ?? {}) as Node;
  } catch (error) {
    throw new XbrlDocumentError(subject, `<${what}> is not well-formed XML: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Every outermost `<tag …>…</tag>` (or `<tag …/>`) of the text, nested ones inside their parent: found by the text
 * alone, in one pass. An element never closed makes the document unreadable.
 */
export function cutElements(text: string, tag: string, subject: ParseSubject): string[] {
  const open = `<${tag}`;
  const close = `</${tag}>`;
  const out: string[] = [];
  let at = nextOpen(text, open, 0);
  while (at >= 0) {
    let depth = 0;
    let i = at;
    do {
      const nextClose = text.indexOf(close, i);
      const nested = nextOpen(text, open, i);
      if (nested >= 0 && (nextClose < 0 || nested < nextClose)) {
        const end = tagEnd(text, nested);
        if (end < 0) throw new XbrlDocumentError(subject, `an <${tag}> start tag never ends (at character ${nested})`);
        if (text.charCodeAt(end - 1) !== 47 /* / */) depth++;
        i = end + 1;
      } else {
        if (nextClose < 0) throw new XbrlDocumentError(subject, `an <${tag}> is never closed (opened at character ${at})`);
        depth--;
        i = nextClose + close.length;
      }
    } while (depth > 0);
    out.push(text.slice(at, i));
    at = nextOpen(text, open, i);
  }
  return out;
}

/** The next `<tag` that opens that very element (not `<tagOther`), from `from`. */
function nextOpen(text: string, open: string, from: number): number {
  for (let at = text.indexOf(open, from); at >= 0; at = text.indexOf(open, at + open.length)) {
    const c = text.charCodeAt(at + open.length);
    if (c === 62 /* > */ || c === 47 /* / */ || c <= 32) return at;
  }
  return -1;
}
