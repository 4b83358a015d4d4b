// The route table: every endpoint once, with its query schema, payload schema and price. The gateway's
// routing, /probe pricing, x402 route config, OpenAPI, llms.txt and the MCP tools are all generated from it.
import { z } from "zod";
import { EarningsPeriod } from "./earnings.ts";
import { FilingItem } from "./filing.ts";
import { InsiderTransaction } from "./insider.ts";
import { EarningsQuery, FilingsQuery, InsidersQuery, ProbeQuery } from "./params.ts";
import { Health, ServiceProbe, TickerProbe } from "./probe.ts";
import type { DocumentKind } from "./snapshot.ts";

/** Base mainnet, as a CAIP-2 id (x402 v2). */
export const NETWORK = "eip155:8453";
/** USDC on Base; 6 decimals. */
export const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
export const USDC_DECIMALS = 6;
/** The monthly plan (spec 5.5, 8). */
export const SUBSCRIPTION = { usd_per_month: "19.00" } as const;

/** One endpoint of the service. */
export interface Route {
  method: "GET";
  path: string;
  summary: string;
  description: string;
  query: z.ZodObject;
  payload: z.ZodType;
  /** USD price per call ("$0.01"); null for free endpoints. */
  price: string | null;
  /** The per-ticker document a paid route serves. */
  document: DocumentKind | null;
  /** The MCP tool that mirrors the route; null when it has none. */
  tool: string | null;
}

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
    query: ProbeQuery,
    payload: z.union([TickerProbe, ServiceProbe]),
    price: null,
    document: null,
    tool: "probe_coverage",
  },
  {
    method: "GET",
    path: "/filings/latest",
    summary: "Latest filings for a ticker",
    description: "The company's EDGAR filings, newest first (acceptance time), optionally one form type, up to `limit`.",
    query: FilingsQuery,
    payload: z.array(FilingItem),
    price: "$0.01",
    document: "filings",
    tool: "get_latest_filings",
  },
  {
    method: "GET",
    path: "/earnings/summary",
    summary: "Earnings from XBRL company facts",
    description:
      "Fiscal years, quarters (Q4 derived and marked) and year-to-date periods with revenue, net income (the parent's share), " +
      "operating income, gross profit, EPS and diluted shares. Restated values resolve to the latest filing; fiscal labels " +
      "are those of the original filing. Every value names its concept, unit and source accession.",
    query: EarningsQuery,
    payload: z.array(EarningsPeriod),
    price: "$0.02",
    document: "earnings",
    tool: "get_earnings_summary",
  },
  {
    method: "GET",
    path: "/insiders",
    summary: "Form 4 insider transactions",
    description:
      "Every transaction row of the issuer's Forms 4 and 4/A (two-year look-back), newest first, with owners and roles, codes " +
      "and their meaning, prices (null when given only in a footnote), footnotes, the 10b5-1 flag and amendments marked.",
    query: InsidersQuery,
    payload: z.array(InsiderTransaction),
    price: "$0.01",
    document: "insiders",
    tool: "get_insider_transactions",
  },
] as const satisfies readonly Route[];

export type RouteEntry = (typeof ROUTES)[number];
export type PaidRoute = Extract<RouteEntry, { document: DocumentKind }>;

/** The paid routes, in table order. */
export const PAID_ROUTES = ROUTES.filter((r): r is PaidRoute => r.document !== null);

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
  { method: "POST", path: "/mcp", summary: "MCP endpoint (streamable HTTP, stateless, JSON responses)", contentType: "application/json" },
] as const;
