// The payment core's MCP adapter (x402 specs/transports-v2/mcp.md): credentials from the MCP request's headers and
// `_meta["x402/payment"]`; a refusal as an isError result whose structuredContent is the PaymentRequired (the
// tool-result binding), or as `resultType: "payment_required"` for a client that speaks x402's MCP extension (the
// extension binding); a settlement in `_meta["x402/payment-response"]` either way.
import { CLIENT_CAPABILITIES_META_KEY, type CallToolResult } from "@modelcontextprotocol/server";
import { PaymentRequiredResult, type PaymentRequiredExtensionResult } from "../../schemas/payment.ts";
import { jsonSchemaOf } from "../../schemas/tool-schema.ts";
import type { CallRecord } from "./call-record.ts";
import type { Credentials, PaidOutcome, PaymentRefusal } from "./core.ts";
import type { Sender } from "./refusal-limit.ts";
import { presentedKey } from "./http.ts";
import { readPayment } from "./payload.ts";
import { refusalBody } from "./refusal.ts";

/** Where a client puts its PaymentPayload in a tools/call request. */
export const PAYMENT_META = "x402/payment";
/** Where the server puts the SettlementResponse in a tool result. */
export const RECEIPT_META = "x402/payment-response";
/** Set on an answer served again for its payment identifier: its receipt records a payment made earlier. */
export const REPLAYED_META = "idempotent-replayed";
/** x402's MCP extension (2026-07-28 on), advertised in a client's per-request capabilities and in server/discover. */
export const PAYMENT_EXTENSION = "org.x402/payment";
/** The refusal a refusal result stands for; a symbol key, so never serialised (the SDK's zod pass drops it too). */
const REFUSAL = Symbol("x402 refusal");

const PAYMENT_REQUIRED_SCHEMA = jsonSchemaOf(PaymentRequiredResult, "output");

/** The credentials of a tool call: the MCP request's API key, else `_meta["x402/payment"]`, who sent it, and its record. */
export function mcpCredentials(headers: Headers, meta: Record<string, unknown> | undefined, sender: Sender, record: CallRecord | null): Credentials {
  const key = presentedKey(headers);
  return { key, payment: key === null ? readPayment(meta?.[PAYMENT_META]) : { kind: "none" }, sender, record };
}

/**
 * A paid tool's outputSchema: its answer `{data, meta}`, or the PaymentRequired of a refusal — the spec requires the
 * refusal's structuredContent to be the PaymentRequired, and the SDK client rejects structuredContent its tool's
 * schema does not admit. The answer's definitions stay at the root, where its `$ref`s point.
 */
export function paidOutputSchema(answer: Record<string, unknown>): Record<string, unknown> {
  const { definitions, ...envelope } = answer;
  return { type: "object", anyOf: [envelope, PAYMENT_REQUIRED_SCHEMA], ...(definitions ? { definitions } : {}) };
}

/**
 * A refusal as a tool result: isError, structuredContent the PaymentRequired, content[0].text exactly its JSON (the
 * spec's two required places; the spec's earlier text read structuredContent first too), content[1].text our error
 * body. A failed settlement rides in `_meta["x402/payment-response"]`.
 */
export function refusalResult(refusal: PaymentRefusal): CallToolResult {
  const { required, settlement } = refusal;
  return {
    [REFUSAL]: refusal,
    isError: true,
    structuredContent: required as unknown as Record<string, unknown>,
    content: [
      { type: "text", text: JSON.stringify(required) },
      { type: "text", text: JSON.stringify(refusalBody(refusal)) },
    ],
    ...(settlement ? { _meta: { [RECEIPT_META]: settlement } } : {}),
  };
}

/** The `_meta` of a settled answer (undefined for a key or an empty answer); a kept answer served again says so. */
export function receiptMeta({ receipt, replayed }: PaidOutcome): Record<string, unknown> | undefined {
  if (!receipt) return undefined;
  return replayed ? { [RECEIPT_META]: receipt, [REPLAYED_META]: true } : { [RECEIPT_META]: receipt };
}

/** The refusal behind a tool result made by refusalResult; undefined for any other result. */
export function refusalOf(result: CallToolResult): PaymentRefusal | undefined {
  return (result as { [REFUSAL]?: PaymentRefusal })[REFUSAL];
}

/** True when a request's `_meta` advertises x402's MCP extension in the client's capabilities (its settings: an object). */
export function speaksPaymentExtension(meta: Record<string, unknown> | undefined): boolean {
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  const settings = capabilities?.extensions?.[PAYMENT_EXTENSION];
  return typeof settings === "object" && settings !== null && !Array.isArray(settings);
}

/** A refusal in the extension binding, for a 2026-07-28 client that advertised it: a result, not an error. */
export function extensionRefusal({ required, settlement }: PaymentRefusal): PaymentRequiredExtensionResult {
  const paymentRequired = required as unknown as PaymentRequiredExtensionResult["paymentRequired"]; // x402's type, without zod's index signatures
  return { resultType: "payment_required", paymentRequired, ...(settlement ? { _meta: { [RECEIPT_META]: settlement } } : {}) };
}
