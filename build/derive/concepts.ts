// Which XBRL concepts feed each earnings metric, in priority order (DESIGN "Derivation rules" → Earnings; pitfalls 16–18).
// Data only: no logic beyond lookups, never label or fuzzy matching (pitfall 17: match concepts exactly).
import type { MetricName } from "../../schemas/earnings.ts";
import type { SeriesSpec } from "./observations.ts";

/**
 * A publicly traded partnership reports net income per limited partner unit, never EPS. Enterprise Products Partners
 * (CIK 1061219) tags it under these names, in the bare unit `USD` until 2020 and `USD/shares` from its 10-Q of
 * 2021-05-07 (basic and diluted 1.91 for 2018, 10-K 0001061219-19-000007); before the 2013 taxonomy under the retired
 * two (0.99 for 2009, 10-K 0001061219-11-000009). Every per-share concept is read in the bare currency too
 * (observations.ts `observe`).
 */
const PER_UNIT = {
  basic: "us-gaap:NetIncomeLossPerOutstandingLimitedPartnershipUnitBasicNetOfTax",
  diluted: "us-gaap:NetIncomeLossNetOfTaxPerOutstandingLimitedPartnershipUnitDiluted",
  basicUntil2013: "us-gaap:NetIncomeLossPerOutstandingLimitedPartnershipUnit",
  dilutedUntil2013: "us-gaap:NetIncomeLossPerOutstandingLimitedPartnershipUnitDiluted",
} as const;

/**
 * Taxonomy-qualified concepts per metric. The concept is chosen per period and per filing (pitfall 14: companies
 * change tags), so each list mixes the old and new tags; us-gaap first, then ifrs-full (a filer uses one of them).
 */
export const METRIC_CONCEPTS: Readonly<Record<MetricName, SeriesSpec>> = {
  revenue: {
    kind: "currency",
    additive: true,
    steady: true,
    concepts: [
      "us-gaap:Revenues", // the total-revenue line; for banks and insurers the all-in total (pitfall 16: MetLife, SoFi)
      "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", // ASC 606 total (2018+) for most industrials (Apple)
      "us-gaap:SalesRevenueNet", // pre-2018 "net sales" (Apple, Home Depot, Texas Instruments before ASC 606)
      "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax", // ASC 606 variant with sales taxes inside (REITs, some retailers)
      "us-gaap:RevenuesNetOfInterestExpense", // banks and brokers: total net revenue after interest expense
      // A utility's total operating revenues, regulated and not: Xcel Energy's only revenue concept from its 10-K for
      // 2019 on (11,526 million for 2020, 10-K 0000072903-21-000012; its 10-Qs of 2019 still tagged Revenues).
      "us-gaap:RegulatedAndUnregulatedOperatingRevenue",
      "us-gaap:RealEstateRevenueNet", // REITs before ASC 606
      "us-gaap:SalesRevenueGoodsNet", // Under Armour tagged its pre-2018 total here (a slice elsewhere: McDonald's own-store sales)
      "us-gaap:SalesRevenueServicesNet", // its pair: a service company's pre-2018 total (a slice elsewhere: Home Depot's services)
      "ifrs-full:Revenue", // IFRS total revenue (TSMC's "net revenue")
      "ifrs-full:RevenueFromContractsWithCustomers", // IFRS 15 revenue, used when the total line is not tagged
    ],
  },
  net_income: {
    kind: "currency",
    additive: true,
    steady: false,
    checkNeighbours: true,
    concepts: [
      // Only the parent's share: us-gaap:ProfitLoss includes noncontrolling interests and
      // NetIncomeLossAvailableToCommonStockholdersBasic is after preferred dividends (pitfall 17, Micron).
      "us-gaap:NetIncomeLoss", // net income attributable to the parent
      "ifrs-full:ProfitLossAttributableToOwnersOfParent", // IFRS parent's share, preferred whenever tagged
      "ifrs-full:ProfitLoss", // IFRS filers without a noncontrolling-interest split tag only the total
    ],
  },
  operating_income: {
    kind: "currency",
    additive: true,
    steady: false,
    checkNeighbours: true,
    concepts: [
      "us-gaap:OperatingIncomeLoss", // operating income; often absent for banks and insurers → null, never computed (pitfall 18)
      "ifrs-full:ProfitLossFromOperatingActivities", // IFRS operating profit
    ],
  },
  gross_profit: {
    kind: "currency",
    additive: true,
    steady: false,
    checkNeighbours: true,
    concepts: [
      "us-gaap:GrossProfit", // revenue less cost of revenue, as tagged; not computed when absent
      "ifrs-full:GrossProfit", // the same line under IFRS
    ],
  },
  eps_basic: {
    kind: "per_share",
    additive: false,
    steady: false,
    checkNeighbours: true,
    concepts: [
      "us-gaap:EarningsPerShareBasic", // basic EPS
      "us-gaap:EarningsPerShareBasicAndDiluted", // one tag when basic equals diluted (loss years, simple structures)
      "ifrs-full:BasicEarningsLossPerShare", // IFRS basic EPS
      "ifrs-full:BasicAndDilutedEarningsLossPerShare", // IFRS single EPS line
      PER_UNIT.basic, // a partnership's net income per limited partner unit, basic (it tags no EPS)
      PER_UNIT.basicUntil2013, // the same before the 2013 taxonomy retired the name
    ],
  },
  eps_diluted: {
    kind: "per_share",
    additive: false,
    steady: false,
    checkNeighbours: true,
    concepts: [
      "us-gaap:EarningsPerShareDiluted", // diluted EPS
      "us-gaap:EarningsPerShareBasicAndDiluted", // one tag when basic equals diluted
      "ifrs-full:DilutedEarningsLossPerShare", // IFRS diluted EPS
      "ifrs-full:BasicAndDilutedEarningsLossPerShare", // IFRS single EPS line
      PER_UNIT.diluted, // a partnership's net income per limited partner unit, diluted
      PER_UNIT.dilutedUntil2013, // the same before the 2013 taxonomy retired the name
    ],
  },
  basic_shares: {
    kind: "shares",
    additive: false,
    steady: true,
    concepts: [
      "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic", // basic weighted-average shares, the denominator of basic EPS
      "us-gaap:WeightedAverageNumberOfShareOutstandingBasicAndDiluted", // one count when basic equals diluted
      // A partnership's weighted limited partner units, the denominator of its net income per unit (it tags no shares):
      // Enterprise Products Partners' 2,185.8 million for 2020 (10-K 0001061219-21-000009).
      "us-gaap:WeightedAverageLimitedPartnershipUnitsOutstanding",
      "ifrs-full:WeightedAverageShares", // IFRS basic count ("weighted average number of ordinary shares outstanding")
    ],
  },
  diluted_shares: {
    kind: "shares",
    additive: false,
    steady: true,
    concepts: [
      "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding", // diluted weighted-average shares (pitfall 7: not dei cover counts)
      "us-gaap:WeightedAverageNumberOfShareOutstandingBasicAndDiluted", // one count when basic equals diluted
      // A partnership's diluted weighted units: Enterprise Products Partners' 861.8 million for 2012 (10-K 0001061219-13-000011).
      "us-gaap:WeightedAverageLimitedPartnershipUnitsOutstandingDiluted",
      "ifrs-full:AdjustedWeightedAverageShares", // IFRS diluted count ("adjusted for the effects of dilutive potential shares")
    ],
  },
};

/**
 * A bank's revenue where it tags no total (Article 9 income statements show none): its net interest income + its
 * noninterest income, both of one filing and period, a revenue candidate of its own beside the tagged ones (the
 * largest wins: earnings.ts) — the taxonomy's RevenuesNetOfInterestExpense, for banks that tag no such line. A bank's
 * ASC 606 revenue tag covers only the fees in that standard's scope, a slice of its noninterest income. Fulton
 * Financial's 10-K for 2018 (0000700564-19-000012) tags 195.5 million of
 * RevenueFromContractWithCustomerIncludingAssessedTax and no other revenue concept, beside net interest income of
 * 630.5 million and noninterest income of 195.5 million; Huntington's for 2019 (0000049196-20-000010) 939 million of
 * RevenueFromContractWithCustomerExcludingAssessedTax beside 3,213 and 1,454 million. Both terms are required: many
 * companies tag InterestIncomeExpenseNet for their interest expense, net (Walmart, Disney, Hertz, Under Armour in our
 * mirror), and none of them NoninterestIncome, a line of a bank's income statement.
 */
export const BANK_REVENUE_LINES = ["us-gaap:InterestIncomeExpenseNet", "us-gaap:NoninterestIncome"] as const;

/**
 * Revenue tags that state the same revenue gross of taxes collected for governments: a candidate only when the filing
 * tagged no other revenue for the period, never "the total" over a net figure (see pick in earnings.ts).
 */
export const REVENUE_GROSS_OF_TAX: ReadonlySet<string> = new Set(["us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax"]);

/** Every concept any metric reads; the company facts parser keeps these and drops the other ~500. */
export const EARNINGS_CONCEPTS: ReadonlySet<string> = new Set(Object.values(METRIC_CONCEPTS).flatMap((m) => m.concepts));

/** Every concept the earnings read: the metrics' and the lines a bank's revenue is summed from. */
export const EARNINGS_READ: ReadonlySet<string> = new Set([...EARNINGS_CONCEPTS, ...BANK_REVENUE_LINES]);
