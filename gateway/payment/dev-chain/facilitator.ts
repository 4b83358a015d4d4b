// The dev-mode facilitator: the real @x402 exact-EVM facilitator over the in-memory USDC ledger, in process.
// It must never be used in production: the ledger mints test money, so payments settled here are not payments.
import { x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorClient } from "@x402/core/server";
import type { Network, SupportedResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import type { UsdcLedger } from "./ledger.ts";

/** Base mainnet, the one network the ledger pretends to be. */
export const BASE_NETWORK: Network = "eip155:8453";

/** Builds an in-process FacilitatorClient: x402Facilitator with the exact-EVM scheme for Base, settling on `ledger`. */
export function createLocalFacilitator(ledger: UsdcLedger): FacilitatorClient {
  const facilitator = new x402Facilitator().register(BASE_NETWORK, new ExactEvmScheme(ledger));
  return {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    // x402Facilitator types networks as plain strings; every kind it lists was registered above as a CAIP-2 Network.
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}
