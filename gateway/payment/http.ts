// The payment core's HTTP adapter (x402 specs/transports-v2/http.md): credentials from the request's headers, a
// refusal as 402 with PAYMENT-REQUIRED (and PAYMENT-RESPONSE when settling failed), a receipt as PAYMENT-RESPONSE.
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { CORS_HEADERS } from "../http/cors.ts";
import type { CallRecord } from "./call-record.ts";
import type { Credentials, PaidOutcome, PaymentCore, PaymentRefusal } from "./core.ts";
import { readPaymentHeader } from "./payload.ts";
import { refusalBody } from "./refusal.ts";
import type { Sender } from "./refusal-limit.ts";

/**
 * The credentials of an HTTP request: its API key, else its PAYMENT-SIGNATURE, and its sender, whom a refused payment
 * costs a token of the per-address limit (a genuine payment or key costs nothing); the call's record, if kept.
 */
export function httpCredentials(headers: Headers, sender: Sender, record: CallRecord | null): Credentials {
  const key = presentedKey(headers);
  return { key, payment: key === null ? readPaymentHeader(headers.get("payment-signature")) : { kind: "none" }, sender, record };
}

/** The id of a request's key verified moments ago (no await), null otherwise: the keyed hot path. */
export function trustedKey(core: PaymentCore, headers: Headers, now: number): string | null {
  const auth = headers.get("authorization");
  // Only the exact `Bearer <key>` form is looked up (a remembered key has no spaces, so a match needs no more
  // parsing); every other form, odd spacing included, is read by presentedKey in the pipeline.
  const key = auth === null ? headers.get("x-api-key") : auth.startsWith("Bearer ") ? auth.slice(7) : null;
  return key === null ? null : core.trustedKeyId(key, now);
}

/** The key a client presents: `Authorization: Bearer <key>` or `X-API-Key: <key>`; null when none. */
export function presentedKey(headers: Headers): string | null {
  const auth = headers.get("authorization");
  if (auth) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return match ? match[1]! : auth;
  }
  const apiKey = headers.get("x-api-key");
  return apiKey ? apiKey.trim() : null;
}

/** The 402 for a refusal: the requirements in PAYMENT-REQUIRED, a failed settlement in PAYMENT-RESPONSE, our error body. */
export function refusalResponse(refusal: PaymentRefusal): Response {
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    ...CORS_HEADERS,
    "payment-required": encoded(refusal.required),
    ...(refusal.settlement ? { "payment-response": encodePaymentResponseHeader(refusal.settlement) } : {}),
  };
  return new Response(JSON.stringify(refusalBody(refusal)), { status: 402, headers });
}

/** The headers a settled answer carries (none for a key or an empty answer); a kept answer served again says so. */
export function receiptHeaders({ receipt, replayed }: PaidOutcome): Record<string, string> {
  if (!receipt) return {};
  const headers = { ...CORS_HEADERS, "payment-response": encodePaymentResponseHeader(receipt) };
  return replayed ? { ...headers, "idempotent-replayed": "true" } : headers;
}

const ENCODED = new WeakMap<PaymentRequired, string>();

/** PAYMENT-REQUIRED's value; the shared unpaid offers are encoded once (an unpaid flood costs no base64 per 402). */
function encoded(required: PaymentRequired): string {
  let header = ENCODED.get(required);
  if (header === undefined) ENCODED.set(required, (header = encodePaymentRequiredHeader(required)));
  return header;
}
