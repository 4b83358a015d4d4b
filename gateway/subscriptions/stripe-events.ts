// Reading Stripe's webhook payloads and API objects into what a key needs: pure functions, no calls, no clock.
// Payloads come in the webhook endpoint's API version, so both the pre-2025 and current field places are read.
import { z } from "zod";
import type { SubscriptionState } from "../payment/keys.ts";
import { StripeId } from "../../schemas/subscription.ts";

const Expandable = z.union([StripeId, z.looseObject({ id: StripeId })]);

/** The envelope of every event (already signature-checked when it gets here). */
const StripeEvent = z.looseObject({ id: StripeId, type: z.string(), data: z.looseObject({ object: z.unknown() }) });

const CheckoutSession = z.looseObject({ id: StripeId, mode: z.string(), customer: Expandable.nullable(), subscription: Expandable.nullable() });

/** A subscription event's object, of which only the id is read: its state is read from Stripe (issue 39). */
const SubscriptionRef = z.looseObject({ id: StripeId });

const Subscription = z.looseObject({
  id: StripeId,
  customer: Expandable,
  status: z.string(),
  cancel_at_period_end: z.boolean().default(false),
  cancel_at: z.number().int().nullish(),
  /** On the subscription before API version 2025-03-31 ("basil"), on its items since. */
  current_period_end: z.number().int().nullish(),
  items: z.looseObject({ data: z.array(z.looseObject({ current_period_end: z.number().int().nullish() })) }).optional(),
});

/** The subscription moved from `invoice.subscription` to `invoice.parent.subscription_details` in 2025-03-31. */
const Invoice = z.looseObject({
  subscription: Expandable.nullish(),
  parent: z.looseObject({ subscription_details: z.looseObject({ subscription: Expandable }).nullish() }).nullish(),
});

/** A completed subscription-mode checkout: its session, customer and subscription ids. */
export interface CompletedCheckout {
  sessionId: string;
  customer: string;
  subscriptionId: string;
}

/** What an event asks of the keys: issue one for a completed checkout, follow a subscription's state, or nothing. */
export type EventAction =
  | { kind: "issue"; checkout: CompletedCheckout }
  | { kind: "follow"; subscriptionId: string }
  | { kind: "none" };

/**
 * A verified event's id, type and what it asks; throws on a malformed envelope or object, so that an event that
 * cannot be read is refused before anything is claimed. Subscription events and invoice.payment_failed name their
 * subscription only: the key takes its state as Stripe holds it when the event is applied, not the payload's.
 */
export function readEvent(event: unknown): { id: string; type: string; action: EventAction } {
  const { id, type, data } = StripeEvent.parse(event);
  return { id, type, action: readAction(type, data.object) };
}

/**
 * What a key records of a subscription, read from Stripe at `syncedAt` (unix seconds). A cancellation scheduled by
 * `cancel_at` (which newer portals set instead of `cancel_at_period_end`) counts as cancel-at-period-end with that
 * moment as the end, so the key lasts exactly until then.
 */
export function readSubscription(object: unknown, syncedAt: number): SubscriptionState {
  const sub = Subscription.parse(object);
  const itemEnds = (sub.items?.data ?? []).map((i) => i.current_period_end).filter((n): n is number => typeof n === "number");
  const periodEnd = sub.cancel_at ?? sub.current_period_end ?? (itemEnds.length ? Math.max(...itemEnds) : null);
  return {
    customer: idOf(sub.customer),
    id: sub.id,
    status: sub.status,
    current_period_end: periodEnd === null ? null : new Date(periodEnd * 1000).toISOString(),
    cancel_at_period_end: sub.cancel_at_period_end || typeof sub.cancel_at === "number",
    synced_at: syncedAt,
  };
}

/** The four events docs/operations.md ("Subscriptions") tells operators to enable; any other type asks nothing. */
function readAction(type: string, object: unknown): EventAction {
  if (type === "checkout.session.completed") {
    const checkout = readCheckout(object);
    return checkout ? { kind: "issue", checkout } : { kind: "none" };
  }
  const subscriptionId =
    type === "customer.subscription.updated" || type === "customer.subscription.deleted" ? SubscriptionRef.parse(object).id
    : type === "invoice.payment_failed" ? readInvoiceSubscription(object)
    : null;
  return subscriptionId ? { kind: "follow", subscriptionId } : { kind: "none" };
}

/** A completed subscription-mode checkout; null for any other checkout. */
function readCheckout(object: unknown): CompletedCheckout | null {
  const session = CheckoutSession.parse(object);
  if (session.mode !== "subscription" || !session.customer || !session.subscription) return null;
  return { sessionId: session.id, customer: idOf(session.customer), subscriptionId: idOf(session.subscription) };
}

/** The subscription an invoice bills, or null for a one-off invoice. */
function readInvoiceSubscription(object: unknown): string | null {
  const invoice = Invoice.parse(object);
  const ref = invoice.parent?.subscription_details?.subscription ?? invoice.subscription ?? null;
  return ref === null ? null : idOf(ref);
}

function idOf(ref: z.infer<typeof Expandable>): string {
  return typeof ref === "string" ? ref : ref.id;
}
