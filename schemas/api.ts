// The route table: every endpoint once, with its query schema, payload schema and price. The gateway's
// routing, /probe pricing, x402 route config, OpenAPI, llms.txt and the MCP tools are all generated from it.
import { z } from "zod";
import { EarningsPeriod } from "./earnings.ts";
import { FilingItem } from "./filing.ts";
import { FinancialPeriod } from "./financials.ts";
import { InsiderTransaction } from "./insider.ts";
import { MarketFiling, MarketInsider, ScreenRow } from "./cross.ts";
import { EarningsQuery, FilingsQuery, FinancialsQuery, InsidersQuery, MarketFilingsQuery, MarketInsidersQuery, ProbeQuery, ScreenQuery, SegmentsQuery, TickersQuery } from "./params.ts";
import { SegmentPeriod } from "./segments.ts";
import { Health, ServiceProbe, TickerProbe } from "./probe.ts";
import type { DocumentKind } from "./snapshot.ts";
import { ApiKeyIssued, KeyPending, PortalSession, SuccessQuery, WebhookAck } from "./subscription.ts";
import { TickerList } from "./tickers.ts";

/** Base mainnet, as a CAIP-2 id (x402 v2). */
export const NETWORK = "eip155:8453";
/** USDC on Base; 6 decimals. */
export const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
export const USDC_DECIMALS = 6;
/**
 * How the service names itself to x402 discovery (Bazaar `resource.serviceName`/`tags`: printable ASCII, ≤ 32
 * characters, ≤ 5 tags), and what it is, said once for llms.txt, OpenAPI and MCP's instructions.
 */
export const SERVICE = {
  name: "Filing Data Service",
  tags: ["sec-edgar", "filings", "earnings", "insider-trading", "financial-data"],
  description:
    "US public-company filing data from SEC EDGAR as JSON. For one company: its filings index; earnings and financial " +
    "statements (income, balance sheet, cash flow as discrete quarters, trailing twelve months) derived from its XBRL facts, " +
    "restatements resolved, fiscal labels from the company's fiscal calendar (label_source says whose), fourth quarters " +
    "derived and marked, as filed or as known on any past date; revenue and " +
    "operating income by segment; its insiders' Form 4 transactions. Across every covered company: screens by any of " +
    "those metrics for a calendar quarter, year or the trailing twelve months, and the market's latest filings and " +
    "insider trades. Every value carries the accession number of the filing it came from.",
} as const;
/** The monthly plan (spec 5.5, 8). */
export const SUBSCRIPTION = { usd_per_month: "19.00" } as const;

/** One endpoint of the service. */
export interface Route {
  method: "GET";
  path: string;
  summary: string;
  /**
   * What it answers, in full: MCP's tool description (with its sizes and price: OpenAI's API refuses a function
   * description over 1,024 characters, and hosts that bridge MCP tools to its models pass it on) and llms.txt.
   */
  description: string;
  /**
   * The same in at most 240 characters, when the description is longer: OpenAPI's operation description, price added
   * (GPT Actions refuse one over 300).
   */
  brief?: string;
  query: z.ZodObject;
  payload: z.ZodType;
  /** USD price per call ("$0.01"); null for free endpoints. */
  price: string | null;
  /** The per-ticker document a paid route serves. */
  document: DocumentKind | null;
  /** The cross-company answer a paid route without a ticker serves (issue 40); null for the others. */
  feed: Feed | null;
  /** The MCP tool that mirrors the route; null when it has none. */
  tool: string | null;
  /** A paid route's arguments as discovery (x402 Bazaar) shows them. */
  example?: Record<string, string | number>;
  /**
   * What its MCP tool tells an agent of answer sizes, and the `limit` the tool applies when the agent gives none: agent
   * hosts cap a tool result (Claude Code at 25,000 tokens) and the default answer of the largest company fits (issue 41).
   */
  agent?: { sizes: string; limit?: number };
}

/** The answers across companies (issue 40): a screen, and the market feeds of filings and Form 4 rows. */
export type Feed = "screen" | "market_filings" | "market_insiders";

export const ROUTES = [
  {
    method: "GET",
    path: "/health",
    summary: "Liveness probe",
    description: "Whether the service is up and which snapshot it serves. Free.",
    query: z.object({}),
    payload: Health,
    price: null,
    document: null,
    feed: null,
    tool: null,
  },
  {
    method: "GET",
    path: "/probe",
    summary: "Coverage, freshness and prices",
    description:
      "Free. Without a ticker: the service summary. With one: whether it is covered, how much data exists, how fresh it is, " +
      "which paid endpoints return something for it, and the exact price of every endpoint. Call it before paying: " +
      "an uncovered ticker answers 404 on the paid endpoints and is never charged.",
    brief:
      "Free. Whether a ticker is covered, how much data it has, how fresh it is and what each endpoint costs; without a ticker, the service summary. Call it before paying: an uncovered ticker is 404 on every paid endpoint, never charged.",
    query: ProbeQuery,
    payload: z.union([TickerProbe, ServiceProbe]),
    price: null,
    document: null,
    feed: null,
    tool: "probe_coverage",
    agent: { sizes: "About 2 KB." },
  },
  {
    method: "GET",
    path: "/tickers",
    summary: "Every covered ticker",
    description:
      "Free. Every ticker the service covers, sorted, with its CIK, company name and freshness (when its documents were " +
      "built; its newest filing, period end and Form 4). The list changes only when a new snapshot is published: send " +
      "the ETag back in If-None-Match for a 304, and Accept-Encoding: gzip for a compressed answer.",
    brief:
      "Free. Every covered ticker, sorted, with its CIK, company name and freshness (newest filing, period end and Form 4). limit and offset page; send the ETag back in If-None-Match for a 304.",
    query: TickersQuery,
    payload: TickerList,
    price: null,
    document: null,
    feed: null,
    tool: "list_tickers",
    agent: { sizes: "About 200 bytes a ticker; 200 tickers (about 40 KB) unless limit says otherwise, offset pages on (meta.total, meta.next_offset).", limit: 200 },
  },
  {
    method: "GET",
    path: "/filings/latest",
    summary: "Latest filings for a ticker",
    description:
      "The company's EDGAR filings, newest first (acceptance time), optionally one form type, up to `limit`. A company given a new CIK " +
      "by a holding-company reorganisation also lists its earlier CIK's filings (each URL under the CIK that filed it; /probe names " +
      "the earlier CIKs).",
    brief:
      "A company's EDGAR filings, newest first (acceptance time), optionally of one form type; limit and offset page.",
    query: FilingsQuery,
    payload: z.array(FilingItem),
    price: "$0.01",
    document: "filings",
    feed: null,
    tool: "get_latest_filings",
    agent: { sizes: "About 600 bytes a filing: the default 20 are about 12 KB; form narrows, offset pages on (meta.total, meta.next_offset)." },
    example: { ticker: "AAPL" },
  },
  {
    method: "GET",
    path: "/earnings/summary",
    summary: "Earnings from XBRL company facts",
    description:
      "Fiscal years, quarters (Q4 derived and marked) and year-to-date periods: revenue, net income (the parent's " +
      "share), operating income, gross profit, basic and diluted EPS and weighted shares. Restatements resolve to the " +
      "latest filing; fiscal labels follow the company's fiscal calendar (label_source says whose); each fiscal year " +
      "uses one concept per metric; years whose quarters do not add up are marked (reconciled: false), unit-scale " +
      "slips corrected and marked, reverse mergers marked (one_entity). Every value names its concept, unit and " +
      "source accession. as_of: as known on a date; history=true: every value each metric had.",
    brief:
      "Revenue, net income, operating income, gross profit, EPS and shares by fiscal year and quarter (Q4 derived), from XBRL company facts: restatements resolved, each value traceable to its filing. as_of: as known on a date.",
    query: EarningsQuery,
    payload: z.array(EarningsPeriod),
    price: "$0.02",
    document: "earnings",
    feed: null,
    tool: "get_earnings_summary",
    agent: { sizes: "About 2.6 KB a period: the newest 8 (about 21 KB) unless limit says otherwise; period (a year, a frame, annual, quarterly) narrows, offset pages on (meta.total, meta.next_offset). history=true multiplies the size.", limit: 8 },
    example: { ticker: "AAPL" },
  },
  {
    method: "GET",
    path: "/insiders",
    summary: "Form 4 insider transactions",
    description:
      "Every transaction row of the issuer's Forms 4 and 4/A (two-year look-back), newest first (limit and offset page), with owners and roles, codes " +
      "and their meaning, prices (null when given only in a footnote), footnotes, the 10b5-1 flag and amendments marked. A company " +
      "given a new CIK by a holding-company reorganisation also has its earlier CIK's Forms 4 (issuer_cik as filed).",
    brief:
      "Every Form 4 and 4/A transaction row of the issuer (two-year look-back), newest first: owners and roles, codes, prices, footnotes, the 10b5-1 flag. since narrows; limit and offset page.",
    query: InsidersQuery,
    payload: z.array(InsiderTransaction),
    price: "$0.01",
    document: "insiders",
    feed: null,
    tool: "get_insider_transactions",
    agent: { sizes: "About 1.9 KB a transaction row: the newest 20 (about 38 KB) unless limit says otherwise; since narrows, offset pages on (meta.total, meta.next_offset).", limit: 20 },
    example: { ticker: "AAPL" },
  },
  {
    method: "GET",
    path: "/financials",
    summary: "Financial statements: income, balance sheet, cash flow, trailing twelve months",
    description:
      "The income statement (the /earnings/summary metrics), the balance sheet at each quarter and year end (assets, " +
      "liabilities, the parent's equity, cash, current and non-current debt, cover-page shares outstanding) and cash " +
      "flows (operating, capital expenditure, free cash flow, dividends, repurchases) as discrete quarters, derived " +
      "from the 10-Qs' year-to-date figures and marked derived. Outflows are positive. period=ttm: trailing twelve " +
      "months, null with the reason where a quarter is missing or a year does not add up. Labels, restatements and " +
      "marks as /earnings/summary; every value names its concept and accession. as_of and history as there.",
    brief:
      "Income statement, balance sheet and cash flows (discrete quarters) by fiscal year and quarter, and trailing twelve months (period=ttm), from XBRL company facts; each value traceable to its filing. as_of: as known on a date.",
    query: FinancialsQuery,
    payload: z.array(FinancialPeriod),
    price: "$0.03",
    document: "financials",
    feed: null,
    tool: "get_financials",
    agent: { sizes: "About 5.7 KB a period with every statement (one statement: about a third): the newest 6 (about 34 KB) unless limit says otherwise; statement and period narrow, offset pages on (meta.total, meta.next_offset). history=true multiplies the size.", limit: 6 },
    example: { ticker: "AAPL" },
  },
  {
    method: "GET",
    path: "/segments",
    summary: "Segments: revenue and operating income by business, product and region",
    description:
      "Revenue and operating income (or the segment profit measure the company reports: the concept says which) by " +
      "business segment, product or service and region, for fiscal years, quarters (the fourth derived) and " +
      "year-to-date, from each 10-K's and 10-Q's own inline XBRL (2019 on). Members are named as filed and as " +
      "labelled (\"Greater China\"). The latest presentation is served, a recast marked, earlier ones with " +
      "history=true. Members reconcile to the consolidated figure with the filing's reconciling items; a remainder is " +
      "shown, never forced. Fiscal labels as /earnings/summary; every value names its concept, unit and accession. " +
      "as_of: as known on a date.",
    brief:
      "Revenue and operating income by business segment, product and region, per fiscal year and quarter, from each 10-K's and 10-Q's inline XBRL, reconciled to the consolidated figure. as_of: as known on a date.",
    query: SegmentsQuery,
    payload: z.array(SegmentPeriod),
    price: "$0.02",
    document: "segments",
    feed: null,
    tool: "get_segments",
    agent: { sizes: "About 2 KB a period and axis: the newest 12 rows (about 24 KB) unless limit says otherwise; axis and period narrow, offset pages on (meta.total, meta.next_offset). history=true multiplies the size.", limit: 12 },
    example: { ticker: "AAPL", axis: "business", period: "FY2023" },
  },
  {
    method: "GET",
    path: "/screen",
    summary: "Screen every covered company by one metric",
    description:
      "One metric (any of /earnings/summary or /financials) of every covered company for a calendar frame (CY2024Q3, CY2024) or its " +
      "latest trailing twelve months (ttm), filtered (min, max, SIC, exchange), ranked (order) and paged (limit, offset; meta.total and " +
      "meta.next_offset). Each row's value is the company's own /financials answer for that period, byte for byte — the same restatement " +
      "rule, derived fourth quarters, fiscal labels and marks (a scale correction, an unreconciled year, a split-unadjusted value stay in, " +
      "marked) — with its source accession and filing date. as_of runs the screen as it could have been run that day. A company without " +
      "the metric for the frame is absent.",
    brief:
      "One metric of every covered company for a calendar quarter (CY2024Q3), year (CY2024) or the trailing twelve months (ttm), filtered by value, SIC and exchange, ranked and paged; each value the company's own /financials figure.",
    query: ScreenQuery,
    payload: z.array(ScreenRow),
    price: "$0.05",
    document: null,
    feed: "screen",
    tool: "screen_companies",
    agent: { sizes: "About 600 bytes a row: the default 50 are about 30 KB; min, max, sic and exchange narrow, offset pages on." },
    example: { metric: "revenue", period: "CY2024Q3", limit: 20 },
  },
  {
    method: "GET",
    path: "/market/insiders",
    summary: "Form 4 insider transactions of every covered issuer",
    description:
      "Every covered issuer's Form 4 and 4/A rows with a transaction since a date (default the last 7 days; at most 90), newest first, " +
      "each as /insiders gives it with the issuer's ticker and name; filters code (P open-market purchases), min_value (shares × price, " +
      "USD) and role (officer, director, ten_percent_owner); limit and offset page (meta.total, meta.next_offset).",
    brief:
      "Every covered issuer's Form 4 rows with a transaction since a date (default 7 days back, at most 90), newest first; filters code (P: purchases), min_value and role; limit and offset page.",
    query: MarketInsidersQuery,
    payload: z.array(MarketInsider),
    price: "$0.02",
    document: null,
    feed: "market_insiders",
    tool: "get_market_insider_activity",
    agent: { sizes: "About 1.5 KB a row: 20 rows (about 30 KB) unless limit says otherwise; code, min_value, role and since narrow, offset pages on.", limit: 20 },
    example: { code: "P", min_value: 1000000 },
  },
  {
    method: "GET",
    path: "/market/filings",
    summary: "Filings of every covered company",
    description:
      "Every covered company's EDGAR filings since a date (default today, UTC; at most 7 days back), newest first (acceptance time), each " +
      "as /filings/latest gives it with the company's ticker, CIK and name; filters form (exact) and item (8-K items, e.g. 2.02 results); " +
      "limit and offset page (meta.total, meta.next_offset).",
    brief:
      "Every covered company's filings since a date (default today, at most 7 days back), newest first; filters form and 8-K item (2.02: results); limit and offset page.",
    query: MarketFilingsQuery,
    payload: z.array(MarketFiling),
    price: "$0.01",
    document: null,
    feed: "market_filings",
    tool: "get_market_filings",
    agent: { sizes: "About 700 bytes a row: the default 50 are about 35 KB; form, item and since narrow, offset pages on." },
    example: { form: "8-K", item: "2.02" },
  },
] as const satisfies readonly Route[];

export type RouteEntry = (typeof ROUTES)[number];
/** A paid route over one ticker's document. */
export type TickerRoute = Extract<RouteEntry, { document: DocumentKind }>;
/** A paid route across companies (issue 40). */
export type FeedRoute = Extract<RouteEntry, { feed: Feed }>;
/** Every paid route: the core charges either kind alike. */
export type PaidRoute = TickerRoute | FeedRoute;

/** The paid routes, in table order. */
export const PAID_ROUTES = ROUTES.filter((r): r is PaidRoute => r.price !== null);
/** The paid routes over one ticker's document. */
export const TICKER_ROUTES = ROUTES.filter((r): r is TickerRoute => r.document !== null);

/** "$0.02" → "20000" (USDC atomic units), exact in integer arithmetic. */
export function usdToAtomic(usd: string): string {
  const match = /^\$(\d+)(?:\.(\d{1,6}))?$/.exec(usd);
  if (!match) throw new Error(`bad USD price "${usd}"`);
  const cents = (match[2] ?? "").padEnd(USDC_DECIMALS, "0");
  return (BigInt(match[1]!) * 10n ** BigInt(USDC_DECIMALS) + BigInt(cents)).toString();
}

/** The endpoints through which agents find and learn the service (issue 5); free, not in the data route table. */
export const DISCOVERY_ROUTES = [
  { method: "GET", path: "/openapi.json", summary: "This API description (OpenAPI 3.1)", contentType: "application/json" },
  { method: "GET", path: "/llms.txt", summary: "A plain-text guide for language models (llmstxt.org)", contentType: "text/plain" },
  { method: "POST", path: "/mcp", summary: "MCP endpoint (streamable HTTP, stateless, JSON responses; MCP 2026-07-28 and 2025)", contentType: "application/json" },
] as const;

/** A documented response of a subscription route: a JSON body (the error body when "error"), an HTML page, headers. */
export interface RouteResponse {
  description: string;
  json?: z.ZodType | "error";
  html?: true;
  headers?: Record<string, string>;
}

/** A subscription endpoint (issue 7): outside the data table, never paid per call. */
export interface SubscriptionRoute {
  method: "GET" | "POST";
  path: string;
  summary: string;
  description: string;
  query: z.ZodObject;
  /** Request headers the route reads (documented as header parameters). */
  header: z.ZodObject | null;
  /** Who may call: anyone, the holder of a subscription key, or Stripe (signed body). */
  auth: "none" | "key" | "stripe-signature";
  responses: Record<string, RouteResponse>;
}

const UNAVAILABLE: RouteResponse = { description: "Subscriptions are not configured, or Stripe did not answer (`subscriptions_unavailable`).", json: "error" };
const WRONG_METHOD: RouteResponse = { description: "Another method than the one documented (`method_not_allowed`).", json: "error" };

/** The subscription endpoints: checkout, the one-time key display, Stripe's webhook, the billing portal. */
export const SUBSCRIPTION_ROUTES = [
  {
    method: "GET",
    path: "/subscribe",
    summary: `Subscribe: USD ${SUBSCRIPTION.usd_per_month} a month, unlimited calls with one API key`,
    description:
      "Opens a Stripe Checkout page (card payment). After payment Stripe returns the browser to /subscribe/success, which shows the key once. " +
      "A browser that comes back (its cookie) is sent to the Checkout Session it already has while it is open.",
    query: z.object({}),
    header: null,
    auth: "none",
    responses: {
      "303": {
        description: "Redirect to the Stripe Checkout page.",
        headers: { Location: "The Checkout Session URL.", "Set-Cookie": "When a new session was created: `fds_checkout`, naming it until shortly before it expires." },
      },
      "405": WRONG_METHOD,
      "429": { description: "Too many requests from this address (`rate_limited`), as on the free endpoints.", json: "error", headers: { "Retry-After": "Seconds to wait." } },
      "503": UNAVAILABLE,
    },
  },
  {
    method: "GET",
    path: "/subscribe/success",
    summary: "The new subscription's API key, shown exactly once",
    description:
      "Where Stripe returns the subscriber. The first visit shows the key (HTML, or JSON with `Accept: application/json`); " +
      "later visits answer 410. Until Stripe's webhook has arrived it answers 202: retry after a few seconds.",
    query: SuccessQuery,
    header: null,
    auth: "none",
    responses: {
      "200": { description: "The key, shown this once.", json: ApiKeyIssued, html: true },
      "202": { description: "Payment not yet confirmed by Stripe's webhook; retry shortly.", json: KeyPending, html: true, headers: { "Retry-After": "Seconds to wait." } },
      "400": { description: "session_id is missing or malformed (`invalid_parameter`).", json: "error" },
      "405": WRONG_METHOD,
      "410": { description: "The key was already shown (`key_already_shown`).", json: "error", html: true },
      "503": UNAVAILABLE,
    },
  },
  {
    method: "POST",
    path: "/webhooks/stripe",
    summary: "Stripe webhook (checkout, subscription and invoice events)",
    description:
      "Called by Stripe only. The raw body must carry a valid `Stripe-Signature`; the same event twice is harmless. Handles " +
      "checkout.session.completed, customer.subscription.updated, customer.subscription.deleted and invoice.payment_failed.",
    query: z.object({}),
    header: z.object({ "stripe-signature": z.string().meta({ description: "Stripe's signature of the raw body (t=…,v1=…)." }) }),
    auth: "stripe-signature",
    responses: {
      "200": { description: "Processed (or already processed: `duplicate`).", json: WebhookAck },
      "400": { description: "Unsigned, wrongly signed, stale, malformed or cut short (`invalid_parameter`).", json: "error" },
      "405": WRONG_METHOD,
      "503": {
        description: "Not configured (`subscriptions_unavailable`), Stripe's API or the store did not answer (`stripe_unavailable`, `storage_unavailable`); Stripe retries later.",
        json: "error",
      },
    },
  },
  {
    method: "POST",
    path: "/billing/portal",
    summary: "Manage the subscription: a Stripe Billing Portal link (cancel, card, invoices)",
    description: "Send the subscription key as `Authorization: Bearer <key>` or `X-API-Key`. Answers the URL of a short-lived portal session.",
    query: z.object({}),
    header: null,
    auth: "key",
    responses: {
      "200": { description: "The portal session's URL.", json: PortalSession },
      "400": { description: "The key is valid but not a subscription key (`invalid_parameter`).", json: "error" },
      "401": { description: "No key, or an unknown or revoked one (`invalid_api_key`).", json: "error" },
      "405": WRONG_METHOD,
      "503": UNAVAILABLE,
    },
  },
] as const satisfies readonly SubscriptionRoute[];
