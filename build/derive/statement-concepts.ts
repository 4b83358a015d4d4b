// Which XBRL concepts feed each balance-sheet and cash-flow metric, in priority order (issue 18 "Concepts"), and the
// sums a company's own lines make where it tags no total. Data only, like concepts.ts: exact concepts, never labels.
import type { CashFlowMetricName } from "../../schemas/financials.ts";
import type { SeriesSpec } from "./observations.ts";

/**
 * One way to compute a series from others of the SAME filing and period: the terms present are added with their
 * signs; every `required` term must be present, and at least one term. Components come first in STATEMENT_SERIES.
 */
export interface Formula {
  terms: readonly { series: string; sign: 1 | -1; required: boolean }[];
}

/** A statement series: balance sheet instants or cash flows, with the sums that stand in for an untagged total. */
export interface StatementSpec extends SeriesSpec {
  /** Balance sheet: an instant at the period end (never summed, never derived for Q4). */
  instant: boolean;
  /** Cash paid out: the taxonomy's sign is positive; a negative filed value is a sign slip, flipped and marked. */
  outflow: boolean;
  /** Tried in order when the filing tags none of `concepts` for the period. */
  formulas: readonly Formula[];
  /** A component of other series only, never served. */
  internal: boolean;
}

const flow = (concepts: string[], options: Partial<StatementSpec> = {}): StatementSpec => ({
  kind: "currency",
  additive: true,
  steady: false,
  instant: false,
  outflow: false,
  formulas: [],
  internal: false,
  concepts,
  ...options,
});
const instant = (concepts: string[], options: Partial<StatementSpec> = {}): StatementSpec =>
  flow(concepts, { additive: false, instant: true, ...options });
const sum = (...terms: [series: string, sign: 1 | -1, required: boolean][]): Formula => ({
  terms: terms.map(([series, sign, required]) => ({ series, sign, required })),
});

/** Cash flows, each filed year to date in 10-Qs (quarters are derived by differencing, statements.ts). */
export const CASH_FLOW_SERIES: Readonly<Record<Exclude<CashFlowMetricName, "free_cash_flow">, StatementSpec>> = {
  operating_cash_flow: flow([
    "us-gaap:NetCashProvidedByUsedInOperatingActivities", // the statement's total, discontinued operations included
    "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations", // filers who total continuing operations only (Disney 2019–2023)
    "ifrs-full:CashFlowsFromUsedInOperatingActivities", // IFRS total (TSMC)
  ]),
  capital_expenditure: flow(
    [
      "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", // the usual capex line (Apple from 2015, Walmart, Alphabet)
      "us-gaap:PaymentsToAcquireProductiveAssets", // capex over all productive assets (Home Depot; Apple before 2015)
      "us-gaap:PaymentsToAcquireOtherPropertyPlantAndEquipment", // Hertz's non-vehicle capex (its fleet is bought under its own tags)
      "ifrs-full:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities", // IFRS PP&E purchases (TSMC)
    ],
    // Not steady: capex swings by hundreds of times between periods (a plant built, then none), so only another
    // filing of the same period can show a unit-scale slip, never its neighbours.
    { outflow: true },
  ),
  // Declared dividends (us-gaap:DividendsCommonStock, ifrs-full:DividendsPaid in the equity statement) are not cash paid:
  // TSMC's 2024 equity statement shows NT$414.9 billion, its cash flow statement NT$363.1 billion.
  dividends_paid: flow(
    [
      "us-gaap:PaymentsOfDividends", // the cash flow line (Apple's "dividends and dividend equivalents", 15,234 M in fiscal 2024)
      "us-gaap:PaymentsOfDividendsCommonStock", // common dividends where the line is split by class (Walmart from 2020, Home Depot)
      "ifrs-full:DividendsPaidClassifiedAsFinancingActivities", // IFRS cash flow line
    ],
    { outflow: true },
  ),
  share_repurchases: flow(
    [
      "us-gaap:PaymentsForRepurchaseOfCommonStock", // buybacks of common stock (Apple 94,949 M in fiscal 2024)
      "us-gaap:PaymentsForRepurchaseOfEquity", // all equity repurchased, for filers who tag only the total (Texas Instruments to 2012)
      "ifrs-full:PaymentsToAcquireOrRedeemEntitysShares", // IFRS treasury share purchases
    ],
    { outflow: true },
  ),
};

/**
 * Balance sheet instants, components first (a formula reads series computed before it). Debt is the borrowings of
 * the balance sheet: finance leases only where a company's own debt line includes them (Home Depot's); operating
 * lease liabilities never.
 */
export const BALANCE_SERIES: Readonly<Record<string, StatementSpec>> = {
  total_assets: instant(["us-gaap:Assets", "ifrs-full:Assets"], { steady: true }), // total assets (never summed from parts)
  equity: instant([
    "us-gaap:StockholdersEquity", // the parent's equity; negative for a deficit (McDonald's since 2016)
    "ifrs-full:EquityAttributableToOwnersOfParent", // IFRS parent's share (TSMC)
  ]),
  _minority_interest: instant(["us-gaap:MinorityInterest"], { internal: true }), // noncontrolling interest within equity
  _total_equity: instant(
    [
      "us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest", // total equity, NCI included (Walmart)
      "ifrs-full:Equity", // IFRS total equity
    ],
    { internal: true, formulas: [sum(["equity", 1, true], ["_minority_interest", 1, false])] }, // else the parent's + NCI
  ),
  _liabilities_and_equity: instant(["us-gaap:LiabilitiesAndStockholdersEquity", "ifrs-full:EquityAndLiabilities"], { internal: true }),
  // Mezzanine equity sits between liabilities and equity: neither, so it leaves the derived total of liabilities.
  _temporary_equity: instant(
    [
      "us-gaap:TemporaryEquityCarryingAmountIncludingPortionAttributableToNoncontrollingInterests", // the whole mezzanine
      "us-gaap:RedeemableNoncontrollingInterestEquityCarryingAmount", // redeemable NCI (Walmart 2012–2016, Disney)
      "us-gaap:TemporaryEquityCarryingAmountAttributableToParent", // redeemable preferred stock (Hertz, Snowflake before its IPO)
    ],
    { internal: true },
  ),
  total_liabilities: instant(
    ["us-gaap:Liabilities", "ifrs-full:Liabilities"], // the total line, where the balance sheet has one (Apple, TSMC)
    // Walmart, McDonald's and Disney show no total: liabilities and equity − total equity − temporary equity.
    { steady: true, formulas: [sum(["_liabilities_and_equity", 1, true], ["_total_equity", -1, true], ["_temporary_equity", -1, false])] },
  ),
  cash: instant([
    "us-gaap:CashAndCashEquivalentsAtCarryingValue", // the balance sheet line (Apple 29,943 M at fiscal 2024's end)
    "us-gaap:Cash", // filers with no cash equivalents line (also Alphabet's footnote part: the line above wins)
    "ifrs-full:CashAndCashEquivalents", // IFRS line; ifrs-full:Cash is only its cash-on-hand part
  ]),
  _short_term_borrowings: instant(
    [
      "us-gaap:ShortTermBorrowings", // short-term debt (McDonald's 2020–2025, Marvell's "short-term debt", Walmart)
      "us-gaap:CommercialPaper", // filers whose short-term line is commercial paper (Apple, Home Depot, Texas Instruments)
      "ifrs-full:ShorttermBorrowings", // IFRS short-term loans (TSMC to 2022)
    ],
    { internal: true },
  ),
  _current_long_term_debt: instant(
    [
      "us-gaap:LongTermDebtCurrent", // current portion of long-term debt (Apple's current "term debt")
      "us-gaap:LongTermDebtAndCapitalLeaseObligationsCurrent", // the same with finance leases (Home Depot's current installments)
      "ifrs-full:CurrentPortionOfLongtermBorrowings", // IFRS current portion, bonds included (TSMC)
    ],
    { internal: true },
  ),
  debt_current: instant(
    ["us-gaap:DebtCurrent"], // a filer's own total of current debt, where tagged (Alphabet to 2018)
    { formulas: [sum(["_short_term_borrowings", 1, false], ["_current_long_term_debt", 1, false])] },
  ),
  _noncurrent_bonds: instant(["ifrs-full:NoncurrentPortionOfNoncurrentBondsIssued"], { internal: true }), // IFRS bonds (TSMC)
  _noncurrent_loans: instant(["ifrs-full:LongtermBorrowings"], { internal: true }), // IFRS long-term loans beside the bonds (TSMC's bank loans)
  debt_noncurrent: instant(
    [
      "us-gaap:LongTermDebtNoncurrent", // long-term debt excluding its current portion (Apple's non-current "term debt")
      "us-gaap:LongTermDebtAndCapitalLeaseObligations", // the same with finance leases (Home Depot)
    ],
    { formulas: [sum(["_noncurrent_bonds", 1, false], ["_noncurrent_loans", 1, false])] }, // IFRS: bonds + loans
  ),
};

/** The cover page's count of shares outstanding (dei): instants dated after the period, one per filing. */
export const SHARES_OUTSTANDING_CONCEPT = "dei:EntityCommonStockSharesOutstanding";
export const SHARES_OUTSTANDING: StatementSpec = instant([SHARES_OUTSTANDING_CONCEPT], { kind: "shares", steady: true });

/** Every concept the statements read (the company facts parser keeps these besides the earnings concepts). */
export const STATEMENT_CONCEPTS: ReadonlySet<string> = new Set([
  ...Object.values(CASH_FLOW_SERIES).flatMap((s) => s.concepts),
  ...Object.values(BALANCE_SERIES).flatMap((s) => s.concepts),
  SHARES_OUTSTANDING_CONCEPT,
]);
