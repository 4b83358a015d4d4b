// The free endpoints' payloads: /health, and /probe with and without a ticker (spec 4.1, 4.2).
import { NETWORK, ROUTES, SUBSCRIPTION, TICKER_ROUTES, USDC_BASE, usdToAtomic } from "../../schemas/api.ts";
import { summarizeFreshness, type FollowerProbe, type FreshnessSummary, type Health, type Pricing } from "../../schemas/probe.ts";
import { uncoveredBecause } from "./coverage.ts";
import type { LoadedSnapshot, WriterView } from "./snapshot.ts";

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

/** /health: the snapshot held, and since when API keys are judged by their last states (null: read fresh). */
export function healthPayload(snapshot: LoadedSnapshot | null, keysStaleSince: Date | null): Health {
  return {
    status: "ok",
    snapshot: snapshot?.pointer.build_id ?? null,
    built_at: snapshot?.pointer.built_at ?? null,
    keys_stale_since: keysStaleSince?.toISOString() ?? null,
  };
}

/** /probe without a ticker: the service summary. */
export function serviceProbe(snapshot: LoadedSnapshot, writer: WriterView) {
  const entries = Object.values(snapshot.manifest.tickers);
  const notCovered: Record<string, number> = {};
  for (const e of entries) if (!e.covered) notCovered[e.reason ?? "unknown"] = (notCovered[e.reason ?? "unknown"] ?? 0) + 1;
  return {
    snapshot: { build_id: snapshot.pointer.build_id, built_at: snapshot.pointer.built_at },
    universe: entries.length,
    covered: entries.filter((e) => e.covered).length,
    not_covered: notCovered,
    freshness: freshnessSummary(snapshot),
    follower: followerProbe(snapshot, writer),
    pricing: PRICING,
  };
}

/** The follower as the published manifest and the writer lease show it. */
export function followerProbe(snapshot: LoadedSnapshot, writer: WriterView): FollowerProbe {
  const follow = snapshot.manifest.follow;
  const status = writer.status;
  const held = writer.live ? writer.record?.role : null;
  const state = held === "follow" ? "running" : held === "build" && status ? "paused" : status || follow ? "stopped" : "off";
  return {
    state,
    last_poll_at: status?.last_poll_at ?? null,
    reported_at: status ? (writer.record?.renewed_at ?? null) : null,
    through: follow?.through ?? null,
    lag_s: status?.lag_s ?? null,
    queued: status?.queued ?? null,
    gaps: follow?.gaps ?? [],
    unconfirmed: follow?.unconfirmed.length ?? 0,
    published_filings: follow?.published_filings ?? 0,
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
export function tickerProbe(snapshot: LoadedSnapshot, ticker: string, writer: WriterView) {
  const entry = Object.hasOwn(snapshot.manifest.tickers, ticker) ? snapshot.manifest.tickers[ticker] : undefined;
  const follower = followerProbe(snapshot, writer);
  const endpoints = Object.fromEntries(TICKER_ROUTES.map((r) => [r.path, entry?.endpoints[r.path] ?? false])) as Record<(typeof TICKER_ROUTES)[number]["path"], boolean>;
  return {
    ticker_coverage: {
      ticker,
      covered: entry?.covered ?? false,
      cik: entry?.cik ?? null,
      earlier_ciks: entry?.earlier_ciks ?? [],
      name: entry?.name ?? null,
      reason: entry ? (entry.covered ? null : (entry.reason ?? null)) : ("unknown_ticker" as const),
      evidence: entry ? (entry.covered ? null : uncoveredBecause(entry)) : "the published snapshot has no entry for this ticker",
    },
    counts: entry?.counts ?? { filings: 0, earnings_periods: 0, insider_transactions: 0 },
    freshness: entry?.freshness ?? { newest_filing: null, newest_period_end: null, newest_form4: null, built_at: null },
    follower: { state: follower.state, last_poll_at: follower.last_poll_at, last_update: entry?.followed ?? null },
    endpoints,
    pricing: PRICING,
  };
}
