// Ownership XML (Forms 3, 4, 5 and their amendments) → one OwnershipFiling with a record per transaction row.
// Pure: XML text in, typed records out; never fetches, never reads the clock (filed_at is an argument).
import { XMLParser } from "fast-xml-parser";
import {
  type Footnote,
  type InsiderTransaction,
  type Owner,
  type OwnershipFiling,
  TRANSACTION_CODES,
  type TransactionCode,
} from "../../schemas/insider.ts";
import { toCik } from "../../schemas/primitives.ts";
import { EdgarParseError } from "../errors.ts";

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

// Configured once. Values stay strings (we read numbers and dates ourselves); footnotes and remarks are
// stop nodes so their child markup stays in order as raw text (pitfall 31).
const PARSER = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  jPath: false, // the default builds a path string for every isArray call: ~12% of parse time
  processEntities: false, // decoded by text() only where a "&" occurs, which is rare
  isArray: (name: string) => REPEATING.has(name),
  stopNodes: ["*.footnote", "*.remarks"],
});

// Which record field a footnoteId cites, by the element it sits in (nearest named ancestor wins).
const FIELD_OF: Readonly<Record<string, string>> = {
  securityTitle: "security_title",
  conversionOrExercisePrice: "conversion_or_exercise_price",
  transactionDate: "transaction_date",
  deemedExecutionDate: "deemed_execution_date",
  transactionCoding: "transaction_code",
  transactionFormType: "transaction_form_type",
  equitySwapInvolved: "equity_swap_involved",
  transactionTimeliness: "timeliness",
  transactionShares: "shares",
  transactionTotalValue: "transaction_total_value",
  transactionPricePerShare: "price_per_share",
  transactionAcquiredDisposedCode: "acquired_disposed",
  exerciseDate: "exercise_date",
  expirationDate: "expiration_date",
  underlyingSecurityTitle: "underlying_security_title",
  underlyingSecurityShares: "underlying_security_shares",
  underlyingSecurityValue: "underlying_security_value",
  sharesOwnedFollowingTransaction: "shares_owned_after",
  valueOwnedFollowingTransaction: "value_owned_after",
  directOrIndirectOwnership: "ownership",
  natureOfOwnership: "nature_of_ownership",
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const ROOT = "ownershipDocument";
const ADDRESS_OPEN = "<reportingOwnerAddress>";
const ADDRESS_CLOSE = "</reportingOwnerAddress>";
const BETWEEN_TAGS = />\s+</g;
const CDATA_OPEN = "<![CDATA[";
const CDATA_CLOSE = "]]>";
const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Context the XML does not carry: the accession it was filed under and its filing date. */
export interface OwnershipContext {
  accession: string;
  filedAt?: string | null;
}

/** Parses one ownership XML document into its header and one record per transaction row of both tables. */
export function parseOwnershipXml(xml: string, ctx: OwnershipContext): OwnershipFiling {
  const subject = { accession: ctx.accession };
  const fail: (message: string, cause?: unknown) => never = (message, cause) => {
    throw new EdgarParseError(subject, message, cause === undefined ? undefined : { cause });
  };
  if (!xml.includes(`<${ROOT}`)) fail(`not an ownershipDocument (starts "${xml.slice(0, 60).replace(/\s+/g, " ")}")`);
  // fast-xml-parser accepts an unclosed document silently: a missing end tag is how truncation shows (pitfall 42).
  if (!xml.includes(`</${ROOT}>`)) fail(`truncated ownership XML: no closing </${ROOT}> (${xml.length} bytes)`);
  let parsed: unknown;
  try {
    parsed = PARSER.parse(compact(xml));
  } catch (cause) {
    fail(`malformed ownership XML: ${(cause as Error).message}`, cause);
  }
  const doc = node(node(parsed)[ROOT]);
  const form = text(doc.documentType);
  if (form === null) fail("ownership XML without documentType");
  const issuerNode = node(doc.issuer);
  const issuerCik = toCik(text(issuerNode.issuerCik));
  if (issuerCik === null) fail(`ownership XML without a valid issuerCik (${JSON.stringify(text(issuerNode.issuerCik))})`);
  const owners = rows(doc.reportingOwner).map(readOwner);
  if (owners.length === 0) fail("ownership XML without a reportingOwner");

  const nonDerivative = node(doc.nonDerivativeTable);
  const derivative = node(doc.derivativeTable);
  const tableI = rows(nonDerivative.nonDerivativeTransaction);
  const tableII = rows(derivative.derivativeTransaction);
  // A tag mismatch the lenient parser swallowed can merge or drop rows (pitfall 34): the text must agree.
  const inText = countTags(xml, "<nonDerivativeTransaction") + countTags(xml, "<derivativeTransaction");
  if (inText !== tableI.length + tableII.length) {
    fail(`malformed ownership XML: ${inText} transaction rows in the text, ${tableI.length + tableII.length} parsed`);
  }

  const header: RowHeader = {
    source_accession: ctx.accession,
    form,
    filed_at: isoDate(ctx.filedAt ?? null),
    period_of_report: isoDate(text(doc.periodOfReport)),
    issuer_cik: issuerCik,
    issuer_name: text(issuerNode.issuerName),
    issuer_ticker: text(issuerNode.issuerTradingSymbol),
    owners,
    // The checkbox exists from schema X0508 (2023); absent means the filing does not say: null, never false (pitfall 39).
    is_10b5_1: flag(text(doc.aff10b5One)),
    date_of_original_submission: isoDate(text(doc.dateOfOriginalSubmission)),
    superseded_by: null,
  };
  const notes = footnoteTexts(node(doc.footnotes).footnote);
  const transactions = [
    ...tableI.map((row, i) => readRow(row, i, false, header, notes)),
    ...tableII.map((row, i) => readRow(row, i, true, header, notes)),
  ];
  return {
    accession: ctx.accession,
    form: header.form,
    filed_at: header.filed_at,
    schema_version: text(doc.schemaVersion),
    period_of_report: header.period_of_report,
    date_of_original_submission: header.date_of_original_submission,
    not_subject_to_section16: flag(text(doc.notSubjectToSection16)) ?? false,
    no_securities_owned: flag(text(doc.noSecuritiesOwned)) ?? false,
    issuer: { cik: header.issuer_cik, name: header.issuer_name, ticker: header.issuer_ticker },
    owners,
    transactions,
    holdings_count: rows(nonDerivative.nonDerivativeHolding).length + rows(derivative.derivativeHolding).length,
    remarks: markupText(doc.remarks),
  };
}

type XmlNode = { readonly [key: string]: unknown };
type RowHeader = Pick<
  InsiderTransaction,
  | "source_accession" | "form" | "filed_at" | "period_of_report" | "issuer_cik" | "issuer_name" | "issuer_ticker"
  | "owners" | "is_10b5_1" | "date_of_original_submission" | "superseded_by"
>;

function readRow(row: XmlNode, index: number, isDerivative: boolean, header: RowHeader, notes: Map<string, string>): InsiderTransaction {
  const coding = node(row.transactionCoding);
  const amounts = node(row.transactionAmounts);
  const after = node(row.postTransactionAmounts);
  const nature = node(row.ownershipNature);
  // A row without <transactionCoding> is legal in old filings and must not sink the filing (pitfall 33).
  const code = text(coding.transactionCode);
  const shares = num(value(amounts.transactionShares));
  const price = num(value(amounts.transactionPricePerShare));
  const underlying = node(row.underlyingSecurity);
  return {
    ...header,
    row: index,
    is_derivative: isDerivative,
    security_title: value(row.securityTitle),
    transaction_date: isoDate(value(row.transactionDate)),
    deemed_execution_date: isoDate(value(row.deemedExecutionDate)),
    transaction_code: code,
    transaction_description: code !== null && Object.hasOwn(TRANSACTION_CODES, code) ? TRANSACTION_CODES[code as TransactionCode] : null,
    transaction_form_type: text(coding.transactionFormType),
    equity_swap_involved: flag(text(coding.equitySwapInvolved)),
    timeliness: oneOf(value(row.transactionTimeliness), "E", "L"),
    shares,
    transaction_total_value: num(value(amounts.transactionTotalValue)),
    price_per_share: price,
    // Derivative rows carry the instrument's price, so shares × price means nothing there (pitfall 32).
    value: !isDerivative && shares !== null && price !== null ? Math.round(shares * price * 1e4) / 1e4 : null,
    acquired_disposed: oneOf(value(amounts.transactionAcquiredDisposedCode), "A", "D"),
    shares_owned_after: num(value(after.sharesOwnedFollowingTransaction)),
    value_owned_after: num(value(after.valueOwnedFollowingTransaction)),
    ownership: oneOf(value(nature.directOrIndirectOwnership), "D", "I"),
    nature_of_ownership: value(nature.natureOfOwnership),
    derivative: isDerivative
      ? {
          conversion_or_exercise_price: num(value(row.conversionOrExercisePrice)),
          exercise_date: isoDate(value(row.exerciseDate)),
          expiration_date: isoDate(value(row.expirationDate)),
          underlying_security_title: value(underlying.underlyingSecurityTitle),
          underlying_security_shares: num(value(underlying.underlyingSecurityShares)),
          underlying_security_value: num(value(underlying.underlyingSecurityValue)),
        }
      : null,
    footnotes: rowFootnotes(row, notes),
  };
}

function readOwner(owner: XmlNode): Owner {
  const id = node(owner.reportingOwnerId);
  const rel = node(owner.reportingOwnerRelationship);
  return {
    cik: toCik(text(id.rptOwnerCik)),
    name: text(id.rptOwnerName) ?? "",
    is_director: flag(text(rel.isDirector)) ?? false,
    is_officer: flag(text(rel.isOfficer)) ?? false,
    officer_title: text(rel.officerTitle),
    is_ten_percent_owner: flag(text(rel.isTenPercentOwner)) ?? false,
    is_other: flag(text(rel.isOther)) ?? false,
    other_text: text(rel.otherText),
  };
}

/** Every footnoteId under the row, wherever it sits, once per id, with the fields citing it (pitfall 31). */
function rowFootnotes(row: XmlNode, notes: Map<string, string>): Footnote[] {
  const cited = new Map<string, string[]>();
  collectRefs(row, "row", cited);
  const out: Footnote[] = [];
  // A reference to an undefined footnote is a filer error; keep the id with empty text rather than hide it.
  for (const [id, fields] of cited) out.push({ id, text: notes.get(id) ?? "", fields });
  return out;
}

function collectRefs(element: XmlNode, field: string, cited: Map<string, string[]>): void {
  for (const key in element) {
    const child = element[key];
    if (typeof child !== "object" || child === null) continue;
    if (key === "footnoteId") {
      for (const ref of child as unknown[]) {
        const id = text(node(ref)["@_id"]);
        if (id === null) continue;
        const fields = cited.get(id);
        if (!fields) cited.set(id, [field]);
        else if (!fields.includes(field)) fields.push(field);
      }
      continue;
    }
    const childField = FIELD_OF[key] ?? field;
    if (Array.isArray(child)) for (const item of child) collectRefs(node(item), childField, cited);
    else collectRefs(child as XmlNode, childField, cited);
  }
}

function footnoteTexts(list: unknown): Map<string, string> {
  const notes = new Map<string, string>();
  for (const note of rows(list)) {
    const id = text(note["@_id"]);
    if (id !== null) notes.set(id, markupText(note) ?? "");
  }
  return notes;
}

/** Raw text of a stop node (footnote, remarks): child markup dropped, CDATA kept literally, entities decoded. */
function markupText(raw: unknown): string | null {
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

function node(x: unknown): XmlNode {
  return typeof x === "object" && x !== null && !Array.isArray(x) ? (x as XmlNode) : {};
}

/** A repeating element's items; an empty element (`<row/>` parses as "") still counts as a row. */
function rows(x: unknown): XmlNode[] {
  return Array.isArray(x) ? x.map(node) : [];
}

function text(x: unknown): string | null {
  if (typeof x === "string") return x === "" ? null : x.includes("&") ? decodeEntities(x) : x;
  if (typeof x === "object" && x !== null && "#text" in x) return text((x as XmlNode)["#text"]);
  return null;
}

/** The <value> of an EDGAR leaf `{value, footnoteId[]}`; null when only a footnote is given. */
function value(x: unknown): string | null {
  return typeof x === "object" && x !== null ? text((x as XmlNode).value) : text(x);
}

/** A number as filed; thousands separators tolerated; null when absent or not a number. */
function num(raw: string | null): number | null {
  if (raw === null) return null;
  const n = Number(raw.includes(",") ? raw.replace(/,/g, "") : raw);
  return Number.isFinite(n) ? n : null;
}

/** YYYY-MM-DD from a date as filed, dropping time-zone or time suffixes ("2026-05-21-05:00"); null when not a real date. */
function isoDate(raw: string | null): string | null {
  if (raw === null || raw.length < 10) return null;
  const date = raw.length === 10 ? raw : raw.slice(0, 10);
  if (!DATE.test(date)) return null;
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const day = Number(date.slice(8, 10));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : DAYS_IN_MONTH[month - 1];
  return days !== undefined && day >= 1 && day <= days ? date : null;
}

function flag(raw: string | null): boolean | null {
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

function oneOf<T extends string>(raw: string | null, a: T, b: T): T | null {
  if (raw === null) return null;
  const upper = raw.length === 1 ? raw.toUpperCase() : "";
  return upper === a ? a : upper === b ? b : null;
}

/**
 * The document with what we never read (owner addresses) dropped and the indentation between tags removed up to
 * <footnotes> or <remarks>: the tables hold no mixed content, footnotes and remarks may (pitfall 31). ~20% faster.
 */
function compact(xml: string): string {
  let out = "";
  let from = 0;
  for (let at = xml.indexOf(ADDRESS_OPEN); at >= 0; at = xml.indexOf(ADDRESS_OPEN, from)) {
    const end = xml.indexOf(ADDRESS_CLOSE, at);
    if (end < 0) break;
    out += xml.slice(from, at);
    from = end + ADDRESS_CLOSE.length;
  }
  out += xml.slice(from);
  const notes = out.indexOf("<footnotes");
  const remarks = out.indexOf("<remarks");
  const keep = notes < 0 ? remarks : remarks < 0 ? notes : Math.min(notes, remarks);
  return keep < 0 ? out.replace(BETWEEN_TAGS, "><") : out.slice(0, keep).replace(BETWEEN_TAGS, "><") + out.slice(keep);
}

function countTags(xml: string, open: string): number {
  let count = 0;
  for (let at = xml.indexOf(open); at >= 0; at = xml.indexOf(open, at + open.length)) {
    const next = xml.charCodeAt(at + open.length);
    if (next === 62 /* > */ || next === 47 /* / */ || next <= 32) count++;
  }
  return count;
}
