// Shared x402 test helpers: public anvil payer keys, real paying clients, header decoders and a loopback facilitator over the in-memory ledger.
// The keys here are Foundry/anvil's published test keys; a real key must never appear in this file.
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { isPaymentRequiredV2 } from "@x402/core/schemas";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentRequired, SettleResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import type { UsdcLedger } from "../gateway/payments/ledger.ts";
import { BASE_NETWORK, createLocalFacilitator, serveFacilitator, type FacilitatorServer } from "../gateway/payments/local-facilitator.ts";

/** Anvil's well-known accounts #0–#3 (mnemonic "test test … junk"): public test keys, worthless anywhere real. */
export const ANVIL_KEYS = {
  payer: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  payTo: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  secondPayer: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  stranger: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
} as const satisfies Record<string, Hex>;

/** The address of an anvil key. */
export const addressOf = (key: Hex) => privateKeyToAccount(key).address;

/** An x402 client that pays exact-EVM requirements on Base by signing with `privateKey`. */
export function payerClient(privateKey: Hex): x402Client {
  return new x402Client().register(BASE_NETWORK, new ExactEvmScheme(privateKeyToAccount(privateKey)));
}

/** `fetch` that answers a 402 by signing a payment with `privateKey` and retrying, as a real buyer would. */
export function payingFetch(privateKey: Hex): ReturnType<typeof wrapFetchWithPayment> {
  return wrapFetchWithPayment(fetch, payerClient(privateKey));
}

/** Decodes a PAYMENT-REQUIRED header and checks it is a v2 PaymentRequired. */
export function decodePaymentRequired(header: string | null): PaymentRequired {
  const decoded: unknown = decodePaymentRequiredHeader(header ?? "");
  if (!isPaymentRequiredV2(decoded)) throw new Error(`not a v2 PaymentRequired: ${JSON.stringify(decoded)}`);
  return decoded as PaymentRequired;
}

// SettleResponse as the spec writes it (x402 v2 §5.3); @x402/core ships no schema for it.
const SettleResponseSchema = z.looseObject({
  success: z.boolean(),
  transaction: z.string(),
  network: z.string(),
  payer: z.string().optional(),
  errorReason: z.string().optional(),
});

/** Decodes a PAYMENT-RESPONSE header and checks it is a SettleResponse. */
export function decodePaymentResponse(header: string | null): SettleResponse {
  return SettleResponseSchema.parse(decodePaymentResponseHeader(header ?? "")) as SettleResponse;
}

/** A loopback facilitator over `ledger` and the stock HTTPFacilitatorClient pointed at it. */
export type LoopbackFacilitator = FacilitatorServer & { client: HTTPFacilitatorClient };

/** Serves the local facilitator for `ledger` on 127.0.0.1; `timeoutMs` bounds each client call (slow-mode tests). */
export async function startLoopbackFacilitator(
  ledger: UsdcLedger,
  options: { slowMs?: number; timeoutMs?: number } = {},
): Promise<LoopbackFacilitator> {
  const server = await serveFacilitator(createLocalFacilitator(ledger), { slowMs: options.slowMs });
  const client = new HTTPFacilitatorClient({ url: server.url, timeoutMs: options.timeoutMs ?? 10_000 });
  return { ...server, client };
}
