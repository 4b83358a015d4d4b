// A plain XBRL instance (EDGAR's extracted `*_htm.xml`, or a filer's EX-101.INS) → its numeric facts, contexts and
// units (issue 43). Pure: text in, records out; anything that is not a readable instance is an XbrlDocumentError.
import type { ParseSubject } from "../errors.ts";
import { attribute, checkReferences, children, Namespaces, NS, ownText, readDecimals, readResources, rootStartTag, schemaRef, XBRL_PARSER, XbrlDocumentError, type Node, type XbrlDocument, type XbrlFact } from "./xbrl.ts";

/** An xs:decimal as an instance writes it (no thousands separators, no exponent). */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** Reads a plain XBRL instance. */
export function parseXbrlInstance(text: string, subject: ParseSubject): XbrlDocument {
  const root = rootStartTag(text);
  if (root === null) throw new XbrlDocumentError(subject, `not an XBRL instance (${text.length} bytes, starts ${JSON.stringify(text.slice(0, 40))})`);
  const ns = new Namespaces(root);
  const rootName = /^<([\w.:-]+)/.exec(root)?.[1] ?? "";
  if (!ns.tags(NS.instance, "xbrl").includes(rootName)) throw new XbrlDocumentError(subject, `not an XBRL instance: its root element is <${rootName}>`);
  if (!new RegExp(`</${rootName.replace(/[.]/g, "\\.")}\\s*>\\s*$`).test(text)) throw new XbrlDocumentError(subject, `truncated: the instance does not end with </${rootName}> (${text.length} bytes)`);
  let parsed: Node;
  try {
    parsed = XBRL_PARSER.parse(text) as Node;
  } catch (error) {
    throw new XbrlDocumentError(subject, `not well-formed XML: ${(error as Error).message}`, { cause: error });
  }
  const xbrl = children(parsed, [rootName])[0];
  if (!xbrl) throw new XbrlDocumentError(subject, "the instance has no root element");
  const { contexts, units } = readResources(xbrl, ns, subject);
  const facts: XbrlFact[] = [];
  const unreadable: XbrlDocument["unreadable"] = [];
  const nil = ns.tags(NS.xsi, "nil").map((t) => `@_${t}`);
  for (const tag in xbrl) {
    if (tag.startsWith("@_") || tag === "#text") continue;
    const list = xbrl[tag];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (typeof item !== "object" || item === null) continue;
      const fact = item as Node;
      const context = attribute(fact, "contextRef");
      const unit = attribute(fact, "unitRef");
      if (context === null || unit === null) continue; // not a numeric fact (a context, a unit, a text fact, a link)
      const concept = ns.qname(tag);
      if (nil.some((n) => fact[n] === "true")) {
        facts.push({ concept, context, unit, value: null, decimals: null });
        continue;
      }
      const raw = ownText(fact).trim();
      if (!DECIMAL.test(raw)) {
        unreadable.push({ concept, context, reason: `not a decimal number: ${JSON.stringify(raw.slice(0, 30))}` });
        continue;
      }
      facts.push({ concept, context, unit, value: Number(raw), decimals: readDecimals(attribute(fact, "decimals")) });
    }
  }
  const doc: XbrlDocument = { kind: "instance", contexts, units, facts, unreadable, schema: schemaRef(text) };
  checkReferences(doc, subject);
  return doc;
}
