// The demo buyer's x402 client, also the one the tests pay with: a payer on Base (optionally naming every payment with
// a payment identifier), and x402 over MCP from the spec's client rules (x402 specs/transports-v2/mcp.md).
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/core/client";
import { parsePaymentRequired } from "@x402/core/schemas";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { appendPaymentIdentifierToExtensions } from "@x402/extensions/payment-identifier";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/** Base mainnet (CAIP-2). */
const BASE = "eip155:8453";

/**
 * An x402 client that pays exact-EVM requirements on Base by signing with `privateKey`. With `paymentId`, every
 * payment carries it (the payment-identifier extension, appended to the server's declaration as @x402/extensions
 * documents), so a request repeated with it is answered again without a second charge.
 */
export function payer(privateKey: Hex, paymentId?: string): x402Client {
  const client = new x402Client().register(BASE, new ExactEvmScheme(privateKeyToAccount(privateKey)));
  if (paymentId === undefined) return client;
  return client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    if (paymentRequired.extensions) appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId);
  });
}

/**
 * The PaymentRequired of a tool result, looked for as the spec's client rules say: `structuredContent`, else
 * `content[0].text` parsed as JSON. Null when the result asks for no payment.
 */
export function paymentRequiredOf(result: CallToolResult): PaymentRequired | null {
  if (!result.isError) return null;
  const first = result.content[0];
  for (const candidate of [result.structuredContent, first?.type === "text" ? first.text : undefined]) {
    let value: unknown = candidate;
    if (typeof candidate === "string") {
      try {
        value = JSON.parse(candidate);
      } catch {
        continue; // not JSON: no payment asked here
      }
    }
    const parsed = parsePaymentRequired(value);
    if (parsed.success && parsed.data.x402Version === 2) return parsed.data as PaymentRequired;
  }
  return null;
}

/** What the buyer needs of an MCP client: tools/call (the official v1 and v2 clients alike). */
export interface ToolCaller {
  callTool(params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> }): Promise<unknown>;
}

/** A tool called as an x402 MCP client calls it: the first result, and when it asked for payment, what was paid. */
export interface ToolCallPaid {
  unpaid: CallToolResult;
  /** The payload signed for the requirements the first result asked for; null when it asked for none. */
  payload: PaymentPayload | null;
  /** The result of the paid call; the first result again when nothing was asked. */
  paid: CallToolResult;
}

/**
 * Calls a tool as an x402 MCP client does: unpaid first; when the result asks for payment, signs the requirements
 * and calls again with the payload in `_meta["x402/payment"]` (the receipt comes back in `_meta["x402/payment-response"]`).
 */
export async function callPaying(client: ToolCaller, buyer: x402Client, name: string, args: Record<string, unknown>): Promise<ToolCallPaid> {
  const unpaid = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const required = paymentRequiredOf(unpaid);
  if (!required) return { unpaid, payload: null, paid: unpaid };
  const payload = await buyer.createPaymentPayload(required);
  const paid = (await client.callTool({ name, arguments: args, _meta: { "x402/payment": payload } })) as CallToolResult;
  return { unpaid, payload, paid };
}
