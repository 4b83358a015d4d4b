// A presented x402 payment, read at the edge: the PAYMENT-SIGNATURE header decoded, or `_meta["x402/payment"]` as
// sent, then validated against the exact-EVM payload schema — never cast. A malformed payment is a reason, not an error.
import { createHash } from "node:crypto";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { extractPaymentIdentifier, isValidPaymentId, PAYMENT_ID_MAX_LENGTH, PAYMENT_ID_MIN_LENGTH } from "@x402/extensions/payment-identifier";
import { ExactEvmPaymentPayload } from "../../schemas/payment.ts";
import { printable } from "../http/errors.ts";

/** A well-formed payment, with what the core keys it by. */
export interface PresentedPayment {
  payload: PaymentPayload;
  /** The payer the authorization names (lower case); proven only once the facilitator verified the signature. */
  payer: string;
  /** Payer and EIP-3009 nonce: the authorization itself, whatever else the payload carries. */
  authorization: string;
  /** The authorization's validity window (Unix seconds, in decimal), for the core's own check (window.ts). */
  window: { validAfter: string; validBefore: string };
  /** SHA-256 of the payload as presented: an idempotent retry sends this very payload again. */
  digest: string;
  /** The payment-identifier extension's id (x402 specs/extensions/payment_identifier.md); null when none. */
  id: string | null;
}

/** What a request carried: no payment, a malformed one (with the reason), or a well-formed one. */
export type PaymentReading = { kind: "none" } | { kind: "malformed"; reason: string } | { kind: "payment"; payment: PresentedPayment };

const NONE: PaymentReading = { kind: "none" };

/** Reads a PAYMENT-SIGNATURE header (base64 JSON of a PaymentPayload). */
export function readPaymentHeader(header: string | null): PaymentReading {
  if (header === null || header === "") return NONE;
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(header);
  } catch {
    return { kind: "malformed", reason: "invalid_payload: PAYMENT-SIGNATURE is not base64-encoded JSON" };
  }
  return readPayment(decoded);
}

/** Reads a payment given as a JSON value (`_meta["x402/payment"]`, or a decoded header); only undefined means none. */
export function readPayment(value: unknown): PaymentReading {
  if (value === undefined) return NONE;
  const parsed = ExactEvmPaymentPayload.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map((part) => printable(String(part))).join(".") || "payment";
    return { kind: "malformed", reason: `invalid_payload: ${path}: ${issue.message}` };
  }
  // The schema checked every field the exact scheme reads; core's type is the same object, less precisely typed.
  const payload = parsed.data as unknown as PaymentPayload;
  const raw = extractPaymentIdentifier(payload, false);
  if (raw !== null && !isValidPaymentId(raw)) {
    return {
      kind: "malformed",
      reason: `invalid_payment_identifier: an id is ${PAYMENT_ID_MIN_LENGTH}-${PAYMENT_ID_MAX_LENGTH} letters, digits, "-" or "_"`,
    };
  }
  const { from, nonce, validAfter, validBefore } = parsed.data.payload.authorization;
  return {
    kind: "payment",
    payment: {
      payload,
      payer: from.toLowerCase(),
      authorization: `${from.toLowerCase()}:${nonce.toLowerCase()}`,
      window: { validAfter, validBefore },
      digest: createHash("sha256").update(JSON.stringify(value)).digest("hex"),
      id: raw,
    },
  };
}
