// Payloads of the two free endpoints: /health and /probe (spec 4.1, 4.2; DESIGN "Field names": Probe).
import { z } from "zod";
import { Cik, IsoDateTime } from "./primitives.ts";
import { Counts, CoverageReason, Endpoints, FeedGap, FollowedFiling, Freshness, LagSummary, type Manifest } from "./snapshot.ts";

/** The price of one paid endpoint, in USD and in the asset the x402 payment moves. */
export const EndpointPrice = z.object({
  usd: z.string().meta({ example: "$0.01" }),
  amount: z.string().meta({ description: "Atomic units of the asset (USDC has 6 decimals).", example: "10000" }),
  asset: z.string().meta({ example: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }),
  network: z.string().meta({ example: "eip155:8453" }),
  scheme: z.literal("exact"),
});

export const Pricing = z.object({
  endpoints: z.record(z.string(), EndpointPrice.nullable()).meta({ description: "Per path; null for free endpoints." }),
  subscription: z.object({ usd_per_month: z.string(), unlimited: z.boolean(), how: z.string() }),
});
export type Pricing = z.infer<typeof Pricing>;

export const Health = z.object({
  status: z.literal("ok"),
  snapshot: z.string().nullable(),
  built_at: IsoDateTime.nullable(),
  keys_stale_since: IsoDateTime.nullable().meta({
    description:
      "Since when the store could not be read for API keys: each key is judged by its state last read (a key known " +
      "revoked stays refused; a key never seen is answered 503), and revocations made since are not seen yet. Null " +
      "while keys are read fresh (every 10 s per key in use).",
  }),
});
export type Health = z.infer<typeof Health>;

/** Whether the follower (`dataset follow`) publishes to this store now. */
export const FollowerState = z.enum(["running", "paused", "stopped", "off"]).meta({
  description:
    "running: it holds the writer lease and reports; paused: a build holds the lease for its publish; stopped: its lease " +
    "was released or expired (answers are as fresh as the last publish); off: no follower has published to this store.",
});

/** The follower, for the service summary: how far it has published, how quickly, and whether it is polling. */
export const FollowerProbe = z
  .object({
    state: FollowerState,
    last_poll_at: IsoDateTime.nullable().meta({ description: "Its last poll of EDGAR's feed, as of its last report (it reports every few seconds)." }),
    reported_at: IsoDateTime.nullable(),
    through: IsoDateTime.nullable().meta({ description: "Every filing the feed listed as accepted by then is published (or listed in gaps)." }),
    lag_s: LagSummary.nullable().meta({ description: "Seconds from seen in the feed to published, over its last hour." }),
    queued: z.number().int().nonnegative().nullable(),
    gaps: z.array(FeedGap).meta({ description: "Spans the feed could not cover, filled from EDGAR's daily indexes as they appear." }),
    unconfirmed: z.number().int().nonnegative().meta({ description: "Recent filings EDGAR's submissions did not list in time; the next build reconciles them." }),
    published_filings: z.number().int().nonnegative(),
  })
  .meta({ id: "FollowerProbe" });
export type FollowerProbe = z.infer<typeof FollowerProbe>;

/** /probe?ticker=T: everything a client needs to decide whether to pay. */
export const TickerProbe = z
  .object({
    ticker_coverage: z.object({
      ticker: z.string(),
      covered: z.boolean(),
      cik: Cik.nullable(),
      earlier_ciks: z.array(Cik).meta({
        description: "Earlier CIKs holding part of the company's history (a holding-company reorganisation gave it a new CIK): the paid answers hold their filings, facts and Form 4s too.",
      }),
      name: z.string().nullable(),
      reason: z.union([CoverageReason, z.literal("unknown_ticker")]).nullable(),
      evidence: z.string().nullable().meta({
        description: "When not covered: what the builder found (e.g. that the source has no company facts for the CIK), or that the snapshot has no entry for the ticker.",
      }),
    }),
    counts: Counts,
    freshness: Freshness,
    follower: z
      .object({
        state: FollowerState,
        last_poll_at: IsoDateTime.nullable(),
        last_update: FollowedFiling.nullable().meta({ description: "The newest filing the follower published for this ticker, with its lag." }),
      })
      .meta({ description: "The follower that publishes new filings within a minute; see /probe for its service-wide lag." }),
    endpoints: Endpoints,
    pricing: Pricing,
  })
  .meta({ id: "TickerProbe" });

/** Buckets of a covered ticker's document age: its `freshness.built_at` before the snapshot's `built_at`. */
export const AGE_BUCKETS = ["under_12h", "12h_to_24h", "1d_to_3d", "over_3d"] as const;

/** How fresh the covered tickers' documents are: each is rebuilt every run unless its source failed. */
export const FreshnessSummary = z.object({
  built_at_age: z.object(Object.fromEntries(AGE_BUCKETS.map((b) => [b, z.number().int().nonnegative()])) as Record<(typeof AGE_BUCKETS)[number], z.ZodNumber>).meta({
    description: "Covered tickers by the age of their documents (freshness.built_at) relative to the snapshot's built_at.",
  }),
  oldest_built_at: IsoDateTime.nullable(),
});
export type FreshnessSummary = z.infer<typeof FreshnessSummary>;

const HOUR = 3_600_000;

/** Counts covered tickers by document age relative to the manifest's own built_at (shared by /probe and the report). */
export function summarizeFreshness(manifest: Manifest): FreshnessSummary {
  const built = Date.parse(manifest.built_at);
  const out: FreshnessSummary = { built_at_age: { under_12h: 0, "12h_to_24h": 0, "1d_to_3d": 0, over_3d: 0 }, oldest_built_at: null };
  for (const e of Object.values(manifest.tickers)) {
    if (!e.covered || e.freshness.built_at === null) continue;
    const age = built - Date.parse(e.freshness.built_at);
    const bucket = age < 12 * HOUR ? "under_12h" : age < 24 * HOUR ? "12h_to_24h" : age < 72 * HOUR ? "1d_to_3d" : "over_3d";
    out.built_at_age[bucket]++;
    if (out.oldest_built_at === null || e.freshness.built_at < out.oldest_built_at) out.oldest_built_at = e.freshness.built_at;
  }
  return out;
}

/** /probe without a ticker: the service summary. */
export const ServiceProbe = z
  .object({
    snapshot: z.object({ build_id: z.string(), built_at: IsoDateTime }).nullable(),
    universe: z.number().int().nonnegative(),
    covered: z.number().int().nonnegative(),
    not_covered: z.record(z.string(), z.number().int().nonnegative()),
    freshness: FreshnessSummary,
    follower: FollowerProbe,
    pricing: Pricing,
  })
  .meta({ id: "ServiceProbe" });
