// Which XBRL concepts feed each balance-sheet and cash-flow metric, in priority order (issue 18 "Concepts"), and the
// sums a company's own lines make where it tags no total. Data only, like concepts.ts: exact concepts, never labels.
import type { CashFlowMetricName } from "../../schemas/financials.ts";
import type { SeriesSpec } from "./observations.ts";

/**
 * One way to compute a series from others of the SAME filing and period: the terms present are added with their
 * signs; every `required` term must be present, and at least one term. Components come first in STATEMENT_SERIES.
 * `inclusive`: terms the taxonomy defines as the whole of which the other terms are kinds (IFRS borrowings of every
 * kind against bonds and loans). Filers tag them either way — the whole, with its kinds in a note; or the kinds on
 * lines of their own, one of them under the whole's concept — so the filing's numbers decide: when the inclusive terms
 * add up to at least the others, the others lie within them and are left out; else all are added.
 */
export interface Formula {
  terms: readonly { series: string; sign: 1 | -1; required: boolean }[];
  inclusive?: readonly string[];
  /** Series whose value in the same filing makes the terms' meaning unclear: the formula gives nothing there. */
  unless?: readonly string[];
  /** Series the same filing must tag for the terms to mean what the formula takes them for: else it gives nothing. */
  when?: readonly string[];
  /**
   * A series of parts of the total the series' own concepts name: where a filing tags more of it than of its own
   * concept, that "total" is a line of its own (a whole is never smaller than its parts), and the formula's value
   * stands instead, even beside it.
   */
  overrides?: string;
  /**
   * The terms are lines of the statement itself, never a footnote's parts: a later filing that tags them instead of
   * the total re-reports the statement, and its sum restates the total like any later filing (no `until`).
   */
  lines?: boolean;
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
  /**
   * Concepts that name the same line of the statement as an earlier concept of the list (`as`), which the one-concept
   * rule takes them for — unless the same filing tags the `unless` series for the period, the part by which the two
   * differ: a year whose annual report tags the line under one name and its 10-Qs under the other has its quarters by
   * difference all the same. A part tagged as zero (a statement with that line, "—" in this column) makes the value
   * both lines at once: its fiscal year's other values decide which it is counted as (FiledValue.alsoBasis).
   */
  sameLine?: Readonly<Record<string, { as: string; unless?: string }>>;
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
/** Series added as they are, each optional: the terms of a sum of whatever lines a filing tags. */
const added = (series: readonly string[]): [string, 1, false][] => series.map((name) => [name, 1, false]);
/** A sum whose `inclusive` terms may already hold the others (Formula.inclusive). */
const within = (inclusive: readonly string[], ...terms: [series: string, sign: 1 | -1, required: boolean][]): Formula => ({ ...sum(...terms), inclusive });

/**
 * Kinds of PP&E purchases that are whole lines of a cash flow statement: the taxonomy's parts of
 * PaymentsToAcquirePropertyPlantAndEquipment (its calculation children) that an industry tags with no total above them.
 * An oil and gas producer's statement has "additions to oil and gas properties" and "additions to other property,
 * plant and equipment" and no capex total: EOG's 10-K for 2020 (0000821189-21-000017), 3,243,474 and 221,226 thousand.
 * Their own parts are not read (EOG also tags acquisitions of properties, a part of its oil and gas additions), nor
 * are real estate purchases (a REIT's acquisitions are its investments, not the upkeep capex means), nor machinery or
 * furniture, which are the footnote's parts of a capex line more often than a line of their own.
 */
const CAPEX_CLASSES: Readonly<Record<string, string>> = {
  _capex_oil_gas: "us-gaap:PaymentsToAcquireOilAndGasPropertyAndEquipment", // additions to oil and gas properties
  _capex_oil_gas_development: "us-gaap:PaymentsToExploreAndDevelopOilAndGasProperties", // exploration and development, a producer's other way of tagging them
  _capex_mining: "us-gaap:PaymentsToAcquireMiningAssets", // mine development and mineral properties
  _capex_timberlands: "us-gaap:PaymentsToAcquireTimberlands", // a timber company's land and timber
  _capex_water_systems: "us-gaap:PaymentsToAcquireWaterAndWasteWaterSystems", // a water utility's plant
};
/** The classes' sum, where a filing tags any (a series of its own: capex needs one class at least, and adds other PP&E). */
const CAPEX_CLASSES_TOTAL = "_capex_classes";
/** PP&E purchases read as a line, for the filings whose PP&E figure is smaller than their classes (Formula.overrides). */
const CAPEX_PPE = "_capex_ppe";
const PPE_PURCHASES = "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment";
const DIVIDENDS_PAID = "us-gaap:PaymentsOfDividends";
const ORDINARY_DIVIDENDS = "us-gaap:PaymentsOfOrdinaryDividends";
const OPERATING_CASH_FLOW = "us-gaap:NetCashProvidedByUsedInOperatingActivities";
const OPERATING_CONTINUING = "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations";
const REPURCHASES_COMMON = "us-gaap:PaymentsForRepurchaseOfCommonStock";
const REPURCHASES_EQUITY = "us-gaap:PaymentsForRepurchaseOfEquity";
/** Preferred stock repurchased: where a filing tags it, its equity repurchased is not its common stock's. */
const REPURCHASES_PREFERRED = "_repurchases_preferred";
/** Discontinued operations' operating cash flow: where a filing tags it, its continuing operations' is not the total. */
const OPERATING_DISCONTINUED = "_operating_discontinued";
/** A partnership's distributions to its limited partners: its dividends, where it tags none. */
const PARTNERS_DISTRIBUTIONS = "_partners_distributions";

/** The one concept the statements read only to explain a null: capex concepts that name a part of capital spending. */
export const PARTIAL_CAPEX = "_capex_part";
export const PARTIAL_CAPEX_CONCEPT = "us-gaap:PaymentsToAcquireOtherPropertyPlantAndEquipment";

/** Cash flows, each filed year to date in 10-Qs (quarters are derived by differencing, statements.ts). */
export const CASH_FLOW_SERIES: Readonly<Record<Exclude<CashFlowMetricName, "free_cash_flow">, StatementSpec>> = {
  operating_cash_flow: flow(
    [
      OPERATING_CASH_FLOW, // the statement's total, discontinued operations included
      OPERATING_CONTINUING, // filers whose statement totals continuing operations only (e.g. Disney 2019–2023)
      "ifrs-full:CashFlowsFromUsedInOperatingActivities", // the IFRS statement's total
    ],
    // Continuing operations' cash flow is the total where a filing shows no discontinued operations' beside it: many
    // filers tag their only total so (Texas Instruments' 10-K for 2009, 3,330 million for 2008, whose 10-Qs of 2009
    // tagged the same line as the total; Apple's filings of 2014–2017; Home Depot's of 2012).
    { sameLine: { [OPERATING_CONTINUING]: { as: OPERATING_CASH_FLOW, unless: OPERATING_DISCONTINUED } } },
  ),
  // Capital expenditure covers all of it, never a part: a concept for the whole, else the sum of the filing's lines for
  // the kinds of PP&E it buys. A company whose only standard capex concept is a part (CASH_FLOW_PARTS) has null capital
  // expenditure and free cash flow, with the reason, rather than an understated figure.
  capital_expenditure: flow(
    [
      PPE_PURCHASES, // purchases of PP&E: the usual capex line
      "us-gaap:PaymentsToAcquireProductiveAssets", // PP&E and other productive assets (intangibles, software): filers who report capex over all of them
      "ifrs-full:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities", // IFRS purchases of PP&E (investing activities)
      // IFRS's productive assets: one line buying PP&E, intangibles, investment property and other non-current assets
      "ifrs-full:PurchaseOfPropertyPlantAndEquipmentIntangibleAssetsOtherThanGoodwillInvestmentPropertyAndOtherNoncurrentAssets",
    ],
    // Not steady: capex swings by hundreds of times between periods (a plant built, then none), so only another
    // filing of the same period can show a unit-scale slip, never its neighbours. Where the filing tags none of these,
    // the sum of its lines: the kinds of PP&E it buys (CAPEX_CLASSES), with its other PP&E beside them. A PP&E or
    // productive-assets figure smaller than the kinds of PP&E the same filing tags is no total but a line beside them.
    {
      outflow: true,
      formulas: [{ ...within([CAPEX_PPE], [CAPEX_PPE, 1, false], [CAPEX_CLASSES_TOTAL, 1, true], [PARTIAL_CAPEX, 1, false]), overrides: CAPEX_CLASSES_TOTAL }],
    },
  ),
  // Declared dividends (us-gaap:DividendsCommonStock, ifrs-full:DividendsPaid in the equity statement) are not cash paid:
  // TSMC's 2024 equity statement shows NT$414.9 billion, its cash flow statement NT$363.1 billion.
  dividends_paid: flow(
    [
      DIVIDENDS_PAID, // the cash flow statement's dividends paid, all classes (Apple's "dividends and dividend equivalents")
      // The same total under the taxonomy's name for ordinary dividends (sameLine): Simon Property's 2018, 2,449.1
      // million, common and preferred (10-K 0001558370-19-000875); Duke Energy's 10-Qs for the line its 10-Ks tag as the
      // one above.
      ORDINARY_DIVIDENDS,
      "ifrs-full:DividendsPaidClassifiedAsFinancingActivities", // IFRS cash flow line
      "ifrs-full:DividendsPaidToEquityHoldersOfParentClassifiedAsFinancingActivities", // IFRS filers who show the parent's shareholders' dividends apart from the noncontrolling interests'
      "ifrs-full:DividendsPaidClassifiedAsOperatingActivities", // IAS 7.31–34 lets dividends paid be classified in operating activities: cash paid all the same
    ],
    // Else the parent's shareholders' lines, common and preferred, where the statement shows them apart and no total
    // (PNC's 2020: 1,980 and 229 million, 10-K 0000713676-21-000025); else a partnership's distributions. Noncontrolling
    // interests' dividends on a line of their own are a subsidiary's payout to holders outside the company (Simon's
    // operating partnership's unitholders): not added. Both are the statement's lines, so a later filing's restate like
    // any filing's (Formula.lines): Walmart's 10-K for fiscal 2022 tags fiscal 2020's 6,048 million as common dividends,
    // PaymentsOfDividends when first filed.
    {
      outflow: true,
      sameLine: { [ORDINARY_DIVIDENDS]: { as: DIVIDENDS_PAID } },
      formulas: [
        { ...sum(["_dividends_common", 1, false], ["_dividends_preferred", 1, false]), lines: true },
        { ...sum([PARTNERS_DISTRIBUTIONS, 1, true]), lines: true },
      ],
    },
  ),
  share_repurchases: flow(
    [
      REPURCHASES_COMMON, // buybacks of common stock
      REPURCHASES_EQUITY, // all equity repurchased, for filers who tag only the total (e.g. Texas Instruments to 2012)
      "ifrs-full:PaymentsToAcquireOrRedeemEntitysShares", // IFRS treasury share purchases
    ],
    // All equity repurchased is the common stock's where the filing shows no preferred stock's beside it: Texas
    // Instruments' 10-Qs of 2012 tag the line as the first, its 10-K for 2012 as the second.
    { outflow: true, sameLine: { [REPURCHASES_EQUITY]: { as: REPURCHASES_COMMON, unless: REPURCHASES_PREFERRED } } },
  ),
};

/**
 * Cash-flow series observed but never served: the lines capex and dividends paid are summed from. "Other" PP&E is by
 * its definition the PP&E outside the classes a company reports on lines of its own, so it is added to a class and
 * never stands alone: when a company's only standard capex concept is this one, its main capital spending sits on such
 * a line under a company-specific concept, which company facts (standard taxonomies only) do not carry — Hertz's
 * revenue earning vehicles, billions a year beside 188 million of other PP&E in 2023. Serving the part as capex would
 * overstate free cash flow by the whole fleet.
 */
export const CASH_FLOW_PARTS: Readonly<Record<string, StatementSpec>> = {
  [PARTIAL_CAPEX]: flow([PARTIAL_CAPEX_CONCEPT], { outflow: true, internal: true }),
  [OPERATING_DISCONTINUED]: flow(["us-gaap:CashProvidedByUsedInOperatingActivitiesDiscontinuedOperations"], { internal: true }),
  [REPURCHASES_PREFERRED]: flow(["us-gaap:PaymentsForRepurchaseOfPreferredStockAndPreferenceStock"], { outflow: true, internal: true }),
  [CAPEX_PPE]: flow([PPE_PURCHASES], { outflow: true, internal: true }),
  ...Object.fromEntries(Object.entries(CAPEX_CLASSES).map(([name, concept]) => [name, flow([concept], { outflow: true, internal: true })])),
  [CAPEX_CLASSES_TOTAL]: flow([], { outflow: true, internal: true, formulas: [sum(...added(Object.keys(CAPEX_CLASSES)))] }),
  _dividends_common: flow(["us-gaap:PaymentsOfDividendsCommonStock"], { outflow: true, internal: true }), // common dividends
  _dividends_preferred: flow(["us-gaap:PaymentsOfDividendsPreferredStockAndPreferenceStock"], { outflow: true, internal: true }), // preferred dividends
  // A partnership's distributions to its limited partners, its unitholders' payout (it tags no dividends). Not the LLC
  // members' variant: an Up-C corporation names its payouts to noncontrolling holders so. After the dividend lines: a
  // corporation with an operating partnership may name its outside unitholders' distributions so.
  [PARTNERS_DISTRIBUTIONS]: flow(["us-gaap:DistributionMadeToLimitedPartnerCashDistributionsPaid"], { outflow: true, internal: true }),
};

/**
 * The income a company's EPS divides, where it is not its net income: net income less preferred dividends and the
 * share of participating securities (two-class method), and for diluted EPS with the dilutive securities' effect on
 * it; a partnership's limited partners' share. Served like the cash flows (one concept and vintage per fiscal year)
 * on the income statement's own periods, but published by no row: TTM EPS divides them, reckoned over the periods
 * its shares are (ttm.ts). Texas Instruments, 2016: net income 3,595 million, of which 3,550 million is allocated to
 * common stock for basic EPS and 3,551 million for diluted (10-K 0001564590-17-002142). Hertz, 2023: net income 616
 * million, diluted numerator 452 million (its warrants' fair-value gain taken out), 1.39 per diluted share on 326
 * million shares (10-K 0001657853-24-000022).
 */
export const EPS_NUMERATORS = {
  _eps_income_basic: flow(
    [
      "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic", // the numerator of basic EPS: after preferred dividends and participating securities
      // A partnership's net income per unit divides its limited partners' share, not what its general partner's interest
      // and incentive distribution rights take: Enterprise Products Partners' 2009 allocated 852.2 million to limited
      // partners and 178.7 million to its general partner (10-K 0001061219-10-000011).
      "us-gaap:NetIncomeLossAllocatedToLimitedPartners",
      "ifrs-full:ProfitLossAttributableToOrdinaryEquityHoldersOfParentEntity", // IFRS (IAS 33): the profit basic EPS divides
    ],
    { checkNeighbours: true, internal: true },
  ),
  _eps_income_diluted: flow(
    [
      "us-gaap:NetIncomeLossAvailableToCommonStockholdersDiluted", // the numerator of diluted EPS: the basic one adjusted for dilutive securities
      "ifrs-full:ProfitLossAttributableToOrdinaryEquityHoldersOfParentEntityIncludingDilutiveEffects", // IFRS (IAS 33): the profit diluted EPS divides
    ],
    { checkNeighbours: true, internal: true },
  ),
} as const satisfies Readonly<Record<string, StatementSpec>>;
export type EpsNumerator = keyof typeof EPS_NUMERATORS;

/** The debt lines of a balance sheet with no debt total, by kind (debtInstruments). */
type InstrumentKind = "notes" | "loans" | "lines_of_credit" | "convertible" | "secured" | "unsecured" | "related_party";
/** Traits of a debt line, not kinds: a secured loan, unsecured notes, a note to a related party. */
const TRAITS: readonly InstrumentKind[] = ["secured", "unsecured", "related_party"];
const CURRENT_INSTRUMENTS = "_current_instruments";
const NONCURRENT_INSTRUMENTS = "_noncurrent_instruments";

/**
 * A small company's balance sheet shows its borrowings by kind, current and non-current: notes payable, loans
 * payable, a line of credit, convertible notes, with no debt total. SUNation's 10-K for 2025 (0000022701-26-000003):
 * current notes 1,763,424 and loans 366,824, which add up to the principal due within a year (2,130,248), and
 * non-current notes 3,457,864 and loans 1,011,508; their long-term debt, 6,643,856, is the principal of all four
 * (the lines are net of 44,236 of discount). Each kind is one series (a kind's concepts are names of one line); the
 * kinds add up, as separate lines. Secured debt and notes to related parties are traits that cut across the kinds (a
 * note may be secured, or owed to a director), so they are added only where the kinds tagged beside them add up to less
 * than they do (Formula.inclusive): else they are the kinds' footnote parts. SUNation's 10-K for 2014
 * (0000897101-15-000326) shows secured debt as its non-current line: 103,603 beside a current portion of 524,220,
 * long-term debt 628,000; its 10-K for 2022 (0000022701-23-000008) its sellers' notes as related-party notes, which
 * its 10-Q of November 2023 re-tags as notes payable (5,339,265 current at 2022-12-31 under both).
 */
function debtInstruments(side: "current" | "noncurrent", concepts: Partial<Record<InstrumentKind, string[]>>): Record<string, StatementSpec> {
  const name = (kind: string) => `_${side}_debt_${kind}`;
  const lines = Object.entries(concepts) as [InstrumentKind, string[]][];
  const kinds = lines.filter(([kind]) => !TRAITS.includes(kind)).map(([kind]) => name(kind));
  const total = side === "current" ? CURRENT_INSTRUMENTS : NONCURRENT_INSTRUMENTS;
  return {
    ...Object.fromEntries(lines.map(([kind, list]) => [name(kind), instant(list, { internal: true })])),
    [total]: instant([], { internal: true, formulas: [within(kinds, ...added(lines.map(([kind]) => name(kind))))] }),
  };
}

/** Internal balance series read by name (statements.ts). */
export const TOTAL_BORROWINGS = "_borrowings";
export const LONG_TERM_DEBT = "_long_term_debt";
/**
 * Long-term debt's principal due after the next two years, from the debt note's maturity table: the filing's word that
 * debt is owed after a year, whatever line of the balance sheet holds it. The table's years follow the fiscal years
 * (a 10-Q's starts with the rest of the current one), so from the third on they fall due more than a year after the
 * table's date.
 */
export const DUE_AFTER_TWO_YEARS = "_due_after_two_years";
const MATURITIES_AFTER_TWO_YEARS: Readonly<Record<string, string>> = {
  _due_in_year_three: "us-gaap:LongTermDebtMaturitiesRepaymentsOfPrincipalInYearThree",
  _due_in_year_four: "us-gaap:LongTermDebtMaturitiesRepaymentsOfPrincipalInYearFour",
  _due_in_year_five: "us-gaap:LongTermDebtMaturitiesRepaymentsOfPrincipalInYearFive",
  _due_after_year_five: "us-gaap:LongTermDebtMaturitiesRepaymentsOfPrincipalAfterYearFive",
};
export const SHARES_OUTSTANDING_TOTAL = "_shares_outstanding_total";

/**
 * Balance sheet instants, components first (a formula reads series computed before it). Debt is the borrowings of
 * the balance sheet: finance leases only where a company's own debt line includes them (Home Depot's); operating
 * lease liabilities never.
 */
export const BALANCE_SERIES: Readonly<Record<string, StatementSpec>> = {
  total_assets: instant(["us-gaap:Assets", "ifrs-full:Assets"], { steady: true }), // total assets (never summed from parts)
  // A partnership's or an LLC's equity is its partners' capital or its members' equity: a publicly traded partnership
  // (a pipeline MLP) tags no stockholders' equity. Each is the parent's, its noncontrolling interest apart.
  equity: instant([
    "us-gaap:StockholdersEquity", // the parent's equity; negative for a deficit (McDonald's since 2016)
    "ifrs-full:EquityAttributableToOwnersOfParent", // the IFRS parent's share
    "us-gaap:PartnersCapital", // a limited partnership's capital: general, limited and preferred partners
    "us-gaap:MembersEquity", // an LLC's members' equity
  ]),
  _minority_interest: instant(
    [
      "us-gaap:MinorityInterest", // noncontrolling interest within equity
      "us-gaap:PartnersCapitalAttributableToNoncontrollingInterest", // a partnership's noncontrolling interest
    ],
    { internal: true },
  ),
  _total_equity: instant(
    [
      "us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest", // total equity, NCI included, where the balance sheet totals it
      "ifrs-full:Equity", // IFRS total equity
      "us-gaap:PartnersCapitalIncludingPortionAttributableToNoncontrollingInterest", // a partnership's total capital
      "us-gaap:LimitedLiabilityCompanyLlcMembersEquityIncludingPortionAttributableToNoncontrollingInterest", // an LLC's total equity
    ],
    { internal: true, formulas: [sum(["equity", 1, true], ["_minority_interest", 1, false])] }, // else the parent's + NCI
  ),
  _liabilities_and_equity: instant(["us-gaap:LiabilitiesAndStockholdersEquity", "ifrs-full:EquityAndLiabilities"], { internal: true }),
  // Mezzanine equity sits between liabilities and equity: neither, so it leaves the derived total of liabilities. Its
  // two parts, where no filing line totals them. Company facts keep the taxonomy's retired names for the filings that
  // used them (SunEdison's 10-Qs of 2012).
  _redeemable_nci: instant(
    [
      "us-gaap:RedeemableNoncontrollingInterestEquityCarryingAmount", // redeemable noncontrolling interest, the usual mezzanine line
      "us-gaap:TemporaryEquityCarryingAmountAttributableToNoncontrollingInterest", // the same until its retirement in the 2014 taxonomy
    ],
    { internal: true },
  ),
  _temporary_equity_parent: instant(["us-gaap:TemporaryEquityCarryingAmountAttributableToParent"], { internal: true }), // redeemable preferred stock and other temporary equity of the parent
  _temporary_equity: instant(
    [
      "us-gaap:TemporaryEquityCarryingAmountIncludingPortionAttributableToNoncontrollingInterests", // the whole mezzanine
      "us-gaap:TemporaryEquityCarryingAmount", // the whole mezzanine until its retirement in the 2012 taxonomy
    ],
    { internal: true, formulas: [sum(["_redeemable_nci", 1, false], ["_temporary_equity_parent", 1, false])] }, // else its parts
  ),
  total_liabilities: instant(
    ["us-gaap:Liabilities", "ifrs-full:Liabilities"], // the total line, where the balance sheet has one
    // Many balance sheets show no total (Walmart, McDonald's, Disney): liabilities and equity − total equity − temporary equity.
    { steady: true, formulas: [sum(["_liabilities_and_equity", 1, true], ["_total_equity", -1, true], ["_temporary_equity", -1, false])] },
  ),
  // A bank's balance sheet (Article 9) has cash and due from banks and interest-bearing deposits in banks, and often no
  // total of its cash and cash equivalents; its cash flow statement ends with that total, since 2018 with restricted
  // cash under the name (Fulton Financial: 1,847,832 thousand at 2020-12-31, beside 120,462 of cash and due from banks,
  // 10-K 0000700564-21-000014). Cash and due from banks marks the bank: elsewhere the end balance holds restricted cash a
  // balance sheet leaves out (Hertz's vehicle programs).
  _cash_due_from_banks: instant(["us-gaap:CashAndDueFromBanks"], { internal: true }),
  _cash_end_balance: instant(["us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents"], { internal: true }),
  cash: instant(
    [
      "us-gaap:CashAndCashEquivalentsAtCarryingValue", // the balance sheet's cash and cash equivalents
      "us-gaap:Cash", // filers with no cash equivalents line (also Alphabet's footnote part: the line above wins)
      "ifrs-full:CashAndCashEquivalents", // IFRS line; ifrs-full:Cash is only its cash-on-hand part
    ],
    // Else, for a bank, its cash flow statement's end balance, until a filing gives a line above for the date.
    { formulas: [{ ...sum(["_cash_end_balance", 1, true]), when: ["_cash_due_from_banks"] }] },
  ),
  // Debt, current: the filing's own total, else short-term borrowings + the current portion of long-term debt. IFRS
  // names its borrowings by the taxonomy's labels: ShorttermBorrowings is "Current borrowings",
  // CurrentPortionOfLongtermBorrowings "Current portion of non-current borrowings", LongtermBorrowings "Non-current
  // portion of non-current borrowings" (there is no ifrs-full:NoncurrentPortionOfNoncurrentBorrowings or
  // CurrentBorrowings element); each covers borrowings of every kind, bonds and loans included.
  _short_term_borrowings: instant(
    [
      "us-gaap:ShortTermBorrowings", // short-term debt, commercial paper included by definition
      "us-gaap:CommercialPaper", // filers whose only short-term line is commercial paper
      "ifrs-full:ShorttermBorrowings", // IFRS "Current borrowings"
    ],
    { internal: true },
  ),
  _current_long_term_debt: instant(
    [
      "us-gaap:LongTermDebtCurrent", // current portion of long-term debt
      "us-gaap:LongTermDebtAndCapitalLeaseObligationsCurrent", // the same with finance leases, for filers whose debt line includes them
      "ifrs-full:CurrentPortionOfLongtermBorrowings", // IFRS "Current portion of non-current borrowings", every kind
    ],
    { internal: true },
  ),
  // IFRS borrowings by kind: a part of the lines above by the taxonomy, yet some filers tag a kind on a line of its own
  // beside a line under the general concept (TSMC: bonds payable beside long-term bank loans under LongtermBorrowings).
  // Bonds only on the current side: loans received current overlap "Current borrowings" in filers' use (both tagged
  // for one line), so adding them could count a line twice.
  _current_bonds: instant(["ifrs-full:CurrentBondsIssuedAndCurrentPortionOfNoncurrentBondsIssued"], { internal: true }),
  ...debtInstruments("current", {
    notes: ["us-gaap:NotesPayableCurrent"], // notes payable due within a year (a small company's bank or seller notes)
    loans: ["us-gaap:LoansPayableCurrent"], // loans payable due within a year
    lines_of_credit: ["us-gaap:LinesOfCreditCurrent"], // a revolving credit line drawn, due within a year (Under Armour's 2017 revolver)
    convertible: ["us-gaap:ConvertibleNotesPayableCurrent", "us-gaap:ConvertibleDebtCurrent"], // convertible notes due within a year, under either name (Marvell's, assumed with Inphi)
    secured: ["us-gaap:SecuredDebtCurrent"], // a trait: secured debt due within a year
    related_party: ["us-gaap:NotesPayableRelatedPartiesClassifiedCurrent"], // a trait: notes owed to related parties, due within a year
  }),
  debt_current: instant(
    [
      "us-gaap:DebtCurrent", // a filer's own total of current debt
      "ifrs-full:CurrentBorrowingsAndCurrentPortionOfNoncurrentBorrowings", // IFRS total of current debt
    ],
    {
      formulas: [
        within(
          ["_short_term_borrowings", "_current_long_term_debt"],
          ["_short_term_borrowings", 1, false],
          ["_current_long_term_debt", 1, false],
          ["_current_bonds", 1, false],
          [CURRENT_INSTRUMENTS, 1, false],
        ),
      ],
    },
  ),
  // Long-term debt, by the taxonomy with its current maturities: the balance sheet line of filers with no current
  // portion (Apple's 10-Qs of 2014: 40,072 million at 2015-03-28) or no current/non-current split (banks). Filers also
  // tag it for the non-current line beside a current portion (Texas Instruments' 10-K for 2012: 4,186 beside 1,500)
  // as well as for the total of the two (SUNation's 10-K for 2014: 628,000 beside 524,220).
  [LONG_TERM_DEBT]: instant(["us-gaap:LongTermDebt"], { internal: true }),
  _noncurrent_borrowings: instant(["ifrs-full:LongtermBorrowings"], { internal: true }), // IFRS "Non-current portion of non-current borrowings", every kind
  _noncurrent_bonds: instant(["ifrs-full:NoncurrentPortionOfNoncurrentBondsIssued"], { internal: true }), // IFRS bonds, a kind of the above
  _noncurrent_loans: instant(["ifrs-full:NoncurrentPortionOfNoncurrentLoansReceived"], { internal: true }), // IFRS loans received, a kind of the above
  ...debtInstruments("noncurrent", {
    notes: ["us-gaap:LongTermNotesPayable"], // notes payable, non-current
    loans: ["us-gaap:LongTermLoansPayable"], // loans payable, non-current
    lines_of_credit: ["us-gaap:LongTermLineOfCredit"], // a credit line drawn and due after a year
    convertible: ["us-gaap:ConvertibleLongTermNotesPayable", "us-gaap:ConvertibleDebtNoncurrent"], // convertible notes, non-current (Snowflake's of 2024)
    secured: ["us-gaap:SecuredLongTermDebt"], // a trait: secured debt, non-current (SUNation's line to 2014)
    // A trait: unsecured debt, non-current. Goldman Sachs' unsecured long-term borrowings, 213,481 million at 2020-12-31
    // beside 12,537 of secured long-term financings (10-K 0001193125-21-049380); it last tagged LongTermDebtNoncurrent
    // at 2019-09-30. Not the current side's UnsecuredDebtCurrent: Goldman's 25,914 is the current portion of its
    // long-term debt, a part of its short-term borrowings' line.
    unsecured: ["us-gaap:UnsecuredLongTermDebt"],
    related_party: ["us-gaap:NotesPayableRelatedPartiesNoncurrent"], // a trait: notes owed to related parties, non-current
  }),
  debt_noncurrent: instant(
    [
      "us-gaap:LongTermDebtNoncurrent", // long-term debt excluding its current portion
      "us-gaap:LongTermDebtAndCapitalLeaseObligations", // the same with finance leases, for filers whose debt line includes them
    ],
    {
      formulas: [
        within(["_noncurrent_borrowings"], ["_noncurrent_borrowings", 1, false], ["_noncurrent_bonds", 1, false], ["_noncurrent_loans", 1, false]),
        // Else long-term debt where the filing tags no current portion of it: then it is the non-current side either
        // way. Beside a current portion, or current lines of notes, loans or credit, it may or may not include them
        // (above; SUNation's 10-K for 2025 sums its current and non-current notes and loans in it), so nothing is made.
        { ...sum([LONG_TERM_DEBT, 1, true]), unless: ["_current_long_term_debt", CURRENT_INSTRUMENTS] },
        // Else the non-current lines of notes, loans and credit of a balance sheet with no long-term debt line.
        sum([NONCURRENT_INSTRUMENTS, 1, true]),
      ],
    },
  ),
  // The filing's total of debt (current and non-current), for total debt where a side is not tagged: an unclassified
  // balance sheet has neither (Hertz's vehicle and non-vehicle debt, 16.3 billion at 2024-12-31, in its debt note's
  // total only).
  [TOTAL_BORROWINGS]: instant(
    [
      "ifrs-full:Borrowings", // IFRS borrowings of every kind
      "us-gaap:DebtLongtermAndShorttermCombinedAmount", // long-term debt, current maturities included, and short-term debt
      "us-gaap:DebtAndCapitalLeaseObligations", // the same with finance leases, for filers whose debt includes them
    ],
    { internal: true },
  ),
  // The maturity table's later years, read only as evidence of debt due after a year (total debt, statements.ts).
  ...Object.fromEntries(Object.entries(MATURITIES_AFTER_TWO_YEARS).map(([name, concept]) => [name, instant([concept], { internal: true })])),
  [DUE_AFTER_TWO_YEARS]: instant([], { internal: true, formulas: [sum(...added(Object.keys(MATURITIES_AFTER_TWO_YEARS)))] }),
  // Shares outstanding on the balance sheet (all classes, undimensioned), where no cover count reaches the date.
  [SHARES_OUTSTANDING_TOTAL]: instant(["us-gaap:CommonStockSharesOutstanding"], { kind: "shares", internal: true }),
};

/** The cover page's count of shares outstanding (dei): instants dated after the period, one per filing. */
export const SHARES_OUTSTANDING_CONCEPT = "dei:EntityCommonStockSharesOutstanding";
export const SHARES_OUTSTANDING: StatementSpec = instant([SHARES_OUTSTANDING_CONCEPT], { kind: "shares", steady: true });

/** Every concept the statements read (the company facts parser keeps these besides the earnings concepts). */
export const STATEMENT_CONCEPTS: ReadonlySet<string> = new Set([
  ...Object.values(CASH_FLOW_SERIES).flatMap((s) => s.concepts),
  ...Object.values(CASH_FLOW_PARTS).flatMap((s) => s.concepts),
  ...Object.values(EPS_NUMERATORS).flatMap((s) => s.concepts),
  ...Object.values(BALANCE_SERIES).flatMap((s) => s.concepts),
  SHARES_OUTSTANDING_CONCEPT,
]);
