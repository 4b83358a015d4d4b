// Query parameters of every endpoint, with the spec's constraints (spec 4.2–4.5, 8).
// The gateway validates requests with these; OpenAPI and the MCP tool inputs are generated from them.
import { z } from "zod";
import { IsoDate, TickerInput } from "./primitives.ts";

/**
 * A `limit` from 1 to `max`. Query strings must be plain digits, no more than `max` has (`1e2` or ` 5` are refused); MCP
 * clients may send a number. Documented as an integer.
 */
function limitUpTo(max: number) {
  const error = `limit must be a whole number from 1 to ${max}`;
  const digits = new RegExp(`^\\d{1,${String(max).length}}$`);
  return z.preprocess(
    (v) => (typeof v === "string" && digits.test(v) ? Number(v) : v),
    z.number({ error }).int(error).min(1, "limit must be at least 1").max(max, `limit must be at most ${max}`),
  );
}

/** `limit` of /filings/latest: 1..100, default 20 (spec 4.3, 8). */
const Limit = limitUpTo(100)
  .default(20)
  .meta({ description: "Maximum number of filings returned, 1 to 100.", default: 20, example: 20, override: { default: 20 } });

/** The most rows `limit` asks of the period endpoints: more than any company has (a century of quarters and years). */
const MAX_PERIOD_ROWS = 1000;

/**
 * `limit` of the period endpoints (an extension of spec 4.4, like `as_of`): the newest rows of those the other
 * parameters select; omitted, all of them — an agent's tool call needs a bound its host accepts.
 */
const PeriodLimit = limitUpTo(MAX_PERIOD_ROWS)
  .optional()
  .meta({
    description:
      `The newest N rows of those the other parameters select, 1 to ${MAX_PERIOD_ROWS} (rows come by period end, newest first, and at one ` +
      "end the shortest first: a quarter before its year to date). Omitted: all of them. With period=quarterly, 4 gives the latest " +
      "four quarters; with period=annual, the latest N fiscal years.",
    example: 4,
  });

/** The period forms of spec 4.4. */
export const PERIOD_PATTERN = /^(annual|quarterly|interim|(FY)?\d{4}|CY\d{4}(Q[1-4])?)$/i;

export const ProbeQuery = z.object({
  ticker: TickerInput.optional(),
});

/** GET /tickers takes no parameters. */
export const TickersQuery = z.object({});

export const FilingsQuery = z.object({
  ticker: TickerInput,
  form: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9 \-/]{0,19}$/, "form must be an SEC form type like 10-K, 8-K, 4 or 10-K/A")
    .optional()
    .meta({ description: "SEC form type; matches exactly, case-insensitively (10-K does not match 10-K/A).", example: "10-K" }),
  limit: Limit,
});

/** `history`: `true` or `false` in a query string; MCP clients may send a boolean. Documented as a boolean. */
const HISTORY_ERROR = "history must be true or false";
const History = z
  .preprocess((v) => (v === "true" ? true : v === "false" ? false : v), z.boolean({ error: HISTORY_ERROR }))
  .optional()
  .meta({
    description:
      "true: every metric also lists each value it had, in filing order (value, concept, unit, accession, form, filed_at), " +
      "up to as_of when given.",
    example: true,
    override: { type: "boolean" },
  });

export const EarningsQuery = z.object({
  ticker: TickerInput,
  period: z
    .string()
    .regex(PERIOD_PATTERN, "period must be annual, quarterly, interim, a year (2023 or FY2023) or a frame (CY2023Q4, CY2023)")
    .optional()
    .meta({
      description:
        "annual (fiscal years), quarterly (three-month periods, Q4 included), interim (all quarterly-report periods), " +
        "2023 or FY2023 (that fiscal year and its quarters), CY2023Q4 / CY2023 (the SEC calendar frame). Omitted: every period " +
        "the company has reported, often hundreds of kilobytes; a year, a frame or limit gives a handful of rows.",
      example: "quarterly",
    }),
  limit: PeriodLimit,
  as_of: IsoDate.optional().meta({
    description:
      "Point in time (YYYY-MM-DD): the answer as it stood then — only values from filings accepted on or before that day, the " +
      "latest of those winning; periods not yet reported are absent; labels are today's.",
    example: "2020-06-30",
  }),
  history: History,
});

/** The financials' `period`: the earnings forms, and `ttm` (the trailing-twelve-month rows). */
export const FINANCIALS_PERIOD_PATTERN = /^(annual|quarterly|interim|ttm|(FY)?\d{4}|CY\d{4}(Q[1-4])?)$/i;

export const FinancialsQuery = z.object({
  ticker: TickerInput,
  statement: z
    .enum(["income", "balance", "cash_flow", "all"], { error: "statement must be income, balance, cash_flow or all" })
    .optional()
    .meta({
      description:
        "income (the earnings metrics), balance (balance sheet at each quarter and fiscal year end), cash_flow (discrete quarters, " +
        "years to date and years), or all (default). Rows without the chosen statement are left out.",
      example: "cash_flow",
    }),
  period: z
    .string()
    .regex(FINANCIALS_PERIOD_PATTERN, "period must be annual, quarterly, interim, ttm, a year (2023 or FY2023) or a frame (CY2023Q4, CY2023)")
    .optional()
    .meta({
      description:
        "As on /earnings/summary (annual, quarterly, interim, 2023/FY2023, CY2023Q4/CY2023), plus ttm: the trailing-twelve-month rows " +
        "(one per quarter end; at a fiscal year end the year itself). Without ttm no TTM rows are returned. Omitted: every other " +
        "period the company has reported, often hundreds of kilobytes; a year, a frame or limit gives a handful of rows.",
      example: "ttm",
    }),
  limit: EarningsQuery.shape.limit,
  as_of: EarningsQuery.shape.as_of,
  history: History,
});

export const InsidersQuery = z.object({
  ticker: TickerInput,
  since: IsoDate.optional().meta({ description: "Only transactions on or after this date (YYYY-MM-DD)." }),
});

/** A `period` parameter, interpreted. */
export type PeriodFilter =
  | { kind: "annual" }
  | { kind: "quarterly" }
  | { kind: "interim" }
  | { kind: "ttm" }
  | { kind: "fiscal_year"; year: number }
  | { kind: "calendar_frame"; frame: string };

/** Interprets a `period` value already validated against PERIOD_PATTERN. */
export function parsePeriod(value: string): PeriodFilter {
  const upper = value.toUpperCase();
  if (upper === "ANNUAL") return { kind: "annual" };
  if (upper === "QUARTERLY") return { kind: "quarterly" };
  if (upper === "INTERIM") return { kind: "interim" };
  if (upper === "TTM") return { kind: "ttm" };
  if (upper.startsWith("CY")) return { kind: "calendar_frame", frame: upper };
  return { kind: "fiscal_year", year: Number(upper.replace("FY", "")) };
}
