// The free endpoints' payloads: /health, and /probe with and without a ticker (spec 4.1, 4.2).
import { NETWORK, PAID_ROUTES, ROUTES, SUBSCRIPTION, USDC_BASE, usdToAtomic } from "../schemas/api.ts";
import { summarizeFreshness, type FreshnessSummary, type Pricing } from "../schemas/probe.ts";
import { uncoveredBecause } from "./coverage.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

/** Prices of every endpoint and of the subscription, from the route table. */
export const PRICING: Pricing = {
  endpoints: Object.fromEntries(
    ROUTES.map((r) => [r.path, r.price ? { usd: r.price, amount: usdToAtomic(r.price), asset: USDC_BASE, network: NETWORK, scheme: "exact" as const } : null]),
  ),
  subscription: {
    usd_per_month: SUBSCRIPTION.usd_per_month,
    unlimited: true,
    how: "One API key for every data endpoint and MCP tool; send it as `Authorization: Bearer <key>` or `X-API-Key: <key>`.",
  },
};

/** /health. */
export function healthPayload(snapshot: LoadedSnapshot | null) {
  return { status: "ok" as const, snapshot: snapshot?.pointer.build_id ?? null, built_at: snapshot?.pointer.built_at ?? null };
}

/** /probe without a ticker: the service summary. */
export function serviceProbe(snapshot: LoadedSnapshot) {
  const entries = Object.values(snapshot.manifest.tickers);
  const notCovered: Record<string, number> = {};
  for (const e of entries) if (!e.covered) notCovered[e.reason ?? "unknown"] = (notCovered[e.reason ?? "unknown"] ?? 0) + 1;
  return {
    snapshot: { build_id: snapshot.pointer.build_id, built_at: snapshot.pointer.built_at },
    universe: entries.length,
    covered: entries.filter((e) => e.covered).length,
    not_covered: notCovered,
    freshness: freshnessSummary(snapshot),
    pricing: PRICING,
  };
}

const summaries = new WeakMap<LoadedSnapshot, FreshnessSummary>();

/** Covered tickers by document age, relative to the snapshot (not the clock: a snapshot's answer never drifts). */
export function freshnessSummary(snapshot: LoadedSnapshot): FreshnessSummary {
  const memo = summaries.get(snapshot);
  if (memo) return memo;
  const out = summarizeFreshness(snapshot.manifest);
  summaries.set(snapshot, out);
  return out;
}

/** /probe?ticker=T: coverage, counts, freshness, which endpoints answer, prices. An unknown ticker is not covered. */
export function tickerProbe(snapshot: LoadedSnapshot, ticker: string) {
  const entry = Object.hasOwn(snapshot.manifest.tickers, ticker) ? snapshot.manifest.tickers[ticker] : undefined;
  const endpoints = Object.fromEntries(PAID_ROUTES.map((r) => [r.path, entry?.endpoints[r.path] ?? false])) as Record<(typeof PAID_ROUTES)[number]["path"], boolean>;
  return {
    ticker_coverage: {
      ticker,
      covered: entry?.covered ?? false,
      cik: entry?.cik ?? null,
      name: entry?.name ?? null,
      reason: entry ? (entry.covered ? null : (entry.reason ?? null)) : ("unknown_ticker" as const),
      evidence: entry ? (entry.covered ? null : uncoveredBecause(entry)) : "the published snapshot has no entry for this ticker",
    },
    counts: entry?.counts ?? { filings: 0, earnings_periods: 0, insider_transactions: 0 },
    freshness: entry?.freshness ?? { newest_filing: null, newest_period_end: null, newest_form4: null, built_at: null },
    endpoints,
    pricing: PRICING,
  };
}
