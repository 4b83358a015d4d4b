// Payloads of the two free endpoints: /health and /probe (spec 4.1, 4.2; DESIGN "Field names": Probe).
import { z } from "zod";
import { Cik, IsoDateTime } from "./primitives.ts";
import { Counts, CoverageReason, Endpoints, Freshness } from "./snapshot.ts";

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
});

/** /probe?ticker=T: everything a client needs to decide whether to pay. */
export const TickerProbe = z
  .object({
    ticker_coverage: z.object({
      ticker: z.string(),
      covered: z.boolean(),
      cik: Cik.nullable(),
      name: z.string().nullable(),
      reason: z.union([CoverageReason, z.literal("unknown_ticker")]).nullable(),
    }),
    counts: Counts,
    freshness: Freshness,
    endpoints: Endpoints,
    pricing: Pricing,
  })
  .meta({ id: "TickerProbe" });

/** /probe without a ticker: the service summary. */
export const ServiceProbe = z
  .object({
    snapshot: z.object({ build_id: z.string(), built_at: IsoDateTime }).nullable(),
    universe: z.number().int().nonnegative(),
    covered: z.number().int().nonnegative(),
    not_covered: z.record(z.string(), z.number().int().nonnegative()),
    pricing: Pricing,
  })
  .meta({ id: "ServiceProbe" });
