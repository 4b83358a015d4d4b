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
import { readEvent, readSubscription, type CompletedCheckout, type EventAction } from "./stripe-events.ts";

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
 * two Stripe calls, a few writes); the next delivery takes it over. What events do is idempotent (a session's key is
 * decided by its own claim, a key takes Stripe's current state), so even a take-over racing the dead one's last
 * write changes nothing twice.
 */
const CLAIM_LEASE_MS = 120_000;
/** How often a delivery reads back a subscription that keeps changing before it gives up (503: Stripe retries). */
const MAX_SETTLE_ROUNDS = 3;
const RETRY_LATER = { headers: { "retry-after": "30" } };

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
  if (!(await failsAs503(deps, event, () => claimEvent(deps.storage, event.id, claim, now)))) return { duplicate: true };
  // On failure the claim is removed: Stripe's retry acts instead (after the lease if the removal fails too).
  await failsAs503(deps, event, () => handle(deps, event.action, now), () => deps.storage.removeItem(claimKey));
  await failsAs503(deps, event, () => writeJson(deps.storage, claimKey, EventClaim, { ...claim, processed_at: new Date().toISOString() }));
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

/**
 * Runs one step of a delivery. A failure is logged with the event's type and id and answered 503 saying what failed:
 * Stripe's API (its failures reach here as stripe_unavailable, from currentState) or else the store (issue 39).
 */
async function failsAs503<T>(deps: WebhookDeps, event: { id: string; type: string }, step: () => Promise<T>, undo?: () => Promise<unknown>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const failure =
      error instanceof ApiError ? error : new ApiError("storage_unavailable", "The store did not answer; the event was not applied, and Stripe delivers it again.", RETRY_LATER);
    deps.log("error", "stripe_webhook_failed", { event_id: event.id, type: event.type, code: failure.code, error: String((error as Error)?.message ?? error) });
    await undo?.().catch(() => {});
    throw failure;
  }
}

/** checkout.session.completed issues a key; subscription and failed-invoice events make the key follow Stripe. */
async function handle(deps: WebhookDeps, action: EventAction, now: Date): Promise<void> {
  if (action.kind === "issue") await issueKey(deps, action.checkout, now);
  else if (action.kind === "follow") await followKey(deps, action.subscriptionId);
}

/**
 * checkout.session.completed: one key per session. The session record, created only if absent, decides which key
 * (two replicas may both mint one; the one whose record lands is the key, the other is dropped unstored); the key's
 * record and the subscription's link follow it and are written again if a failure lost them. The key stays sealed
 * until its one display. Subscription events that came before the link changed nothing: settle() catches up.
 */
async function issueKey(deps: WebhookDeps, checkout: CompletedCheckout, now: Date): Promise<void> {
  const sessionKey = billingKey("sessions", checkout.sessionId);
  const linkKey = billingKey("subscriptions", checkout.subscriptionId);
  let record = await readJson(deps.storage, sessionKey, SessionRecord);
  if (record && (await deps.keys.has(record.key_hash)) && (await deps.storage.hasItem(linkKey))) return; // issued already
  const state = await currentState(deps, checkout.subscriptionId);
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
  // A key recorded by an earlier, failed delivery takes the state read now.
  if (!(await deps.keys.register(record.key_hash, now, state))) await recordState(deps, record.key_hash, state);
  await writeJson(deps.storage, linkKey, SubscriptionLink, { key_hash: record.key_hash, session_id: checkout.sessionId });
  await settle(deps, record.key_hash, state);
}

/**
 * customer.subscription.updated/deleted and invoice.payment_failed: the key takes the subscription's state as Stripe
 * holds it now, never the payload's (Stripe's advice for events delivered out of order), so a burst applied in any
 * order, or at once, ends in the subscription's real state (issue 39). A subscription without a key (another
 * product's, or one whose checkout is not applied yet) changes nothing and costs no Stripe call.
 */
async function followKey(deps: WebhookDeps, subscriptionId: string): Promise<void> {
  const link = await readJson(deps.storage, billingKey("subscriptions", subscriptionId), SubscriptionLink);
  if (!link) {
    deps.log("info", "stripe_subscription_without_key", { subscription: subscriptionId });
    return;
  }
  const state = await currentState(deps, subscriptionId);
  await recordState(deps, link.key_hash, state);
  await settle(deps, link.key_hash, state);
}

/**
 * After `state` was recorded on a key, reads the subscription from Stripe again and records it again if it changed
 * meanwhile. The store has no compare-and-set to order writes, so of two deliveries applied at once a state read
 * before a change could land after one read after it; with this check every delivery's last write is one Stripe
 * confirmed after it was made, so the last write of all holds the subscription's real state.
 */
async function settle(deps: WebhookDeps, keyHash: string, recorded: SubscriptionState): Promise<void> {
  let state = recorded;
  for (let round = 0; round < MAX_SETTLE_ROUNDS; round++) {
    const current = await currentState(deps, state.id);
    if (sameState(current, state)) return;
    state = current;
    await recordState(deps, keyHash, state);
  }
  throw new ApiError("stripe_unavailable", `Subscription ${state.id} kept changing at Stripe while it was applied; Stripe delivers the event again.`, RETRY_LATER);
}

/** The subscription as Stripe holds it now; any failure (unreachable, refused, an answer we cannot read) is 503 stripe_unavailable. */
async function currentState(deps: WebhookDeps, subscriptionId: string): Promise<SubscriptionState> {
  try {
    return readSubscription(await deps.stripe.subscriptions.retrieve(subscriptionId), Math.floor(Date.now() / 1000));
  } catch (error) {
    const e = error as { type?: string; statusCode?: number };
    const why = e.statusCode ? `${e.type}, HTTP ${e.statusCode}` : (e.type ?? "an answer that is not a subscription");
    throw new ApiError("stripe_unavailable", `Stripe's API did not give subscription ${subscriptionId} (${why}); the event was not applied.`, RETRY_LATER);
  }
}

/** Whether two readings of a subscription say the same, whenever each was read. */
function sameState(a: SubscriptionState, b: SubscriptionState): boolean {
  return a.status === b.status && a.cancel_at_period_end === b.cancel_at_period_end && a.current_period_end === b.current_period_end && a.customer === b.customer;
}

/** Records a subscription's state on its key (an ended subscription's key is never revived: keys.ts). */
async function recordState(deps: WebhookDeps, keyHash: string, state: SubscriptionState): Promise<void> {
  const applied = await deps.keys.updateSubscription(keyHash, state);
  deps.log("info", applied ? "subscription_key_updated" : "subscription_key_not_updated", {
    key_id: keyHash.slice(0, 12),
    subscription: state.id,
    status: state.status,
    cancel_at_period_end: state.cancel_at_period_end,
    current_period_end: state.current_period_end,
  });
}
