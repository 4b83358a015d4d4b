// What a plain XBRL instance and an inline XBRL document have in common once read (issue 43): contexts with their
// explicit members, units, numeric facts; the namespaces that name them; and the one configured XML parser. Pure.
import { XMLParser } from "fast-xml-parser";
import { isIsoDate } from "../../schemas/primitives.ts";
import { XbrlDocumentError, type ParseSubject } from "../errors.ts";

export { XbrlDocumentError };

/** A context: its period (start null for an instant) and the explicit members of its dimensions, by axis QName. */
export interface XbrlContext {
  start: string | null;
  end: string;
  dims: Readonly<Record<string, string>>;
  /** It also has a typed dimension (a member that is a value, not a QName): never a segment's context. */
  typed: boolean;
}

/** One numeric fact as filed: the value after the inline document's scale and sign (null when nil). */
export interface XbrlFact {
  concept: string;
  context: string;
  unit: string;
  value: number | null;
  /** `decimals` as filed (null for INF or absent): how precise the value claims to be. */
  decimals: number | null;
}

/** A fact whose value could not be read (an inline format we do not know): kept out, named. */
export interface UnreadableFact {
  concept: string;
  context: string;
  reason: string;
}

/** A filing's XBRL as read: every numeric fact, the contexts and units they name (ids → what they say). */
export interface XbrlDocument {
  kind: "instance" | "inline";
  contexts: Map<string, XbrlContext>;
  /** Unit id → its measure as company facts name it: USD, shares, USD/shares, pure. */
  units: Map<string, string>;
  facts: XbrlFact[];
  unreadable: UnreadableFact[];
  /** The taxonomy schema the document names (`link:schemaRef`, `aapl-20240928.xsd`): its linkbases are named after it. */
  schema: string | null;
}

/** Namespaces of XBRL itself, by what they hold. */
export const NS = {
  instance: "http://www.xbrl.org/2003/instance",
  dimensions: "http://xbrl.org/2006/xbrldi",
  inline: "http://www.xbrl.org/2013/inlineXBRL",
  xsi: "http://www.w3.org/2001/XMLSchema-instance",
  iso4217: "http://www.xbrl.org/2003/iso4217",
} as const;

/** The prefixes every reader of EDGAR's XBRL knows concepts by, whatever prefix a filer declared for them. */
const CANONICAL: readonly [RegExp, string][] = [
  [/^http:\/\/fasb\.org\/us-gaap\//, "us-gaap"],
  [/^http:\/\/fasb\.org\/srt\//, "srt"],
  [/^http:\/\/xbrl\.sec\.gov\/dei\//, "dei"],
  [/^http:\/\/xbrl\.sec\.gov\/country\//, "country"],
  [/^https?:\/\/xbrl\.ifrs\.org\/taxonomy\/[^/]+\/ifrs-full$/, "ifrs-full"],
];

/**
 * The one parser for XBRL pieces, configured once: values stay strings (numbers are read by the rules of their
 * format), entities stay as written (decoded where a value needs it), and every element is an array, so that a
 * document with one context reads as one with many (STYLE "Decisions already taken").
 */
export const XBRL_PARSER = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  jPath: false,
  processEntities: false,
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});

/** A parsed element: children by tag (always arrays), attributes under "@_name", text under "#text". */
export type Node = { readonly [key: string]: unknown };

/** The namespace declarations of a document's root element: prefix ("" for the default) → URI. */
export class Namespaces {
  readonly #uris = new Map<string, string>();
  readonly #rename = new Map<string, string>();

  /** Reads the `xmlns` attributes of the root start tag (`<xbrl xmlns="…" xmlns:us-gaap="…">`). */
  constructor(rootTag: string) {
    for (const m of rootTag.matchAll(/\sxmlns(?::([\w.-]+))?\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
      const prefix = m[1] ?? "";
      const uri = m[2] ?? m[3] ?? "";
      this.#uris.set(prefix, uri);
      const canonical = CANONICAL.find(([pattern]) => pattern.test(uri))?.[1];
      if (canonical && canonical !== prefix && prefix !== "") this.#rename.set(prefix, canonical);
    }
  }

  /** The tag names under which an element of `uri` called `local` appears (`xbrli:context`, or `context` by default). */
  tags(uri: string, local: string): string[] {
    const out: string[] = [];
    for (const [prefix, u] of this.#uris) if (u === uri) out.push(prefix === "" ? local : `${prefix}:${local}`);
    return out;
  }

  /** The prefix declared for a namespace (the first), or null. */
  prefixOf(uri: string): string | null {
    for (const [prefix, u] of this.#uris) if (u === uri) return prefix;
    return null;
  }

  /** A concept or member QName with the prefix readers know its taxonomy by (`usgaap:Revenues` → `us-gaap:Revenues`). */
  qname(raw: string): string {
    const name = raw.trim();
    if (this.#rename.size === 0) return name;
    const colon = name.indexOf(":");
    const renamed = colon > 0 ? this.#rename.get(name.slice(0, colon)) : undefined;
    return renamed ? `${renamed}${name.slice(colon)}` : name;
  }
}

/** The root element's start tag, after the prolog and comments; null when there is none. */
export function rootStartTag(text: string): string | null {
  let at = 0;
  for (;;) {
    at = text.indexOf("<", at);
    if (at < 0) return null;
    const next = text[at + 1];
    if (next === "?" || next === "!") {
      const close = next === "!" && text.startsWith("<!--", at) ? text.indexOf("-->", at) : text.indexOf(">", at);
      if (close < 0) return null;
      at = close + 1;
      continue;
    }
    const end = tagEnd(text, at);
    return end < 0 ? null : text.slice(at, end + 1);
  }
}

/** Where the start tag opening at `at` ends (its ">"), quoted attribute values skipped; -1 when it never does. */
export function tagEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 62 /* > */) return i;
    if (c === 34 /* " */ || c === 39 /* ' */) {
      const close = text.indexOf(text[i]!, i + 1);
      if (close < 0) return -1;
      i = close;
    }
  }
  return -1;
}

/** Every child element of `node` named `tags` (any of them), in document order per name. */
export function children(node: Node, tags: readonly string[]): Node[] {
  const out: Node[] = [];
  for (const tag of tags) {
    const list = node[tag];
    if (Array.isArray(list)) for (const item of list) out.push(typeof item === "object" && item !== null ? (item as Node) : { "#text": item });
  }
  return out;
}

/** An element's own text (its "#text"), or "" for an empty one. */
export function ownText(node: Node): string {
  const t = node["#text"];
  return typeof t === "string" ? t : Array.isArray(t) ? t.join("") : "";
}

/** An attribute's value by its name as written (`contextRef`, `xsi:nil`), or null. */
export function attribute(node: Node, name: string): string | null {
  const v = node[`@_${name}`];
  return typeof v === "string" ? v : null;
}

/**
 * The contexts and units under `parent` (an instance's root, or an inline document's ix:resources), by id. A
 * context without a readable period, or naming a dimension member that is not a QName, makes the document unreadable.
 */
export function readResources(parent: Node, ns: Namespaces, subject: ParseSubject): Pick<XbrlDocument, "contexts" | "units"> {
  const t = (local: string) => ns.tags(NS.instance, local);
  const tags = { entity: t("entity"), segment: t("segment"), scenario: t("scenario"), period: t("period"), start: t("startDate"), end: t("endDate"), instant: t("instant") };
  const explicit = ns.tags(NS.dimensions, "explicitMember");
  const typed = ns.tags(NS.dimensions, "typedMember");
  const contexts = new Map<string, XbrlContext>();
  for (const context of children(parent, t("context"))) {
    const id = attribute(context, "id");
    if (id === null) throw new XbrlDocumentError(subject, "a context without an id");
    const period = children(context, tags.period)[0];
    const date = (list: string[]) => {
      const raw = period ? children(period, list)[0] : undefined;
      if (raw === undefined) return null;
      const value = ownText(raw).slice(0, 10);
      if (!isIsoDate(value)) throw new XbrlDocumentError(subject, `context ${id}: impossible date ${JSON.stringify(ownText(raw).slice(0, 30))}`);
      return value;
    };
    const instant = date(tags.instant);
    const end = instant ?? date(tags.end);
    if (end === null) throw new XbrlDocumentError(subject, `context ${id} has no period end or instant`);
    const start = instant === null ? date(tags.start) : null;
    if (instant === null && (start === null || start > end)) throw new XbrlDocumentError(subject, `context ${id}: a duration without a start on or before its end`);
    const dims: Record<string, string> = {};
    let hasTyped = false;
    const holders = [...children(context, tags.entity).flatMap((e) => children(e, tags.segment)), ...children(context, tags.scenario)];
    for (const holder of holders) {
      for (const member of children(holder, explicit)) {
        const axis = attribute(member, "dimension");
        const value = ownText(member);
        if (axis === null || !value.includes(":")) throw new XbrlDocumentError(subject, `context ${id}: an explicit member without a dimension or a QName`);
        dims[ns.qname(axis)] = ns.qname(value);
      }
      if (children(holder, typed).length) hasTyped = true;
    }
    contexts.set(id, { start, end, dims, typed: hasTyped });
  }
  const units = new Map<string, string>();
  for (const unit of children(parent, t("unit"))) {
    const id = attribute(unit, "id");
    if (id === null) throw new XbrlDocumentError(subject, "a unit without an id");
    const measure = (holder: Node) => children(holder, t("measure")).map((m) => measureName(ownText(m), ns)).join("*");
    const divide = children(unit, t("divide"))[0];
    if (divide) {
      const numerator = children(divide, t("unitNumerator"))[0];
      const denominator = children(divide, t("unitDenominator"))[0];
      units.set(id, `${numerator ? measure(numerator) : ""}/${denominator ? measure(denominator) : ""}`);
    } else units.set(id, measure(unit));
  }
  return { contexts, units };
}

/** A measure as company facts name units: `iso4217:USD` → USD, `xbrli:shares` → shares, `xbrli:pure` → pure. */
function measureName(raw: string, ns: Namespaces): string {
  const name = raw.trim();
  const colon = name.indexOf(":");
  if (colon < 0) return name;
  const prefix = name.slice(0, colon);
  const local = name.slice(colon + 1);
  const uri = ns.prefixOf(NS.iso4217) === prefix ? NS.iso4217 : ns.prefixOf(NS.instance) === prefix ? NS.instance : null;
  return uri ? local : ns.qname(name);
}

/** XML's named entities, `&nbsp;` and character references as characters (a stray "&" stays as written). */
export function decodeText(raw: string): string {
  if (!raw.includes("&")) return raw;
  return raw.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? whole;
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** The schema a document's `link:schemaRef` names (relative to its filing's folder), or null. */
export function schemaRef(text: string): string | null {
  const tag = /<(?:[\w.-]+:)?schemaRef\b[^>]*>/.exec(text)?.[0];
  const href = tag && /\bxlink:href\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(tag);
  return href ? (href[1] ?? href[2] ?? null) : null;
}

/** `decimals` as filed: an integer, or null for INF (exact) and absent. */
export function readDecimals(raw: string | null): number | null {
  if (raw === null || raw === "INF") return null;
  const n = Number(raw);
  return Number.isInteger(n) ? n : null;
}

/** The facts' contexts and units all exist: a fact naming one the document lacks makes it unreadable. */
export function checkReferences(doc: Pick<XbrlDocument, "contexts" | "units" | "facts">, subject: ParseSubject): void {
  for (const fact of doc.facts) {
    if (!doc.contexts.has(fact.context)) throw new XbrlDocumentError(subject, `fact ${fact.concept} names context "${fact.context}", which the document does not define`);
    if (!doc.units.has(fact.unit)) throw new XbrlDocumentError(subject, `fact ${fact.concept} names unit "${fact.unit}", which the document does not define`);
  }
}
