// The subscription routes over h3 (issue 7): thin handlers that validate, call Billing, and render JSON or a
// small HTML page; HEAD on the two pages answers without their GET's effect. Without Stripe configured every one
// answers 503 subscriptions_unavailable.
import { getCookie, type H3Event } from "h3";
import { SUBSCRIPTION_ROUTES } from "../../schemas/api.ts";
import type { Billing, Reveal } from "./billing.ts";
import { CHECKOUT_COOKIE } from "./checkout-cookie.ts";
import type { EventLog } from "../../logging/log.ts";
import { ApiError } from "../http/errors.ts";
import { withoutBody } from "../serve/head.ts";
import { queryReader } from "../serve/params.ts";
import { presentedKey } from "../payment/http.ts";
import type { AppDeps } from "../serve/steps.ts";

type SubscriptionPath = (typeof SUBSCRIPTION_ROUTES)[number]["path"];
type Handler = (event: H3Event) => Promise<Response>;

/** Stripe's events are a few kilobytes; anything far larger is not Stripe. */
const MAX_WEBHOOK_BYTES = 512 * 1024;
const NO_STORE = { "cache-control": "no-store" };
const JSON_TYPE = { "content-type": "application/json; charset=utf-8", ...NO_STORE };
/** The success page carries a secret: no caching, and its URL (with the session id) is never sent as a Referer. */
const HTML_TYPE = { "content-type": "text/html; charset=utf-8", ...NO_STORE, "referrer-policy": "no-referrer", "x-content-type-options": "nosniff" };

/** One handler per subscription route, over `billing` (null when Stripe is not configured). */
export function billingHandlers({ billing, limiter, log }: Pick<AppDeps, "billing" | "limiter" | "log">): Record<SubscriptionPath, Handler> {
  const subscribeQuery = readerOf("/subscribe");
  const successQuery = readerOf("/subscribe/success");
  const portalQuery = readerOf("/billing/portal");
  return {
    "/subscribe": async (event) => {
      // Each new Checkout Session is a write to Stripe's API, whose rate limit webhooks and portals share (issue 39).
      limiter.take(event);
      subscribeQuery(event);
      const checkout = await configured(billing).checkout(getCookie(event, CHECKOUT_COOKIE));
      return new Response(null, { status: 303, headers: { location: checkout.url, ...NO_STORE, ...(checkout.cookie ? { "set-cookie": checkout.cookie } : {}) } });
    },
    "/subscribe/success": async (event) => {
      const { session_id } = successQuery(event);
      return renderReveal(await configured(billing).reveal(session_id), wantsJson(event));
    },
    "/webhooks/stripe": async (event) => {
      const result = await configured(billing).webhook(await rawBody(event, log), event.req.headers.get("stripe-signature"));
      return new Response(JSON.stringify({ received: true, duplicate: result.duplicate }), { status: 200, headers: JSON_TYPE });
    },
    "/billing/portal": async (event) => {
      portalQuery(event);
      const url = await configured(billing).portalUrl(presentedKey(event.req.headers));
      return new Response(JSON.stringify({ url }), { status: 200, headers: JSON_TYPE });
    },
  };
}

/**
 * HEAD on the two GET pages, without what their GET does: no Checkout Session is created (so no Location, which
 * only that creation gives), and the success page says whether the key waits without showing it, so a link
 * checker's HEAD never spends the one display. Status and the other headers are those of the GET.
 */
export function billingHeads(billing: Billing | null): Record<"/subscribe" | "/subscribe/success", Handler> {
  const subscribeQuery = readerOf("/subscribe");
  const successQuery = readerOf("/subscribe/success");
  return {
    "/subscribe": async (event) => {
      subscribeQuery(event);
      configured(billing);
      return new Response(null, { status: 303, headers: NO_STORE });
    },
    "/subscribe/success": async (event) => {
      const { session_id } = successQuery(event);
      const kind = await configured(billing).peek(session_id);
      // Only the key's length reaches the answer (Content-Length): a real key and its id have exactly these.
      const reveal: Reveal = kind === "key" ? { kind, key: `fds_${"x".repeat(43)}`, keyId: "0".repeat(12) } : { kind };
      return withoutBody(renderReveal(reveal, wantsJson(event)));
    },
  };
}

function readerOf(path: SubscriptionPath) {
  return queryReader(SUBSCRIPTION_ROUTES.find((r) => r.path === path)!.query);
}

function configured(billing: Billing | null): Billing {
  if (billing) return billing;
  throw new ApiError("subscriptions_unavailable", "Subscriptions are not configured on this deployment (no STRIPE_* variables).");
}

/** JSON when the client asks for it and not for HTML; browsers (text/html, or any type) get the page. */
function wantsJson(event: H3Event): boolean {
  const accept = event.req.headers.get("accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}

function renderReveal(reveal: Reveal, json: boolean): Response {
  if (reveal.kind === "shown") {
    if (json) throw new ApiError("key_already_shown", "The key of this checkout was already shown; it is never shown again.");
    return page(410, "Key already shown", "<p>The API key of this subscription was shown on your first visit and is never shown again.</p>");
  }
  if (reveal.kind === "pending") {
    const message = "Stripe has not confirmed this payment yet; retry in a few seconds.";
    if (json) return new Response(JSON.stringify({ status: "pending", message }), { status: 202, headers: { ...JSON_TYPE, "retry-after": "3" } });
    return page(202, "Confirming your payment…", `<p>${message} This page reloads itself.</p>`, { refresh: "3", "retry-after": "3" });
  }
  if (json) return new Response(JSON.stringify({ api_key: reveal.key, key_id: reveal.keyId }), { status: 200, headers: JSON_TYPE });
  return page(
    200,
    "Your API key",
    `<p>Copy it now: <strong>it is shown only this once</strong>.</p><pre>${escapeHtml(reveal.key)}</pre>` +
      "<p>Send it as <code>Authorization: Bearer &lt;key&gt;</code> or <code>X-API-Key: &lt;key&gt;</code>. " +
      "To cancel, change the card or get invoices: <code>POST /billing/portal</code> with the key opens Stripe's billing portal.</p>" +
      `<p>Key id (for support): <code>${escapeHtml(reveal.keyId)}</code></p>`,
  );
}

function page(status: number, title: string, body: string, headers: Record<string, string> = {}): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  return new Response(html, { status, headers: { ...HTML_TYPE, ...headers } });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The exact bytes Stripe signed (a re-serialised body would not verify), bounded. A body cut short (the sender closed
 * the connection) is the sender's doing: a 400, logged as info, never an error (issue 39).
 */
async function rawBody(event: H3Event, log: EventLog): Promise<Buffer> {
  const declared = Number(event.req.headers.get("content-length") ?? 0);
  const tooLarge = () => new ApiError("invalid_parameter", `The body is larger than ${MAX_WEBHOOK_BYTES} bytes; not a Stripe event.`);
  if (declared > MAX_WEBHOOK_BYTES) throw tooLarge();
  let bytes: Buffer;
  try {
    bytes = Buffer.from(await event.req.arrayBuffer());
  } catch (error) {
    log("info", "stripe_webhook_body_incomplete", { declared_bytes: declared, error: String((error as Error)?.message ?? error) });
    throw new ApiError("invalid_parameter", "The request body ended before it was complete (the connection was closed).", { hint: "Only Stripe calls this endpoint; Stripe delivers an event again." });
  }
  if (bytes.length > MAX_WEBHOOK_BYTES) throw tooLarge();
  return bytes;
}
