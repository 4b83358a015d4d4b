// Ownership XML (Forms 3, 4, 5 and their amendments) → one OwnershipFiling with a record per transaction row.
// Pure: XML text in, typed records out; never fetches, never reads the clock (filed_at is an argument).
import {
  type Footnote,
  type InsiderTransaction,
  type Owner,
  type OwnershipFiling,
  TRANSACTION_CODES,
  type TransactionCode,
} from "../../schemas/insider.ts";
import { isIsoDate, toCik } from "../../schemas/primitives.ts";
import { EdgarParseError, MalformedInputError } from "../errors.ts";
import {
  countTags,
  flag,
  footnoteTexts,
  isoDate,
  markupText,
  node,
  num,
  oneOf,
  parseTree,
  rows,
  splitDocument,
  text,
  value,
  XmlDefect,
  type XmlNode,
} from "./ownership-xml.ts";

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

const ROOT = "ownershipDocument";

/** Context the XML does not carry: the accession it was filed under, its filing date, the file it came from. */
export interface OwnershipContext {
  accession: string;
  filedAt?: string | null;
  path?: string;
}

/**
 * Parses one ownership XML document into its header and one record per transaction row of both tables.
 * EdgarParseError when it is not a readable ownership document; MalformedInputError for a defect EDGAR's schema
 * does not allow (ownership-xml.ts XmlDefect).
 */
export function parseOwnershipXml(xml: string, ctx: OwnershipContext): OwnershipFiling {
  const subject = { accession: ctx.accession, ...(ctx.path ? { path: ctx.path } : {}) };
  try {
    return readOwnership(xml, ctx, subject);
  } catch (error) {
    if (error instanceof XmlDefect) throw new MalformedInputError(subject, error.message);
    throw error;
  }
}

function readOwnership(xml: string, ctx: OwnershipContext, subject: { accession: string; path?: string }): OwnershipFiling {
  const fail: (message: string, cause?: unknown) => never = (message, cause) => {
    throw new EdgarParseError(subject, message, cause === undefined ? undefined : { cause });
  };
  if (!xml.includes(`<${ROOT}`)) fail(`not an ownershipDocument (starts "${xml.slice(0, 60).replace(/\s+/g, " ")}")`);
  // fast-xml-parser accepts an unclosed document silently: a missing end tag is how truncation shows (pitfall 42).
  if (!xml.includes(`</${ROOT}>`)) fail(`truncated ownership XML: no closing </${ROOT}> (${xml.length} bytes)`);
  const parts = splitDocument(xml);
  let parsed: unknown;
  try {
    parsed = parseTree(parts.tables);
  } catch (cause) {
    if (cause instanceof XmlDefect) throw cause;
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
    filed_at: ctx.filedAt && isIsoDate(ctx.filedAt) ? ctx.filedAt : null,
    period_of_report: isoDate(text(doc.periodOfReport), "periodOfReport"),
    issuer_cik: issuerCik,
    issuer_name: text(issuerNode.issuerName),
    issuer_ticker: text(issuerNode.issuerTradingSymbol),
    owners,
    // The checkbox exists from schema X0508 (2023); absent means the filing does not say: null, never false (pitfall 39).
    is_10b5_1: flag(text(doc.aff10b5One)),
    date_of_original_submission: isoDate(text(doc.dateOfOriginalSubmission), "dateOfOriginalSubmission"),
    superseded_by: null,
  };
  const notes = footnoteTexts(parts.footnotes);
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
    remarks: markupText(parts.remarks),
  };
}

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
    transaction_date: isoDate(value(row.transactionDate), "transactionDate"),
    deemed_execution_date: isoDate(value(row.deemedExecutionDate), "deemedExecutionDate"),
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
          exercise_date: isoDate(value(row.exerciseDate), "exerciseDate"),
          expiration_date: isoDate(value(row.expirationDate), "expirationDate"),
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
