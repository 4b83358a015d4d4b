// Shared x402 test helpers: public anvil payer keys, real paying clients, header decoders and a loopback facilitator over the in-memory ledger.
// The keys here are Foundry/anvil's published test keys; a real key must never appear in this file.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { isPaymentRequiredV2 } from "@x402/core/schemas";
import { HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "@x402/core/types";
import { wrapFetchWithPayment } from "@x402/fetch";
import { keccak256, toHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { UsdcLedger } from "../gateway/payment/dev-chain/ledger.ts";
import { payer } from "../bin/x402-buyer.ts";
import { SettleReceipt } from "../schemas/payment.ts";
import { createLocalFacilitator } from "../gateway/payment/dev-chain/facilitator.ts";
import { serveFacilitator, type FacilitatorServer } from "./_facilitator-server.ts";

/** Anvil's well-known accounts #0–#3 (mnemonic "test test … junk"): public test keys, worthless anywhere real. */
export const ANVIL_KEYS = {
  payer: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  payTo: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  secondPayer: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  stranger: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
} as const satisfies Record<string, Hex>;

/** The address of an anvil key. */
export const addressOf = (key: Hex) => privateKeyToAccount(key).address;

/** An x402 client paying on Base with `privateKey` (and, given one, naming every payment with `paymentId`). */
export { payer as payerClient, paymentRequiredOf, callPaying } from "../bin/x402-buyer.ts";

/**
 * The ledger as a facilitator signs with it, plus a test lever: the next settlement is mined as a reverted
 * transaction (nothing moves, the authorization stays usable), so "settlement failed" paths can be tested.
 */
export function withFailingSettlement(ledger: UsdcLedger): UsdcLedger & { failNextSettlement(): void } {
  let failNext = false;
  const reverted = new Set<Hex>();
  return {
    ...ledger,
    failNextSettlement: () => void (failNext = true),
    writeContract: async (call) => {
      if (!failNext) return ledger.writeContract(call);
      failNext = false;
      const hash = keccak256(toHex(`reverted-tx-${reverted.size + 1}`));
      reverted.add(hash);
      return hash;
    },
    waitForTransactionReceipt: async (args) => (reverted.has(args.hash) ? { status: "reverted" } : ledger.waitForTransactionReceipt(args)),
  };
}

/** `fetch` that answers a 402 by signing a payment with `privateKey` and retrying, as a real buyer would. */
export function payingFetch(privateKey: Hex): ReturnType<typeof wrapFetchWithPayment> {
  return wrapFetchWithPayment(fetch, payer(privateKey));
}

/** The receipt of a paid tool result (`_meta["x402/payment-response"]`), checked against the spec's shape. */
export function receiptOf(result: CallToolResult): SettleResponse | null {
  const receipt = result._meta?.["x402/payment-response"];
  return receipt === undefined ? null : (SettleReceipt.parse(receipt) as SettleResponse);
}

/** Decodes a PAYMENT-REQUIRED header and checks it is a v2 PaymentRequired. */
export function decodePaymentRequired(header: string | null): PaymentRequired {
  const decoded: unknown = decodePaymentRequiredHeader(header ?? "");
  if (!isPaymentRequiredV2(decoded)) throw new Error(`not a v2 PaymentRequired: ${JSON.stringify(decoded)}`);
  return decoded as PaymentRequired;
}

/** Decodes a PAYMENT-RESPONSE header and checks it is a SettleResponse (x402 v2 §5.3). */
export function decodePaymentResponse(header: string | null): SettleResponse {
  return SettleReceipt.parse(decodePaymentResponseHeader(header ?? "")) as SettleResponse;
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

/**
 * Payments a careless or hostile client might send, each made from a valid one by breaking one thing: the shapes of
 * issue 15 (`payload: {}`, a non-numeric value, x402Version 1) and others. Every one must be refused with 402.
 */
export function malformedPayments(valid: PaymentPayload): { name: string; value: unknown }[] {
  const json = JSON.parse(JSON.stringify(valid)) as Record<string, any>;
  const withAuthorization = (change: Record<string, unknown>) => ({
    ...json,
    payload: { ...json.payload, authorization: { ...json.payload.authorization, ...change } },
  });
  return [
    { name: "payload {}", value: { ...json, payload: {} } },
    { name: "non-numeric value", value: withAuthorization({ value: "ten" }) },
    { name: "value past uint256", value: withAuthorization({ value: "1".padEnd(90, "0") }) },
    { name: "x402Version 1", value: { ...json, x402Version: 1 } },
    { name: "no accepted", value: { ...json, accepted: undefined } },
    { name: "negative amount accepted", value: { ...json, accepted: { ...json.accepted, amount: "-1" } } },
    { name: "signature not hex", value: { ...json, payload: { ...json.payload, signature: "0xZZ" } } },
    // Past the 4,096-byte cap, yet within 16 KiB of request headers with the echoed Bazaar block (5,000 bytes no longer
    // fit once every list took offset, issue 41: a larger header is 431 headers_too_large before any payment is read).
    { name: "signature of 4,200 bytes", value: { ...json, payload: { ...json.payload, signature: `0x${"ab".repeat(4200)}` } } },
    { name: "short nonce", value: withAuthorization({ nonce: "0x01" }) },
    { name: "from not an address", value: withAuthorization({ from: "alice" }) },
    { name: "validBefore in exponent form", value: withAuthorization({ validBefore: "1.9e9" }) },
    { name: "bad payment identifier", value: { ...json, extensions: { "payment-identifier": { info: { required: false, id: "short" } } } } },
    { name: "prototype keys", value: JSON.parse('{"__proto__":{"polluted":true},"x402Version":2}') },
    { name: "a string", value: "not a payment" },
    { name: "an array", value: [json] },
    { name: "a number", value: 42 },
  ];
}

/** Captures everything written to the console or stderr until `restore()`, which returns it (nothing, we expect). */
export function quietConsole(): { restore(): string[] } {
  const lines: string[] = [];
  const methods = ["log", "info", "warn", "error", "debug"] as const;
  const saved = methods.map((m) => console[m]);
  const write = process.stderr.write;
  for (const m of methods) console[m] = (...args: unknown[]) => void lines.push(`console.${m}: ${args.map(String).join(" ")}`);
  process.stderr.write = ((chunk: unknown) => (lines.push(`stderr: ${String(chunk)}`), true)) as typeof process.stderr.write;
  return {
    restore: () => {
      methods.forEach((m, i) => (console[m] = saved[i]!));
      process.stderr.write = write;
      return lines;
    },
  };
}

/** A facilitator that counts verify and settle calls on their way to a real one. */
export function counting(inner: FacilitatorClient): FacilitatorClient & { verifies: number; settles: number } {
  const out = {
    verifies: 0,
    settles: 0,
    verify: (...a: Parameters<FacilitatorClient["verify"]>) => (out.verifies++, inner.verify(...a)),
    settle: (...a: Parameters<FacilitatorClient["settle"]>) => (out.settles++, inner.settle(...a)),
    getSupported: () => inner.getSupported(),
  };
  return out;
}
