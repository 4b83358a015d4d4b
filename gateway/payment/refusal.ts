// What a payment refusal says in our error body, over either transport: why payment is asked (again), where the
// requirements are and how to pay. The x402 objects themselves are rendered by the transports.
import type { ErrorBody } from "../../schemas/errors.ts";
import type { PaymentRefusal } from "./core.ts";
import { PAYMENT_REQUIRED } from "./offers.ts";

const HOW = {
  http: {
    where: "the PAYMENT-REQUIRED header",
    hint: "Sign the requirements (USDC on Base, scheme exact) and repeat the request with PAYMENT-SIGNATURE, or send an API key.",
  },
  mcp: {
    where: "this result's structuredContent and content[0].text (an x402 PaymentRequired)",
    hint: 'Sign the requirements (USDC on Base, scheme exact) and call the tool again with the payload in params._meta["x402/payment"], or send an API key in the Authorization header.',
  },
} as const;

/** The error body of a refusal (code payment_required), worded for its transport. */
export function refusalBody(refusal: PaymentRefusal): ErrorBody {
  const { where, hint } = HOW[refusal.transport];
  const reason = refusal.required.error ?? PAYMENT_REQUIRED;
  const message = refusal.settlement
    ? `The payment could not be settled (${refusal.settlement.errorReason ?? "unknown"}); nothing was charged and no data was sent. New requirements are in ${where}.`
    : reason === PAYMENT_REQUIRED
      ? `This is paid per call with x402 v2; the payment requirements are in ${where}.`
      : `The payment was not accepted (${reason}); nothing was charged. New requirements are in ${where}.`;
  return { error: { code: "payment_required", message, hint } };
}
