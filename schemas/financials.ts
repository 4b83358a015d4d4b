// Financial statements served by /financials (issue 18): the income statement (the earnings metrics), the balance
// sheet at each period end, cash flows as truly discrete quarters, and trailing twelve months — with the provenance,
// labels and series rules of /earnings/summary. Field names follow DESIGN "Field names".
import { z } from "zod";
import { EarningsPeriod, HistoryEntry, INVARIANTS, Metric, METRIC_NAMES, PeriodException, Reconciliation } from "./earnings.ts";
import { Accession, IsoDate } from "./primitives.ts";

/** The statements a row may carry; `statement` selects one of them (or all). */
export const STATEMENTS = ["income", "balance", "cash_flow"] as const;
export type Statement = (typeof STATEMENTS)[number];

/** Income statement: exactly the metrics of /earnings/summary, with the same values. */
export const INCOME_METRICS = METRIC_NAMES;
/** Balance sheet: instants at the period end. */
export const BALANCE_METRICS = [
  "total_assets",
  "total_liabilities",
  "equity",
  "cash",
  "debt_current",
  "debt_noncurrent",
  "total_debt",
  "shares_outstanding",
] as const;
/** Cash flow statement: flows of the period. */
export const CASH_FLOW_METRICS = ["operating_cash_flow", "capital_expenditure", "free_cash_flow", "dividends_paid", "share_repurchases"] as const;

export const STATEMENT_METRICS = { income: INCOME_METRICS, balance: BALANCE_METRICS, cash_flow: CASH_FLOW_METRICS } as const;
export const FINANCIAL_METRIC_NAMES = [...INCOME_METRICS, ...BALANCE_METRICS, ...CASH_FLOW_METRICS] as const;
/** The metrics of a period's flows (income and cash flow): what reports the period itself, unlike an instant. */
export const FLOW_METRICS = [...INCOME_METRICS, ...CASH_FLOW_METRICS] as const;
export const FinancialMetricName = z.enum(FINANCIAL_METRIC_NAMES);
export type FinancialMetricName = z.infer<typeof FinancialMetricName>;
export type BalanceMetricName = (typeof BALANCE_METRICS)[number];
export type CashFlowMetricName = (typeof CASH_FLOW_METRICS)[number];

/** What each balance and cash-flow metric is, with its sign convention (stated once here: OpenAPI and the tool schema carry it). */
const DESCRIPTIONS: Record<BalanceMetricName | CashFlowMetricName, string> = {
  total_assets: "Total assets at the period end.",
  total_liabilities:
    "Total liabilities at the period end; where the company tags no total, liabilities and equity − total equity − temporary equity of the same filing (derived, with its components).",
  equity: "Equity attributable to the parent at the period end (negative for a deficit); a partnership's partners' capital, an LLC's members' equity.",
  cash: "Cash and cash equivalents at the period end (restricted cash excluded), from the balance sheet; a bank's with no such line, its cash flow statement's end balance (its concept says so).",
  debt_current:
    "Debt due within a year: short-term borrowings and commercial paper plus the current portion of long-term debt, with the current notes, loans, credit lines and convertible notes a balance sheet shows beside them (components listed when summed; one line a filing tags under two of them at the same amount counts once).",
  debt_noncurrent:
    "Long-term debt excluding its current portion (components listed when summed); us-gaap:LongTermDebt where the filing tags no current portion of it nor current lines of notes, loans or credit (then it is the non-current side either way); else the non-current notes, loans, credit lines and convertible notes a balance sheet shows with no long-term debt line (secured and unsecured debt added where no kind beside them holds them).",
  total_debt:
    "debt_current + debt_noncurrent as served (derived when both are present); where a side is missing, the filing's own total of debt (ifrs-full:Borrowings, us-gaap:DebtLongtermAndShorttermCombinedAmount or DebtAndCapitalLeaseObligations: an unclassified balance sheet has no sides), else the side there is. Null when only the current side is known beside long-term debt (us-gaap:LongTermDebt) that may or may not include it, or beside a maturity table showing long-term debt due after two years (on its date, or in the year after an annual report's): the company's long-term line is then under a tag of its own.",
  shares_outstanding:
    "Common shares outstanding for the whole company: the filing's cover page count, as of its own date (`as_of`, on or after the period end); where no cover count reaches the period (a cover that gives counts per class only is dimensioned, and company facts leave it out), the balance sheet's total (us-gaap:CommonStockSharesOutstanding) at the period end. Null with the reason in `unavailable` when neither is filed.",
  operating_cash_flow: "Net cash from operating activities (negative when operations used cash).",
  capital_expenditure:
    "Capital expenditure as a positive outflow: cash paid for property, plant and equipment or for all productive assets, or, where the cash flow statement has no total, the sum of its lines for the kinds of PP&E bought (oil and gas properties and other PP&E; the concept and `components` say which). Null with the reason in `unavailable` where the company's standard concepts carry only part of it (PP&E other than its main class).",
  free_cash_flow: "operating_cash_flow − capital_expenditure of the period (always derived).",
  dividends_paid:
    "Dividends paid in cash to the company's shareholders (the cash flow statement's, not those declared), as a positive outflow, wherever the statement classifies them (IFRS allows operating activities): common and preferred, their sum where the statement shows them on lines of their own and no total (derived, with `components`); noncontrolling interests' dividends on a line of their own are not added. A partnership's distributions to its limited partners. A 10-Q's year to date whose cash flow statement leaves the line out (nothing paid, in a company that reports the line), or that lies within a longer span some filing gives as 0, is 0, marked derived.",
  share_repurchases:
    "Cash paid to repurchase the company's own shares, as a positive outflow. A 10-Q's year to date whose cash flow statement leaves the line out (nothing paid, in a company that reports the line), or that lies within a longer span some filing gives as 0, is 0, marked derived.",
};

/** A share count's own date. */
const AsOf = {
  as_of: IsoDate.optional().meta({ description: "shares_outstanding only: the date of the count (the cover page's, or the balance sheet's period end)." }),
};

/** A history entry as `history=true` lists it: a value that was never the answer is marked. */
const Listed = {
  served: z.literal(false).optional().meta({
    description:
      "false: filed for this period but never the answer (another concept than the one the fiscal year uses, a 10-Q's twelve-month figure for a fiscal year, a value another filing of the same day superseded); absent: the answer from its effective date (the last such entry up to as_of is the value served).",
  }),
};

/** A history entry of a statement metric: the earnings entry, with a share count's date. */
export const StatementHistoryEntry = HistoryEntry.extend({ ...AsOf, ...Listed }).meta({ id: "StatementHistoryEntry" });
export type StatementHistoryEntry = z.infer<typeof StatementHistoryEntry>;

/** One statement metric: an earnings metric, with a share count's date and basis. */
export const StatementMetric = Metric.extend({
  ...AsOf,
  split_unadjusted: z.boolean().optional().meta({
    description:
      "shares_outstanding only: true when the count was filed before a stock split the filings had shown by the reading date (as_of, else today): a count on the old basis, unlike the weighted shares and EPS filed since, which were restated for it (share counts are never restated).",
  }),
  history: z.array(StatementHistoryEntry).optional().meta({
    description:
      "With history=true: every value filed for this period (one per filing: its value under the metric's highest-priority concept) and every value computed for it, in filing order (up to as_of when given); those never served are marked served: false.",
  }),
}).meta({ id: "StatementMetric" });
export type StatementMetric = z.infer<typeof StatementMetric>;

function group<const N extends readonly string[]>(names: N, id: string) {
  const shape = Object.fromEntries(
    names.map((name) => [name, StatementMetric.nullable().meta(name in DESCRIPTIONS ? { description: DESCRIPTIONS[name as keyof typeof DESCRIPTIONS] } : {})]),
  ) as Record<N[number], z.ZodNullable<typeof StatementMetric>>;
  return z.object(shape).meta({ id });
}
export const IncomeStatement = group(INCOME_METRICS, "IncomeStatement");
export const BalanceSheet = group(BALANCE_METRICS, "BalanceSheet");
export const CashFlowStatement = group(CASH_FLOW_METRICS, "CashFlowStatement");
export type IncomeStatement = z.infer<typeof IncomeStatement>;
export type BalanceSheet = z.infer<typeof BalanceSheet>;
export type CashFlowStatement = z.infer<typeof CashFlowStatement>;

/**
 * The invariants of the statements: the earnings invariants, and those the statements add (issue 18): a fiscal year's
 * balance is its Q4's, a TTM is its year or its quarters' sum, an outflow is never negative.
 */
export const FINANCIAL_INVARIANTS = [...INVARIANTS, "year_end_balance", "ttm", "sign"] as const;
export const FinancialInvariant = z.enum(FINANCIAL_INVARIANTS);
export type FinancialInvariant = z.infer<typeof FinancialInvariant>;

/** An earnings exception (PeriodException) over the statements' invariants and metrics. */
export const FinancialException = PeriodException.extend({ rule: FinancialInvariant, metric: FinancialMetricName.nullable() }).meta({ id: "FinancialException" });
export type FinancialException = z.infer<typeof FinancialException>;

/** An earnings reconciliation (Reconciliation) over the statements' flows. */
export const FinancialReconciliation = Reconciliation.extend({ metric: FinancialMetricName }).meta({ id: "FinancialReconciliation" });
export type FinancialReconciliation = z.infer<typeof FinancialReconciliation>;

/** Why a metric of a (non-TTM) row is null though the company reports its kind: what company facts do not carry. */
export const ROW_GAPS = ["class_counts_only", "partial_capital_expenditure", "not_derivable"] as const;
export const Unavailable = z
  .object({ metric: FinancialMetricName, reason: z.enum(ROW_GAPS), message: z.string() })
  .meta({ id: "Unavailable" });
export type Unavailable = z.infer<typeof Unavailable>;

/** Why a trailing-twelve-month value is null. */
export const TTM_GAPS = ["missing_quarter", "missing_value", "unreconciled", "no_weighted_shares", "split_basis", "entity_change", "no_eps_numerator"] as const;

/** How a trailing-twelve-month row was made: the periods summed (or the fiscal year) and what could not be. */
export const Ttm = z
  .object({
    basis: z.enum(["fiscal_year", "four_quarters"]).meta({
      description: "fiscal_year: the latest period is a fiscal year end, so the TTM is that year as filed; four_quarters: the sum of the latest four discrete quarters.",
    }),
    periods: z
      .array(
        z.object({
          fiscal_year: z.number().int(),
          fiscal_quarter: z.enum(["Q1", "Q2", "Q3", "Q4", "FY"]),
          period_start: IsoDate,
          period_end: IsoDate,
          derived: z.boolean(),
          accessions: z.array(Accession).meta({ description: "The filings this period's values came from." }),
        }),
      )
      .meta({ description: "The periods the TTM is made of, oldest first." }),
    unavailable: z
      .array(
        z.object({
          metric: FinancialMetricName,
          reason: z.enum(TTM_GAPS).meta({
            description:
              "missing_quarter: fewer than four quarters chain to the period end; missing_value: a quarter (or the year) lacks the metric; unreconciled: a fiscal year among them whose quarters miss it; no_weighted_shares: a weighted share count the TTM count is made of is not filed; split_basis: those counts were filed on both sides of a stock split (or do not combine), so they are of two bases; entity_change: the values it would sum were filed on both sides of a change of reporting entity (a reverse merger), so they describe two companies; no_eps_numerator: the company's EPS divides other than its net income (after preferred dividends or participating securities), and that numerator is not known for every period the TTM is reckoned from (the last fiscal year and the two years to date).",
          }),
          message: z.string(),
        }),
      )
      .meta({ description: "Flows whose TTM is null, and why (as of as_of when given)." }),
  })
  .meta({ id: "Ttm" });
export type Ttm = z.infer<typeof Ttm>;

/**
 * One period of the statements: the labels, dates and provenance fields of an earnings period, and the statements
 * (each present unless `statement` selected another). Balance sheets sit on quarters and fiscal years (a
 * year-to-date period ends on its quarter's date: its balance is that quarter's); TTM rows carry `ttm`.
 */
export const FinancialPeriod = EarningsPeriod.omit({ metrics: true, reconciliation: true, exceptions: true })
  .extend({
    derived: z.boolean().meta({ description: "True when the period itself was not filed: a Q4 from the year, a cash-flow quarter from year-to-date figures, a TTM." }),
    reconciliation: z.array(FinancialReconciliation).meta({ description: "Fiscal years whose quarters do not add up: each flow's difference." }),
    exceptions: z.array(FinancialException),
    income: IncomeStatement.optional(),
    balance: BalanceSheet.nullable().optional().meta({ description: "Null on year-to-date and TTM rows (the quarter ending the same day carries the balance)." }),
    cash_flow: CashFlowStatement.optional(),
    unavailable: z.array(Unavailable).default([]).meta({
      description:
        "Metrics this row has null for a stated reason (a metric a company simply does not report is null without one): shares_outstanding of a company whose filings give counts per class only (class_counts_only); capital_expenditure and free_cash_flow where the standard concepts carry only part of the capital spending (partial_capital_expenditure), TTM rows too; a quarter's cash flow that its fiscal year reports but that is neither filed for the quarter nor the difference of two years to date of one concept and vintage the filings give (not_derivable; free_cash_flow with the flow it lacks). Why a TTM sum is null is in ttm.unavailable.",
    }),
    ttm: Ttm.nullable().meta({ description: "Set on trailing-twelve-month rows (period=ttm), null otherwise." }),
  })
  .meta({ id: "FinancialPeriod" });
export type FinancialPeriod = z.infer<typeof FinancialPeriod>;
