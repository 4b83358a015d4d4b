// The shapes the subscription routes accept, answer and store (issue 7). Stripe's own event shapes are not here:
// they sit, loose, at the top of gateway/subscriptions/stripe-events.ts, which reads them.
import { z } from "zod";

/** A Stripe object id (`cs_…`, `sub_…`, `cus_…`, `evt_…`): Stripe's alphabet only, so it can name a storage key. */
export const StripeId = z.string().regex(/^[a-z]{2,8}_[A-Za-z0-9_]{1,250}$/, "must be a Stripe id");

/** `GET /subscribe/success?session_id=cs_…` (Stripe fills `{CHECKOUT_SESSION_ID}` in the success URL). */
export const SuccessQuery = z.object({
  session_id: z
    .string()
    .regex(/^cs_[A-Za-z0-9_]{1,250}$/, "session_id must be a Stripe Checkout Session id (cs_…)")
    .meta({ description: "The Checkout Session id Stripe appends on success.", example: "cs_test_a1B2c3" }),
});

/** The new key, in the JSON variant of the success page; shown once. */
export const ApiKeyIssued = z
  .object({
    api_key: z.string().meta({ description: "Send as `Authorization: Bearer <key>` or `X-API-Key: <key>`. Shown once." }),
    key_id: z.string().meta({ description: "The key's public 12-character id (what the operator sees), for support." }),
  })
  .meta({ id: "ApiKeyIssued" });

/** The success page before Stripe's webhook has arrived: retry shortly. */
export const KeyPending = z
  .object({ status: z.literal("pending"), message: z.string() })
  .meta({ id: "KeyPending" });

/**
 * What the checkout cookie carries, sealed (gateway/subscriptions/checkout-cookie.ts): the browser's open Checkout
 * Session, its URL and when Stripe expires it (unix seconds), so that GET /subscribe sends it back there (issue 39).
 */
export const CheckoutCookie = z.object({
  id: StripeId,
  url: z.url({ protocol: /^https$/ }),
  expires_at: z.number().int(),
});
export type CheckoutCookie = z.infer<typeof CheckoutCookie>;

/** A Stripe Billing Portal session link (cancel, change card, invoices). */
export const PortalSession = z.object({ url: z.url() }).meta({ id: "PortalSession" });

/** What the webhook endpoint answers Stripe. */
export const WebhookAck = z.object({ received: z.literal(true), duplicate: z.boolean() }).meta({ id: "WebhookAck" });

/** Stored per checkout session: the key issued for it, sealed until its one display (gateway/subscriptions/seal.ts says why). */
export const SessionRecord = z.object({
  key_hash: z.string().regex(/^[0-9a-f]{64}$/),
  subscription_id: StripeId,
  customer: StripeId,
  sealed_key: z.string().nullable(),
  created_at: z.iso.datetime(),
  shown_at: z.iso.datetime().nullable(),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

/** Stored per subscription: which key its webhooks update. */
export const SubscriptionLink = z.object({ key_hash: z.string().regex(/^[0-9a-f]{64}$/), session_id: StripeId });

/**
 * Stored per Stripe event, created only if absent (storage/claim.ts) by the one delivery that acts on it, in any
 * replica: `processed_at` is null while it acts, so a redelivery meanwhile or after is acknowledged without acting.
 * Records written before claims existed have no `claimed_at`.
 */
export const EventClaim = z.object({ type: z.string(), claimed_at: z.iso.datetime().optional(), processed_at: z.iso.datetime().nullable() });
export type EventClaim = z.infer<typeof EventClaim>;

/** Stored per checkout session once its key is claimed for display, created only if absent: one display, ever. */
export const ShownClaim = z.object({ shown_at: z.iso.datetime() });
