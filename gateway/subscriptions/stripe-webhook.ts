// POST /webhooks/stripe: verifies Stripe's signature on the raw body, then keeps keys in step with subscriptions.
// Each event is acted on once across replicas: the delivery that creates its claim in the store acts, any other
// is acknowledged; a failure removes the claim and answers 5xx, so Stripe's retry acts instead.
import Stripe from "stripe";
import type { Storage } from "unstorage";
import { createJsonIfAbsent, readJson, writeJson } from "../../storage/json.ts";
import { billingKey } from "../../storage/layout.ts";
import { EventClaim, SessionRecord, SubscriptionLink } from "../../schemas/subscription.ts";
import { ApiError } from "../http/errors.ts";
import { mintKey, type KeyStore, type SubscriptionState } from "../payment/keys.ts";
import type { Sealer } from "./seal.ts";
import type { EventLog } from "../../logging/log.ts";
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
 * A claim still unprocessed after this long belongs to a replica that died while acting (an event takes seconds:
 * one Stripe call, a few writes); the next delivery takes it over. What events do is idempotent (a session's key is
 * decided by its own claim, states are ordered by event time), so even a take-over racing the dead one's last
 * write changes nothing twice.
 */
const CLAIM_LEASE_MS = 120_000;

/** Verifies and processes one delivery; `duplicate` when the event was claimed already. Throws ApiError (400, 503). */
export async function receiveWebhook(deps: WebhookDeps, raw: Buffer, signature: string | null, now = new Date()): Promise<{ duplicate: boolean }> {
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
  const claimKey = billingKey("events", event.id);
  const claim: EventClaim = { type: event.type, claimed_at: now.toISOString(), processed_at: null };
  if (!(await unavailableIfThrows(deps, () => claimEvent(deps.storage, event.id, claim, now)))) return { duplicate: true };
  try {
    await handle(deps, event.type, event.data.object, event.created, now);
  } catch (error) {
    deps.log("error", "stripe_webhook_failed", { event: event.id, type: event.type, error: String((error as Error)?.message ?? error) });
    await deps.storage.removeItem(claimKey).catch(() => {}); // Stripe's retry acts instead (after the lease if this fails too)
    throw unavailable();
  }
  await unavailableIfThrows(deps, () => writeJson(deps.storage, claimKey, EventClaim, { ...claim, processed_at: new Date().toISOString() }));
  return { duplicate: false };
}

/**
 * True when this delivery may act: it created the event's claim, or took over one abandoned past the lease. A
 * takeover is one atomic step too: a marker named by the abandoned claim's time, created only if absent, so of any
 * number of deliveries finding the same claim stale at once, on any replica, one acts (a marker per takeover stays).
 */
async function claimEvent(storage: Storage, eventId: string, claim: EventClaim, now: Date): Promise<boolean> {
  const key = billingKey("events", eventId);
  if (await createJsonIfAbsent(storage, key, EventClaim, claim)) return true;
  const held = await readJson(storage, key, EventClaim);
  if (held === null) return createJsonIfAbsent(storage, key, EventClaim, claim); // released meanwhile by a failed delivery
  if (held.processed_at !== null || !held.claimed_at || now.getTime() - Date.parse(held.claimed_at) < CLAIM_LEASE_MS) return false;
  const takeover = billingKey("events", `${eventId}_takeover_${Date.parse(held.claimed_at)}`);
  if (!(await createJsonIfAbsent(storage, takeover, EventClaim, claim))) return false;
  try {
    await writeJson(storage, key, EventClaim, claim);
  } catch (error) {
    // The stale claim stays as it was: without its marker a later delivery can take it over again (not lose the event).
    await storage.removeItem(takeover).catch(() => {});
    throw error;
  }
  return true;
}

function unavailable(): ApiError {
  return new ApiError("subscriptions_unavailable", "The event could not be processed now; Stripe will deliver it again.", { headers: { "retry-after": "30" } });
}

async function unavailableIfThrows<T>(deps: WebhookDeps, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    deps.log("error", "stripe_webhook_storage_failed", { error: String((error as Error)?.message ?? error) });
    throw unavailable();
  }
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

/**
 * checkout.session.completed: one key per session. The session record, created only if absent, decides which key
 * (two replicas may both mint one; the one whose record lands is the key, the other is dropped unstored); the key's
 * record and the subscription's link follow it and are written again if a failure lost them. The key stays sealed
 * until its one display.
 */
async function issueKey(deps: WebhookDeps, checkout: { sessionId: string; customer: string; subscriptionId: string }, created: number, now: Date): Promise<void> {
  const sessionKey = billingKey("sessions", checkout.sessionId);
  const linkKey = billingKey("subscriptions", checkout.subscriptionId);
  let record = await readJson(deps.storage, sessionKey, SessionRecord);
  if (record && (await deps.keys.has(record.key_hash)) && (await deps.storage.hasItem(linkKey))) return; // issued already
  const state = readSubscription(await deps.stripe.subscriptions.retrieve(checkout.subscriptionId), created);
  if (!record) {
    const minted = mintKey();
    const fresh: SessionRecord = {
      key_hash: minted.hash,
      subscription_id: checkout.subscriptionId,
      customer: checkout.customer,
      sealed_key: deps.sealer.seal(minted.key, checkout.sessionId),
      created_at: now.toISOString(),
      shown_at: null,
    };
    if (await createJsonIfAbsent(deps.storage, sessionKey, SessionRecord, fresh)) {
      record = fresh;
      deps.log("info", "subscription_key_issued", { key_id: minted.id, customer: checkout.customer, subscription: checkout.subscriptionId, status: state.status });
    } else {
      record = await readJson(deps.storage, sessionKey, SessionRecord);
      if (!record) throw new Error(`session record ${checkout.sessionId} was created and is gone`);
    }
  }
  await deps.keys.register(record.key_hash, now, state);
  await writeJson(deps.storage, linkKey, SubscriptionLink, { key_hash: record.key_hash, session_id: checkout.sessionId });
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
