// Which XBRL concepts a segment's revenue and operating income are read from, in priority order (issue 43). Data and
// lookups only: exact concepts, plus one pattern for the segment profit measures filers name themselves.
import type { SegmentMetric } from "../../schemas/segments.ts";

/**
 * Segment revenue, first match per filing and axis. Contract revenue comes before `Revenues`, unlike the earnings' list
 * (build/derive/concepts.ts), because a segment note's table opens with net sales: Walmart's 10-K for fiscal 2025 tags
 * both for each segment, Walmart U.S. 462,415 million net sales (the note's line) and 465,009 million total revenues
 * (with membership income).
 */
export const SEGMENT_REVENUE_CONCEPTS: readonly string[] = [
  "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
  "us-gaap:Revenues",
  "us-gaap:SalesRevenueNet",
  "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax",
  "us-gaap:RevenuesNetOfInterestExpense",
  "us-gaap:RegulatedAndUnregulatedOperatingRevenue",
  "us-gaap:SalesRevenueGoodsNet",
  "us-gaap:SalesRevenueServicesNet",
  "ifrs-full:Revenue",
  "ifrs-full:RevenueFromContractsWithCustomers",
];

/**
 * The segment profit measure, first match per filing and axis: operating income where the company reports it by
 * segment (Apple, Walmart, Alphabet, Home Depot), else the measure its segment note uses (ASC 280 lets it choose).
 * A filer's own concept matching FILER_PROFIT ranks after these and before gross profit.
 */
export const SEGMENT_PROFIT_CONCEPTS: readonly string[] = [
  "us-gaap:OperatingIncomeLoss",
  "ifrs-full:ProfitLossFromOperatingActivities",
  "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
  "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments",
  "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesDomestic",
  "ifrs-full:ProfitLossBeforeTax",
];
const GROSS_PROFIT = ["us-gaap:GrossProfit", "ifrs-full:GrossProfit"];
/** A filer's own segment profit measure (`xyz:SegmentOperatingIncome`, `xyz:AdjustedEBITDA`), never a ratio or an expense. */
const FILER_PROFIT = /(OperatingIncome|OperatingProfit|OperatingEarnings|SegmentProfit|SegmentIncome|SegmentEarnings|SegmentResult|EBITDA|EBIT\b)/i;
const NOT_PROFIT = /(Expense|Margin|Percent|Ratio|PerShare|Tax(es)?$|Cost)/i;
/** An expense line a filer states between its segments' operating income and the consolidated one (Apple's unallocated R&D). */
const EXPENSE = /(Expense|Costs?)(s|Net)?$|Expenses?[A-Z]/;
const STANDARD = /^(us-gaap|ifrs-full|srt|dei):/;

/** The metric a segment fact's concept feeds, or null when it feeds none. */
export function segmentMetric(concept: string): SegmentMetric | null {
  if (SEGMENT_REVENUE_CONCEPTS.includes(concept)) return "revenue";
  return profitRank(concept) === null ? null : "operating_income";
}

/** A concept's place in its metric's priority (lower first); null when it feeds neither. */
export function conceptRank(metric: SegmentMetric, concept: string): number | null {
  if (metric === "revenue") {
    const i = SEGMENT_REVENUE_CONCEPTS.indexOf(concept);
    return i < 0 ? null : i;
  }
  return profitRank(concept);
}

/** Whether a reconciling item's concept is an expense line (it enters the operating income with a minus). */
export function isExpenseConcept(concept: string): boolean {
  const local = concept.slice(concept.indexOf(":") + 1);
  return EXPENSE.test(local);
}

function profitRank(concept: string): number | null {
  const i = SEGMENT_PROFIT_CONCEPTS.indexOf(concept);
  if (i >= 0) return i;
  const local = concept.slice(concept.indexOf(":") + 1);
  if (!STANDARD.test(concept) && FILER_PROFIT.test(local) && !NOT_PROFIT.test(local)) return SEGMENT_PROFIT_CONCEPTS.length;
  const gross = GROSS_PROFIT.indexOf(concept);
  return gross < 0 ? null : SEGMENT_PROFIT_CONCEPTS.length + 1 + gross;
}
