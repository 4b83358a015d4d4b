// Subscriptions through Stripe (issue 7): Checkout to subscribe, the key shown once, the Billing Portal to
// manage or cancel, and the webhook that keeps keys in step. Never logs a key or a Stripe secret.
import Stripe from "stripe";
import type { Storage } from "unstorage";
import { createJsonIfAbsent, readJson, writeJson } from "../../storage/json.ts";
import { billingKey } from "../../storage/layout.ts";
import { SessionRecord, ShownClaim } from "../../schemas/subscription.ts";
import type { StripeSettings } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import type { KeyStore } from "../payment/keys.ts";
import { checkoutCookie, openCheckoutCookie } from "./checkout-cookie.ts";
import { Sealer } from "./seal.ts";
import type { EventLog } from "../../logging/log.ts";
import { receiveWebhook, type WebhookDeps } from "./stripe-webhook.ts";

/** What the success page shows: the key (this once), "not yet" (webhook pending), or "already shown". */
export type Reveal = { kind: "key"; key: string; keyId: string } | { kind: "pending" } | { kind: "shown" };

/** The subscription side of the gateway, over one Stripe account and the gateway's store. */
export class Billing {
  readonly #deps: WebhookDeps;
  readonly #settings: StripeSettings;
  readonly #publicBaseUrl: string;

  constructor(settings: StripeSettings, keys: KeyStore, storage: Storage, publicBaseUrl: string, log: EventLog) {
    const stripe = new Stripe(settings.secretKey, { maxNetworkRetries: 1, timeout: 10_000, ...(settings.api ?? {}) });
    this.#deps = { stripe, webhookSecret: settings.webhookSecret, keys, storage, sealer: new Sealer(settings.webhookSecret), log };
    this.#settings = settings;
    this.#publicBaseUrl = publicBaseUrl;
  }

  /**
   * Where GET /subscribe sends a browser: the open Checkout Session its cookie names (no Stripe call), or a new one
   * for the monthly price with the cookie naming it. A browser that clicks twice, or comes back an hour later, pays
   * in the session it has; one whose session completed (its key recorded), or is about to expire, gets a new one.
   * The cookie, not the address, is the client: a session reached by everyone behind one address would hand the
   * key on its success page to whichever of them arrived first.
   */
  async checkout(cookie: string | undefined, now = new Date()): Promise<{ url: string; cookie: string | null }> {
    const held = cookie === undefined ? null : openCheckoutCookie(this.#deps.sealer, cookie, now);
    if (held && !(await this.#completed(held.id))) return { url: held.url, cookie: null };
    const session = await this.#stripe(() =>
      this.#deps.stripe.checkout.sessions.create({
        mode: "subscription",
        line_items: [{ price: this.#settings.priceId, quantity: 1 }],
        success_url: `${this.#publicBaseUrl}/subscribe/success?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${this.#publicBaseUrl}/llms.txt`,
      }),
    );
    if (!session.url) throw new ApiError("subscriptions_unavailable", "Stripe returned a Checkout Session without a URL.");
    const secure = this.#publicBaseUrl.startsWith("https:");
    return { url: session.url, cookie: checkoutCookie(this.#deps.sealer, { id: session.id, url: session.url, expires_at: session.expires_at }, now, secure) };
  }

  /** Whether a checkout's key was recorded (its webhook applied); a store that does not answer counts as not yet. */
  #completed(sessionId: string): Promise<boolean> {
    return this.#deps.storage.hasItem(billingKey("sessions", sessionId)).catch(() => false);
  }

  /** Verifies and processes a Stripe webhook delivery (see stripe-webhook.ts). */
  webhook(raw: Buffer, signature: string | null): Promise<{ duplicate: boolean }> {
    return receiveWebhook(this.#deps, raw, signature);
  }

  /**
   * The key of a checkout session, exactly once across every replica: the visit that creates the session's `shown`
   * claim in the store shows it, every other visit (at the same moment, in any process, or later) is told it was
   * shown; a process that dies between the claim and its answer loses the display rather than showing it twice.
   * The sealed copy is erased after the claim. Until the webhook has recorded the key itself, the page says "pending".
   */
  async reveal(sessionId: string, now = new Date()): Promise<Reveal> {
    const { storage, sealer, log } = this.#deps;
    const state = await this.#state(sessionId);
    if (state.kind !== "ready") return state;
    const { record } = state;
    if (!(await createJsonIfAbsent(storage, billingKey("shown", sessionId), ShownClaim, { shown_at: now.toISOString() }))) return { kind: "shown" };
    const plaintext = sealer.open(record.sealed_key, sessionId);
    if (plaintext === null) throw new Error(`sealed key of ${sessionId} does not open (STRIPE_WEBHOOK_SECRET changed?)`);
    // The claim already makes this the one display: a failed erase leaves only a sealed copy behind, so show the key.
    await writeJson(storage, billingKey("sessions", sessionId), SessionRecord, { ...record, sealed_key: null, shown_at: now.toISOString() }).catch((error: Error) =>
      log("warn", "sealed_key_not_erased", { subscription: record.subscription_id, error: error.message }),
    );
    log("info", "subscription_key_shown", { key_id: record.key_hash.slice(0, 12), subscription: record.subscription_id });
    return { kind: "key", key: plaintext, keyId: record.key_hash.slice(0, 12) };
  }

  /** What the success page would answer now, without claiming the display or opening the key (a HEAD). */
  async peek(sessionId: string): Promise<Reveal["kind"]> {
    const state = await this.#state(sessionId);
    return state.kind === "ready" ? "key" : state.kind;
  }

  /** Where a session's key stands: not issued (or not recorded) yet, shown, or ready for its one display. */
  async #state(sessionId: string): Promise<{ kind: "pending" | "shown" } | { kind: "ready"; record: SessionRecord & { sealed_key: string } }> {
    const { storage, keys } = this.#deps;
    const record = await readJson(storage, billingKey("sessions", sessionId), SessionRecord);
    if (!record) return { kind: "pending" };
    const { sealed_key } = record;
    if (sealed_key === null || (await storage.hasItem(billingKey("shown", sessionId)))) return { kind: "shown" };
    if (!(await keys.has(record.key_hash))) return { kind: "pending" };
    return { kind: "ready", record: { ...record, sealed_key } };
  }

  /** A Billing Portal session URL for the customer of a subscription key; 401 for a bad key, 400 for a plain key. */
  async portalUrl(presented: string | null): Promise<string> {
    if (presented === null) throw new ApiError("invalid_api_key", "Send the subscription key as Authorization: Bearer <key> or X-API-Key.");
    let record;
    try {
      record = await this.#deps.keys.lookup(presented);
    } catch {
      throw new ApiError("storage_unavailable", "The API key could not be checked right now.", { headers: { "retry-after": "5" } });
    }
    if (!record) throw new ApiError("invalid_api_key", "The API key is not valid.", { headers: { "www-authenticate": 'Bearer realm="filing-data"' } });
    const customer = record.subscription?.customer;
    if (!customer) {
      throw new ApiError("invalid_parameter", "This key was issued by the operator, not by a subscription: it has no billing account.", {
        hint: "Only keys from /subscribe have a billing portal; ask the operator about this key.",
      });
    }
    const portal = await this.#stripe(() => this.#deps.stripe.billingPortal.sessions.create({ customer, return_url: `${this.#publicBaseUrl}/llms.txt` }));
    return portal.url;
  }

  /** Runs a Stripe API call; Stripe's failures become 503 subscriptions_unavailable (logged without secrets). */
  async #stripe<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const e = error as { type?: string; code?: string; statusCode?: number };
      this.#deps.log("error", "stripe_call_failed", { type: e.type, code: e.code, status: e.statusCode });
      throw new ApiError("subscriptions_unavailable", "Stripe did not accept or answer the request.", { headers: { "retry-after": "30" } });
    }
  }
}
