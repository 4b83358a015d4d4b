// Query parameters of every endpoint, with the spec's constraints (spec 4.2–4.5, 8).
// The gateway validates requests with these; OpenAPI and the MCP tool inputs are generated from them.
import { z } from "zod";
import { FRAME_PATTERN, SCREEN_METRICS } from "./cross.ts";
import { IsoDate, TickerInput } from "./primitives.ts";
import { SegmentAxis } from "./segments.ts";

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
/** Where a page of a list answer starts: the rows before it are skipped (0 by default; issue 40, and issue 41 for every list). */
const Offset = z
  .preprocess(
    (v) => (typeof v === "string" && /^\d{1,7}$/.test(v) ? Number(v) : v),
    z.number({ error: "offset must be a whole number from 0" }).int("offset must be a whole number from 0").min(0, "offset must be a whole number from 0").max(9_999_999, "offset must be at most 9999999"),
  )
  .default(0)
  .meta({ description: "Rows to skip before the page (meta.next_offset of the previous page).", default: 0, example: 50, override: { type: "integer", default: 0 } });

/** `limit` of /tickers: omitted, every covered ticker (issue 41: the MCP tool pages by default). */
const TickersLimit = limitUpTo(100_000).optional().meta({ description: "Tickers returned (sorted by ticker); omitted, all of them.", example: 200 });

export const TickersQuery = z.object({ limit: TickersLimit, offset: Offset });

export const FilingsQuery = z.object({
  ticker: TickerInput,
  form: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9 \-/]{0,19}$/, "form must be an SEC form type like 10-K, 8-K, 4 or 10-K/A")
    .optional()
    .meta({ description: "SEC form type; matches exactly, case-insensitively (10-K does not match 10-K/A).", example: "10-K" }),
  limit: Limit,
  offset: Offset,
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
  offset: Offset,
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
  offset: Offset,
  as_of: EarningsQuery.shape.as_of,
  history: History,
});

/** The most rows `limit` asks of /insiders: more than a two-year look-back holds for any issuer. */
const MAX_INSIDER_ROWS = 10_000;

export const InsidersQuery = z.object({
  ticker: TickerInput,
  since: IsoDate.optional().meta({ description: "Only transactions on or after this date (YYYY-MM-DD)." }),
  limit: limitUpTo(MAX_INSIDER_ROWS)
    .optional()
    .meta({ description: `The newest N transaction rows of those selected, 1 to ${MAX_INSIDER_ROWS}; omitted, all of them.`, example: 20 }),
  offset: Offset,
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

/** Rows of a cross-company answer: 1 to 500, 50 by default (issue 40). */
const FeedLimit = limitUpTo(500)
  .default(50)
  .meta({ description: "Rows returned, 1 to 500 (default 50); `offset` pages on (meta.total counts every row matched, meta.next_offset gives the next page).", default: 50, example: 20, override: { default: 50 } });

/** A number given in a query string (`1e9`, `-5.5`, `2500000000`); MCP clients may send a number. */
function amount(name: string, description: string) {
  const error = `${name} must be a number, like 1000000000 or 1e9`;
  return z
    .preprocess((v) => (typeof v === "string" && /^-?(\d{1,20}(\.\d{1,10})?|\d(\.\d{1,10})?e\d{1,2})$/i.test(v) ? Number(v) : v), z.number({ error }).finite(error))
    .optional()
    .meta({ description, example: 1e9, override: { type: "number" } });
}

/** GET /screen (issue 40): one metric of every covered company for one frame, filtered, ranked and paged. */
export const ScreenQuery = z
  .object({
    metric: z
      .enum(SCREEN_METRICS, { error: `metric must be one of ${SCREEN_METRICS.join(", ")}` })
      .meta({ description: "Any metric of /earnings/summary or /financials, named as there (revenue, net_income, free_cash_flow, total_assets…).", example: "revenue" }),
    period: z
      .string()
      .regex(FRAME_PATTERN, "period must be a calendar frame like CY2024Q3 or CY2024, or ttm")
      .meta({
        description:
          "A calendar frame, as SEC's frames API names them: CY2024Q3, each company's three-month quarter filed under that calendar " +
          "quarter (a balance-sheet metric: its balance at the quarter's end); CY2024, its fiscal year filed under that year; ttm, its " +
          "latest trailing twelve months (flows only). As SEC places them, a quarter belongs to the calendar quarter it overlaps most, " +
          "a fiscal year to the calendar year holding most of its month-ends (the later on a tie): a 52/53-week quarter ending " +
          "2024-09-28 is CY2024Q3; a year to 2025-01-31 is CY2024, its quarter to 2024-10-31 CY2024Q3; a year to June 2024 is " +
          "CY2024, one to March 2024 CY2023. Each row names the company's own fiscal year and quarter.",
        example: "CY2024Q3",
      }),
    as_of: IsoDate.optional().meta({
      description: "The screen as it could have been run that day: each company's value as its own /financials answer gave it as of that date (filings accepted by then).",
      example: "2024-12-31",
    }),
    min: amount("min", "Only values at or above this (in the metric's unit: USD, shares, USD/shares)."),
    max: amount("max", "Only values at or below this."),
    sic: z
      .string()
      .regex(/^\d{2,4}$/, "sic must be a SIC code or its 2- or 3-digit prefix (7372, 737, 73)")
      .optional()
      .meta({ description: "Standard Industrial Classification code from the company's submissions, or its 2- or 3-digit prefix (73: business services; 7372: prepackaged software).", example: "7372" }),
    exchange: z
      .string()
      .regex(/^[A-Za-z][A-Za-z ]{1,19}$/, "exchange must be an exchange name like Nasdaq, NYSE or OTC")
      .optional()
      .meta({ description: "The main ticker's exchange as the company's submissions list it (Nasdaq, NYSE, OTC, CBOE…), case-insensitive.", example: "Nasdaq" }),
    order: z.enum(["desc", "asc"], { error: "order must be desc or asc" }).default("desc").meta({ description: "desc (default): largest first; asc: smallest first.", default: "desc" }),
    limit: FeedLimit,
    offset: Offset,
  })
  .superRefine((q, ctx) => {
    if (q.min !== undefined && q.max !== undefined && q.min > q.max) ctx.addIssue({ code: "custom", path: ["min"], message: `min (${q.min}) is greater than max (${q.max})` });
  });

/** How far back /market/filings reaches (issue 40). */
export const MARKET_FILINGS_DAYS = 7;
/** How far back /market/insiders reaches, and its default (issue 40). */
export const MARKET_INSIDERS_DAYS = 90;
export const MARKET_INSIDERS_DEFAULT_DAYS = 7;

/** GET /market/filings: every covered company's filings since a date, newest first. */
export const MarketFilingsQuery = z.object({
  since: IsoDate.optional().meta({ description: `Filings filed on or after this date (YYYY-MM-DD), at most ${MARKET_FILINGS_DAYS} days back; default today (UTC).`, example: "2026-11-27" }),
  form: FilingsQuery.shape.form,
  item: z
    .string()
    .regex(/^\d{1,2}\.\d{2}$/, "item must be an 8-K item number like 2.02")
    .optional()
    .meta({ description: "Only filings listing this 8-K item (2.02: results of operations; 5.02: officers and directors).", example: "2.02" }),
  limit: FeedLimit,
  offset: Offset,
});

/** GET /market/insiders: every covered issuer's Form 4 rows since a date, newest first. */
export const MarketInsidersQuery = z.object({
  since: IsoDate.optional().meta({
    description: `Rows with a transaction on or after this date (YYYY-MM-DD), at most ${MARKET_INSIDERS_DAYS} days back; default ${MARKET_INSIDERS_DEFAULT_DAYS} days ago (UTC).`,
    example: "2026-11-22",
  }),
  code: z
    .string()
    .regex(/^[A-Za-z]$/, "code must be one transaction code letter (P purchase, S sale, A award…)")
    .transform((c) => c.toUpperCase())
    .optional()
    .meta({ description: "Transaction code: P open-market or private purchase, S sale, A grant or award, M option exercise, F tax withholding, G gift…", example: "P" }),
  min_value: amount("min_value", "Only rows whose value (shares × price, non-derivative rows with a price) is at least this many USD."),
  role: z
    .enum(["officer", "director", "ten_percent_owner"], { error: "role must be officer, director or ten_percent_owner" })
    .optional()
    .meta({ description: "Only rows a reporting owner of this role filed.", example: "officer" }),
  limit: FeedLimit,
  offset: Offset,
});

/** GET /segments (issue 43): a company's segment figures by axis and period, as of a date, paged. */
export const SegmentsQuery = z.object({
  ticker: TickerInput,
  axis: z
    .enum([...SegmentAxis.options, "all"], { error: "axis must be business, product, geography or all" })
    .default("all")
    .meta({
      description:
        "business (us-gaap:StatementBusinessSegmentsAxis: the reportable segments), product (srt:ProductOrServiceAxis), geography " +
        "(srt:StatementGeographicalAxis), or all (default).",
      default: "all",
      example: "business",
    }),
  period: EarningsQuery.shape.period,
  as_of: EarningsQuery.shape.as_of,
  history: History.meta({
    description: "true: each row also lists every presentation of the period on its axis, in filing order (the earlier, recast ones too), up to as_of when given.",
    example: true,
    override: { type: "boolean" },
  }),
  limit: PeriodLimit,
  offset: Offset,
});
