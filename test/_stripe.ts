// A loopback stand-in for Stripe's API (node:http) that records every request and answers realistic JSON for the
// calls the gateway makes: Checkout and Billing Portal session creation, subscription retrieval. Plus signed events.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

/** Test credentials: the stand-in accepts exactly this secret key. */
export const STRIPE_TEST_ENV = { STRIPE_SECRET_KEY: "sk_test_loopback123", STRIPE_WEBHOOK_SECRET: "whsec_loopbacksecret456", STRIPE_PRICE_ID: "price_test_monthly19" };

/** One request the stand-in received: method, path, form-decoded body, Authorization header. */
export interface RecordedRequest {
  method: string;
  path: string;
  form: URLSearchParams;
  authorization: string | undefined;
}

/** The running stand-in: its env for the gateway, what it received, and the subscriptions it serves (mutable). */
export interface StripeStandIn {
  env: Record<string, string>;
  requests: RecordedRequest[];
  subscriptions: Map<string, Record<string, unknown>>;
  /**
   * Stripe's latency at will: the next read of subscription `id` answers its state as of the read, but only once
   * `release` is called; `read` resolves when that read has arrived.
   */
  holdNextRead(id: string): { read: Promise<void>; release(): void };
  stop(): Promise<void>;
}

/** Starts the stand-in on 127.0.0.1; `env` points the gateway's Stripe client at it (STRIPE_API_BASE). */
export async function startStripe(): Promise<StripeStandIn> {
  const requests: RecordedRequest[] = [];
  const subscriptions = new Map<string, Record<string, unknown>>();
  const holds = new Map<string, { read(): void; released: Promise<void> }>();
  let sessions = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://stripe.test");
    const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
    requests.push({ method: req.method ?? "", path: url.pathname, form, authorization: req.headers.authorization });
    if (req.headers.authorization !== `Bearer ${STRIPE_TEST_ENV.STRIPE_SECRET_KEY}`) return fail(res, 401, "authentication_error", "Invalid API Key provided.");
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const id = `cs_test_${++sessions}${"a".repeat(20)}`;
      const created = Math.floor(Date.now() / 1000);
      return answer(res, { id, object: "checkout.session", created, expires_at: created + 86_400, mode: form.get("mode"), status: "open", payment_status: "unpaid", customer: null, subscription: null, success_url: form.get("success_url"), cancel_url: form.get("cancel_url"), url: `https://checkout.stripe.com/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0` });
    }
    if (req.method === "POST" && url.pathname === "/v1/billing_portal/sessions") {
      return answer(res, { id: `bps_test_${requests.length}`, object: "billing_portal.session", customer: form.get("customer"), return_url: form.get("return_url"), livemode: false, url: `https://billing.stripe.com/p/session/test_${requests.length}` });
    }
    const sub = /^\/v1\/subscriptions\/(sub_\w+)$/.exec(url.pathname);
    if (req.method === "GET" && sub && subscriptions.has(sub[1]!)) {
      const state = subscriptions.get(sub[1]!)!;
      const hold = holds.get(sub[1]!);
      holds.delete(sub[1]!);
      hold?.read();
      await hold?.released;
      return answer(res, state);
    }
    return fail(res, 404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname}).`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    env: { ...STRIPE_TEST_ENV, STRIPE_API_BASE: `http://127.0.0.1:${port}` },
    requests,
    subscriptions,
    holdNextRead(id) {
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      const read = new Promise<void>((resolve) => holds.set(id, { read: resolve, released }));
      return { read, release };
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A Stripe subscription object as the current API version renders it (period on the items). */
export function subscriptionObject(id: string, customer: string, fields: { status?: string; cancel_at_period_end?: boolean; period_end?: number } = {}): Record<string, unknown> {
  const end = fields.period_end ?? Math.floor(Date.now() / 1000) + 30 * 86_400;
  return {
    id,
    object: "subscription",
    customer,
    status: fields.status ?? "active",
    cancel_at_period_end: fields.cancel_at_period_end ?? false,
    cancel_at: null,
    canceled_at: null,
    ended_at: null,
    livemode: false,
    items: { object: "list", data: [{ id: `si_${id.slice(4)}`, object: "subscription_item", current_period_start: end - 30 * 86_400, current_period_end: end, price: { id: STRIPE_TEST_ENV.STRIPE_PRICE_ID, object: "price", unit_amount: 1900, currency: "usd" } }] },
  };
}

/** An event as Stripe delivers it, its body and a Stripe-Signature made by the stripe package's own test helper. */
export function signedEvent(id: string, type: string, object: Record<string, unknown>, created: number, secret = STRIPE_TEST_ENV.STRIPE_WEBHOOK_SECRET): { body: string; signature: string } {
  const body = JSON.stringify({ id, object: "event", api_version: "2026-10-28.endive", created, type, livemode: false, pending_webhooks: 1, data: { object } });
  return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret }) };
}

function answer(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json", "request-id": `req_${Date.now()}` });
  res.end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { type, message } }));
}
