// POST /webhooks/stripe: verifies Stripe's signature on the raw body, then keeps keys in step with subscriptions.
// Each event is acted on once (its id is recorded after it succeeded); a failure answers 5xx so Stripe retries.
import Stripe from "stripe";
import type { Storage } from "unstorage";
import { readJson, writeJson } from "../storage/json.ts";
import { billingKey } from "../storage/layout.ts";
import { ProcessedEvent, SessionRecord, SubscriptionLink } from "../schemas/subscription.ts";
import { ApiError } from "./errors.ts";
import type { KeyStore, SubscriptionState } from "./keys.ts";
import type { Sealer } from "./seal.ts";
import type { EventLog } from "./snapshot.ts";
import { readCheckout, readEvent, readInvoiceSubscription, readSubscription } from "./stripe-events.ts";

/** What the webhook needs: the Stripe client (to read a subscription's current state), keys, storage. */
export interface WebhookDeps {
  stripe: Stripe;
  webhookSecret: string;
  keys: KeyStore;
  storage: Storage;
  sealer: Sealer;
  log: EventLog;
}

/**
 * Deliveries to one store are processed one at a time in this process, so two concurrent deliveries of the same
 * event cannot both pass the "already processed" check (Stripe's volume for one plan is tiny).
 */
const QUEUES = new WeakMap<Storage, Promise<unknown>>();

/** Verifies and processes one delivery; `duplicate` when the event was already processed. Throws ApiError (400, 503). */
export function receiveWebhook(deps: WebhookDeps, raw: Buffer, signature: string | null, now = new Date()): Promise<{ duplicate: boolean }> {
  const run = (QUEUES.get(deps.storage) ?? Promise.resolve()).catch(() => {}).then(() => receive(deps, raw, signature, now));
  QUEUES.set(deps.storage, run);
  return run;
}

async function receive(deps: WebhookDeps, raw: Buffer, signature: string | null, now: Date): Promise<{ duplicate: boolean }> {
  if (!signature) throw new ApiError("invalid_parameter", "The Stripe-Signature header is missing.", { hint: "Only Stripe calls this endpoint." });
  let event;
  try {
    event = readEvent(deps.stripe.webhooks.constructEvent(raw, signature, deps.webhookSecret));
  } catch (error) {
    deps.log("warn", "stripe_webhook_refused", { reason: error instanceof Stripe.errors.StripeSignatureVerificationError ? "bad signature" : "malformed event" });
    throw new ApiError("invalid_parameter", "The Stripe-Signature header does not match the body, is too old, or the event is malformed.", {
      hint: "Only Stripe calls this endpoint; check STRIPE_WEBHOOK_SECRET against the endpoint's signing secret.",
    });
  }
  const done = billingKey("events", event.id);
  if (await deps.storage.hasItem(done)) return { duplicate: true };
  try {
    await handle(deps, event.type, event.data.object, event.created, now);
  } catch (error) {
    deps.log("error", "stripe_webhook_failed", { event: event.id, type: event.type, error: String((error as Error)?.message ?? error) });
    throw new ApiError("subscriptions_unavailable", "The event could not be processed now; Stripe will deliver it again.", { headers: { "retry-after": "30" } });
  }
  await writeJson(deps.storage, done, ProcessedEvent, { type: event.type, processed_at: now.toISOString() });
  return { duplicate: false };
}

/** The four events the README tells operators to enable; any other type is acknowledged and ignored. */
async function handle(deps: WebhookDeps, type: string, object: unknown, created: number, now: Date): Promise<void> {
  if (type === "checkout.session.completed") {
    const checkout = readCheckout(object);
    if (checkout) await issueKey(deps, checkout, created, now);
  } else if (type === "customer.subscription.updated" || type === "customer.subscription.deleted") {
    // A deleted subscription has ended, whatever status the payload carries.
    await applyState(deps, readSubscription(object, created, type === "customer.subscription.deleted" ? "canceled" : undefined));
  } else if (type === "invoice.payment_failed") {
    // The invoice does not say where Stripe's retries stand; the subscription's status does (past_due → unpaid/canceled).
    const subscriptionId = readInvoiceSubscription(object);
    if (subscriptionId) await applyState(deps, readSubscription(await deps.stripe.subscriptions.retrieve(subscriptionId), created));
  }
}

/** checkout.session.completed: one key per session, bound to the subscription as Stripe has it now, sealed until shown. */
async function issueKey(deps: WebhookDeps, checkout: { sessionId: string; customer: string; subscriptionId: string }, created: number, now: Date): Promise<void> {
  const sessionKey = billingKey("sessions", checkout.sessionId);
  if (await deps.storage.hasItem(sessionKey)) return; // issued already (the event record may have failed to write)
  const state = readSubscription(await deps.stripe.subscriptions.retrieve(checkout.subscriptionId), created);
  const { key, id, hash } = await deps.keys.create(null, now, state);
  await writeJson(deps.storage, billingKey("subscriptions", checkout.subscriptionId), SubscriptionLink, { key_hash: hash, session_id: checkout.sessionId });
  // Written last: the session record is what makes the issue final and the key displayable.
  const record: SessionRecord = {
    key_hash: hash,
    subscription_id: checkout.subscriptionId,
    customer: checkout.customer,
    sealed_key: deps.sealer.seal(key, checkout.sessionId),
    created_at: now.toISOString(),
    shown_at: null,
  };
  await writeJson(deps.storage, sessionKey, SessionRecord, record);
  deps.log("info", "subscription_key_issued", { key_id: id, customer: checkout.customer, subscription: checkout.subscriptionId, status: state.status });
}

/** Records a subscription's new state on its key; events for a subscription without a key (yet) change nothing. */
async function applyState(deps: WebhookDeps, state: SubscriptionState): Promise<void> {
  const link = await readJson(deps.storage, billingKey("subscriptions", state.id), SubscriptionLink);
  if (!link) {
    deps.log("info", "stripe_subscription_without_key", { subscription: state.id, status: state.status });
    return;
  }
  const applied = await deps.keys.updateSubscription(link.key_hash, state);
  deps.log("info", applied ? "subscription_key_updated" : "subscription_key_update_stale", {
    key_id: link.key_hash.slice(0, 12),
    subscription: state.id,
    status: state.status,
    cancel_at_period_end: state.cancel_at_period_end,
    current_period_end: state.current_period_end,
  });
}
