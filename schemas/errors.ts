// The error body every failing response carries, and the stable codes a client can switch on.
import { z } from "zod";

/** Stable machine-readable error codes, each with its HTTP status and a default hint for the client. */
export const ERROR_CODES = {
  invalid_parameter: { status: 400, hint: "Check the parameter against /openapi.json and retry." },
  not_found: { status: 404, hint: "See /openapi.json or /llms.txt for the endpoints this service has." },
  ticker_not_covered: { status: 404, hint: "Call /probe?ticker=… (free) before paying; this ticker is not served." },
  method_not_allowed: { status: 405, hint: "Every data endpoint is GET (HEAD answers its status and headers); /mcp, /billing/portal and /webhooks/stripe are POST." },
  payment_required: { status: 402, hint: "Pay with x402 (requirements in the PAYMENT-REQUIRED header) or send an API key." },
  invalid_api_key: { status: 401, hint: "The key is unknown, revoked or its subscription has ended; check it or subscribe again." },
  idempotency_conflict: {
    status: 409,
    hint: "A payment identifier names one paid request for 15 minutes: repeat that very request to get its answer again, or use a new identifier.",
  },
  key_already_shown: { status: 410, hint: "A subscription key is shown once, on the first visit of the success page; if it was lost, contact the operator." },
  uri_too_long: { status: 414, hint: "Keep the path and query under 4,096 characters; every parameter is short." },
  headers_too_large: { status: 431, hint: "Send smaller request headers (16 KiB in all at most)." },
  request_timeout: { status: 408, hint: "Send the whole request promptly; slow requests are closed." },
  rate_limited: { status: 429, hint: "Slow down and retry after the number of seconds in Retry-After." },
  storage_unavailable: { status: 503, hint: "The data store is unreachable; retry shortly. Nothing was charged." },
  subscriptions_unavailable: { status: 503, hint: "Subscriptions are not configured here or Stripe did not answer; retry later, or pay per call with x402." },
  stripe_unavailable: {
    status: 503,
    hint: "Stripe's API did not answer (or refused) the gateway's call while it applied this event; Stripe delivers the event again later.",
  },
  facilitator_unavailable: { status: 503, hint: "The payment facilitator did not answer; retry shortly. Nothing was charged." },
  internal_error: { status: 500, hint: "Retry; if it persists, report the time of the request. Nothing was charged." },
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;
export const ErrorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);

/** `{error: {code, message, hint}}` (spec 2.3). */
export const ErrorBody = z
  .object({
    error: z.object({
      code: ErrorCodeSchema,
      message: z.string(),
      hint: z.string(),
    }),
  })
  .meta({ id: "ErrorBody" });
export type ErrorBody = z.infer<typeof ErrorBody>;
