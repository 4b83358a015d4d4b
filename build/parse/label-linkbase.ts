// A filing's label linkbase (`<base>_lab.xml`) → the names its members are shown under ("Greater China",
// "Wearables, Home and Accessories"): what /segments calls a member as a reader would say it (issue 43.1). Pure.
import type { ParseSubject } from "../errors.ts";
import { attribute, children, decodeText, Namespaces, rootStartTag, XBRL_PARSER, XbrlDocumentError, type Node } from "./xbrl.ts";

const LINK = "http://www.xbrl.org/2003/linkbase";
const XLINK = "http://www.w3.org/1999/xlink";
const ROLE = "http://www.xbrl.org/2003/role/";
/** The label roles read, preferred first: the terse label is what a table row shows; the standard one says "[Member]". */
const ROLES = [`${ROLE}terseLabel`, `${ROLE}label`];

/** Each member's label by QName (`aapl:GreaterChinaSegmentMember` → "Greater China"): members and countries only. */
export function parseMemberLabels(text: string, subject: ParseSubject): Record<string, string> {
  const root = rootStartTag(text);
  if (root === null || !/linkbase[\s>]/.test(root)) throw new XbrlDocumentError(subject, `not a label linkbase (${text.length} bytes, starts ${JSON.stringify(text.slice(0, 40))})`);
  const ns = new Namespaces(root);
  let parsed: Node;
  try {
    parsed = XBRL_PARSER.parse(text) as Node;
  } catch (error) {
    throw new XbrlDocumentError(subject, `not well-formed XML: ${(error as Error).message}`, { cause: error });
  }
  const tag = (local: string) => (ns.tags(LINK, local).length ? ns.tags(LINK, local) : [`link:${local}`]);
  const x = `${ns.prefixOf(XLINK) ?? "xlink"}:`;
  const out: Record<string, { label: string; rank: number }> = {};
  for (const linkbase of children(parsed, tag("linkbase"))) {
    for (const link of children(linkbase, tag("labelLink"))) {
      // locator label → QName (from its href's fragment, `aapl_GreaterChinaSegmentMember`); label resource → texts.
      const concepts = new Map<string, string>();
      for (const loc of children(link, tag("loc"))) {
        const fragment = (attribute(loc, `${x}href`) ?? "").split("#")[1] ?? "";
        const cut = fragment.indexOf("_");
        const name = cut > 0 ? ns.qname(`${fragment.slice(0, cut)}:${fragment.slice(cut + 1)}`) : null;
        const label = attribute(loc, `${x}label`);
        if (name && label && isMember(name)) concepts.set(label, name);
      }
      if (concepts.size === 0) continue;
      const texts = new Map<string, { label: string; rank: number }[]>();
      for (const resource of children(link, tag("label"))) {
        const rank = ROLES.indexOf(attribute(resource, `${x}role`) ?? `${ROLE}label`);
        const key = attribute(resource, `${x}label`);
        const value = labelText(resource);
        if (rank < 0 || key === null || value === "") continue;
        texts.set(key, [...(texts.get(key) ?? []), { label: value, rank }]);
      }
      for (const arc of children(link, tag("labelArc"))) {
        const name = concepts.get(attribute(arc, `${x}from`) ?? "");
        if (name === undefined) continue;
        for (const candidate of texts.get(attribute(arc, `${x}to`) ?? "") ?? []) {
          const known = out[name];
          if (!known || candidate.rank < known.rank) out[name] = candidate;
        }
      }
    }
  }
  return Object.fromEntries(Object.entries(out).map(([name, { label }]) => [name, label.replace(/\s*\[(Member|Domain)\]\s*$/, "")]));
}

/** Whether a QName is a dimension member (a `…Member`, or a country: `country:US`). */
function isMember(qname: string): boolean {
  return qname.endsWith("Member") || qname.startsWith("country:");
}

/** A label's text, its character references decoded and its whitespace made single spaces. */
function labelText(resource: Node): string {
  const raw = resource["#text"];
  return decodeText(typeof raw === "string" ? raw : "").replace(/\s+/g, " ").trim();
}
