// Insider transactions served by /insiders: one record per transaction row of an ownership filing
// (Forms 3, 4, 5 and amendments), with owners, footnotes and the filing it came from.
import { z } from "zod";
import { Accession, Cik, IsoDate } from "./primitives.ts";

/**
 * The 20 official transaction codes and their meanings, as SEC publishes them
 * (https://www.sec.gov/edgar/searchedgar/ownershipformcodes.html).
 */
export const TRANSACTION_CODES = {
  P: "Open market or private purchase of non-derivative or derivative security",
  S: "Open market or private sale of non-derivative or derivative security",
  V: "Transaction voluntarily reported earlier than required",
  A: "Grant, award or other acquisition pursuant to Rule 16b-3(d)",
  D: "Disposition to the issuer of issuer equity securities pursuant to Rule 16b-3(e)",
  F: "Payment of exercise price or tax liability by delivering or withholding securities incident to the receipt, exercise or vesting of a security issued in accordance with Rule 16b-3",
  I: "Discretionary transaction in accordance with Rule 16b-3(f) resulting in acquisition or disposition of issuer securities",
  M: "Exercise or conversion of derivative security exempted pursuant to Rule 16b-3",
  C: "Conversion of derivative security",
  E: "Expiration of short derivative position",
  H: "Expiration (or cancellation) of long derivative position with value received",
  O: "Exercise of out-of-the-money derivative security",
  X: "Exercise of in-the-money or at-the-money derivative security",
  G: "Bona fide gift",
  L: "Small acquisition under Rule 16a-6",
  W: "Acquisition or disposition by will or the laws of descent and distribution",
  Z: "Deposit into or withdrawal from voting trust",
  J: "Other acquisition or disposition (describe transaction)",
  K: "Transaction in equity swap or instrument with similar characteristics",
  U: "Disposition pursuant to a tender of shares in a change of control transaction",
} as const;
export type TransactionCode = keyof typeof TRANSACTION_CODES;

/** A reporting owner of the filing and their relationship to the issuer. */
export const Owner = z
  .object({
    cik: Cik.nullable(),
    name: z.string().meta({ description: "Name as filed (EDGAR writes LAST FIRST MIDDLE).", example: "Cook Timothy D" }),
    is_director: z.boolean(),
    is_officer: z.boolean(),
    officer_title: z.string().nullable(),
    is_ten_percent_owner: z.boolean(),
    is_other: z.boolean(),
    other_text: z.string().nullable(),
  })
  .meta({ id: "Owner" });
export type Owner = z.infer<typeof Owner>;

/** A footnote of the filing that this row refers to, with the fields that cite it. */
export const Footnote = z
  .object({
    id: z.string().meta({ example: "F1" }),
    text: z.string(),
    fields: z.array(z.string()).meta({ description: "Fields of this row that cite the footnote, e.g. price_per_share." }),
  })
  .meta({ id: "Footnote" });
export type Footnote = z.infer<typeof Footnote>;

/** Derivative details (table II rows only). */
export const DerivativeDetails = z
  .object({
    conversion_or_exercise_price: z.number().nullable(),
    exercise_date: IsoDate.nullable(),
    expiration_date: IsoDate.nullable(),
    underlying_security_title: z.string().nullable(),
    underlying_security_shares: z.number().nullable(),
    underlying_security_value: z.number().nullable(),
  })
  .meta({ id: "DerivativeDetails" });
export type DerivativeDetails = z.infer<typeof DerivativeDetails>;

/** One transaction row of an ownership filing (DESIGN "Field names": Insider transaction). */
export const InsiderTransaction = z
  .object({
    source_accession: Accession,
    form: z.string().meta({ example: "4" }),
    filed_at: IsoDate.nullable(),
    period_of_report: IsoDate.nullable(),
    issuer_cik: Cik,
    issuer_name: z.string().nullable(),
    issuer_ticker: z.string().nullable(),
    row: z.number().int().nonnegative().meta({ description: "Position of the row within its table, from 0." }),
    is_derivative: z.boolean().meta({ description: "True for table II (derivative securities)." }),
    security_title: z.string().nullable(),
    transaction_date: IsoDate.nullable(),
    deemed_execution_date: IsoDate.nullable(),
    transaction_code: z.string().nullable().meta({ example: "S" }),
    transaction_description: z.string().nullable(),
    transaction_form_type: z.string().nullable(),
    equity_swap_involved: z.boolean().nullable(),
    timeliness: z.enum(["E", "L"]).nullable().meta({ description: "E early, L late; null when on time." }),
    shares: z.number().nullable(),
    transaction_total_value: z.number().nullable().optional().meta({
      description: "transactionTotalValue: the amount of a row reported by value instead of shares (table II).",
    }),
    price_per_share: z.number().nullable().meta({ description: "Null when not given, or given only in a footnote." }),
    value: z.number().nullable().meta({ description: "shares × price for non-derivative rows with a numeric price." }),
    acquired_disposed: z.enum(["A", "D"]).nullable(),
    shares_owned_after: z.number().nullable(),
    value_owned_after: z.number().nullable(),
    ownership: z.enum(["D", "I"]).nullable().meta({ description: "D direct, I indirect." }),
    nature_of_ownership: z.string().nullable(),
    derivative: DerivativeDetails.nullable(),
    owners: z.array(Owner).min(1),
    footnotes: z.array(Footnote),
    is_10b5_1: z.boolean().nullable().meta({
      description: "The form's Rule 10b5-1(c) checkbox; null for filings whose schema predates it (before 2023).",
    }),
    date_of_original_submission: IsoDate.nullable().meta({ description: "For an amendment, the date of the filing it amends." }),
    superseded_by: Accession.nullable().meta({ description: "Accession of the amendment that replaces this row, if any." }),
  })
  .meta({ id: "InsiderTransaction" });
export type InsiderTransaction = z.infer<typeof InsiderTransaction>;

/** One parsed ownership document (Form 3, 4, 5 or amendment): its header and its transaction records. */
export const OwnershipFiling = z
  .object({
    accession: Accession,
    form: z.string().meta({ description: "documentType as filed: 3, 4, 5, 3/A, 4/A, 5/A.", example: "4/A" }),
    filed_at: IsoDate.nullable(),
    schema_version: z.string().nullable().meta({ example: "X0609" }),
    period_of_report: IsoDate.nullable(),
    date_of_original_submission: IsoDate.nullable(),
    not_subject_to_section16: z.boolean(),
    no_securities_owned: z.boolean(),
    issuer: z.object({ cik: Cik, name: z.string().nullable(), ticker: z.string().nullable() }),
    owners: z.array(Owner).min(1),
    transactions: z.array(InsiderTransaction),
    holdings_count: z.number().int().nonnegative().meta({ description: "Holding rows of both tables (not transactions)." }),
    remarks: z.string().nullable(),
  })
  .meta({ id: "OwnershipFiling" });
export type OwnershipFiling = z.infer<typeof OwnershipFiling>;
