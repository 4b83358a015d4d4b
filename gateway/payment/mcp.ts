// The payment core's MCP adapter (x402 specs/transports-v2/mcp.md, tool-result binding): credentials from the MCP
// request's headers and `_meta["x402/payment"]`; a refusal as an isError result whose content[0].text is the
// PaymentRequired (also under "x402/error"); a settlement in `_meta["x402/payment-response"]`.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { SettleResponse } from "@x402/core/types";
import type { Credentials, PaymentRefusal } from "./core.ts";
import { presentedKey } from "./http.ts";
import { readPayment } from "./payload.ts";
import { refusalBody } from "./refusal.ts";

/** Where a client puts its PaymentPayload in a tools/call request. */
export const PAYMENT_META = "x402/payment";
/** Where the server puts the SettlementResponse in a tool result. */
export const RECEIPT_META = "x402/payment-response";
/** The wrapper an earlier text of the MCP transport spec (and the clients written to it) reads in content[0].text. */
export const ERROR_WRAPPER = "x402/error";

/** The credentials of a tool call: the MCP request's API key, else `_meta["x402/payment"]`. */
export function mcpCredentials(headers: Headers, meta: Record<string, unknown> | undefined): Credentials {
  const key = presentedKey(headers);
  return { key, payment: key === null ? readPayment(meta?.[PAYMENT_META]) : { kind: "none" } };
}

/**
 * A refusal as a tool result: isError, content[0].text the PaymentRequired as JSON (where every x402 MCP client
 * looks once structuredContent is absent), content[1].text our error body. No structuredContent: the tool's
 * declared outputSchema describes its answers, and the official SDK client validates any structuredContent with it.
 * content[0].text is read two ways, so it serves both: the current spec and its reference client parse it as the
 * PaymentRequired itself (unknown keys ignored), clients of the earlier text read `["x402/error"].data` — so it is
 * the PaymentRequired plus `"x402/error": {code: 402, message: <the reason>, data: <the PaymentRequired>}`.
 * A failed settlement also rides in `_meta["x402/payment-response"]` and inside the PaymentRequired.
 */
export function refusalResult(refusal: PaymentRefusal): CallToolResult {
  const { settlement } = refusal;
  const required = settlement ? { ...refusal.required, [RECEIPT_META]: settlement } : refusal.required;
  const wrapped = { ...required, [ERROR_WRAPPER]: { code: 402, message: required.error ?? "Payment required", data: required } };
  return {
    isError: true,
    content: [
      { type: "text", text: JSON.stringify(wrapped) },
      { type: "text", text: JSON.stringify(refusalBody(refusal)) },
    ],
    ...(settlement ? { _meta: { [RECEIPT_META]: settlement } } : {}),
  };
}

/** The `_meta` of a settled answer (undefined for a key or an empty answer). */
export function receiptMeta(receipt: SettleResponse | null): Record<string, unknown> | undefined {
  return receipt ? { [RECEIPT_META]: receipt } : undefined;
}
