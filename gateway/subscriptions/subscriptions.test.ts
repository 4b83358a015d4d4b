import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PAID_ROUTES } from "../../schemas/api.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, ROUTE_QUERIES, testGateway } from "../../test/_gateway.ts";
import { removeDir } from "../../test/_s3.ts";
import { signedEvent, startStripe, STRIPE_TEST_ENV, subscriptionObject, type StripeStandIn } from "../../test/_stripe.ts";
import { main as keysMain } from "../payment/keys-cli.ts";

const QUERY = ROUTE_QUERIES;

describeEdgar("subscriptions through Stripe: the whole life of a key", () => {
  let data: { dataDir: string; mirror: string };
  let stripe: StripeStandIn;
  let gw: ReturnType<typeof testGateway>;
  let clock = Math.floor(Date.now() / 1000) - 600; // event creation times, increasing, within Stripe's 5-minute tolerance of signing
  const keyOf: Record<string, string> = {};
  beforeAll(async () => {
    data = await buildTestData();
    stripe = await startStripe();
    gw = testGateway(data.dataDir, { env: stripe.env });
  });
  afterAll(async () => {
    gw?.close();
    await stripe?.stop();
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  const deliver = async (id: string, type: string, object: Record<string, unknown>, created = ++clock) => {
    const { body, signature } = signedEvent(id, type, object, created);
    return gw.get("/webhooks/stripe", { method: "POST", headers: { "stripe-signature": signature, "content-type": "application/json" }, body });
  };
  const checkout = (session: string, sub: string, customer: string) => ({ id: session, object: "checkout.session", mode: "subscription", status: "complete", payment_status: "paid", customer, subscription: sub });
  const withKey = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
  const paidStatuses = async (key: string) => Promise.all(PAID_ROUTES.map(async (r) => (await gw.get(`${r.path}?${QUERY[r.path]}`, withKey(key))).status));

  it("GET /subscribe creates a subscription Checkout Session for the price and redirects to it (303)", async () => {
    const res = await gw.get("/subscribe");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_1/);
    const call = stripe.requests.at(-1)!;
    expect(call).toMatchObject({ method: "POST", path: "/v1/checkout/sessions", authorization: `Bearer ${STRIPE_TEST_ENV.STRIPE_SECRET_KEY}` });
    expect(call.form.get("mode")).toBe("subscription");
    expect(call.form.get("line_items[0][price]")).toBe(STRIPE_TEST_ENV.STRIPE_PRICE_ID);
    expect(call.form.get("success_url")).toBe("https://api.example.test/subscribe/success?session_id={CHECKOUT_SESSION_ID}");
  });

  it("the success page waits (202) until Stripe's checkout.session.completed webhook has issued the key", async () => {
    const pending = await gw.get("/subscribe/success?session_id=cs_test_alpha", { headers: { accept: "application/json" } });
    expect(pending.status).toBe(202);
    expect(await pending.json()).toMatchObject({ status: "pending" });
    stripe.subscriptions.set("sub_alpha", subscriptionObject("sub_alpha", "cus_alpha"));
    const res = await deliver("evt_checkout_alpha", "checkout.session.completed", checkout("cs_test_alpha", "sub_alpha", "cus_alpha"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, duplicate: false });
    expect(stripe.requests.at(-1)).toMatchObject({ method: "GET", path: "/v1/subscriptions/sub_alpha" });
  });

  it("a redelivered event is acknowledged as a duplicate and issues nothing more", async () => {
    const before = (await gw.keys.list()).length;
    const again = await deliver("evt_checkout_alpha", "checkout.session.completed", checkout("cs_test_alpha", "sub_alpha", "cus_alpha"));
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect((await gw.keys.list()).length).toBe(before);
  });

  it("HEAD does nothing its GET does: no Checkout Session is created, and the key's one display is not spent", async () => {
    const calls = stripe.requests.length;
    const subscribe = await gw.get("/subscribe", { method: "HEAD" });
    expect([subscribe.status, subscribe.headers.get("location"), subscribe.headers.get("cache-control")]).toEqual([303, null, "no-store"]);
    expect(stripe.requests.length).toBe(calls);
    for (const accept of ["application/json", "text/html", "application/json", "text/html"]) {
      const peek = await gw.get("/subscribe/success?session_id=cs_test_alpha", { method: "HEAD", headers: { accept } });
      expect(peek.status).toBe(200);
      expect(peek.headers.get("content-type")).toMatch(accept === "text/html" ? /^text\/html/ : /^application\/json/);
      expect(await peek.text()).toBe("");
    }
    expect((await gw.get("/subscribe/success?session_id=cs_test_unknown", { method: "HEAD" })).status).toBe(202);
    expect((await gw.get("/subscribe/success?session_id=../x", { method: "HEAD" })).status).toBe(400);
  });

  it("shows the key exactly once as JSON; later visits (JSON or HTML) say it was already shown", async () => {
    const head = await gw.get("/subscribe/success?session_id=cs_test_alpha", { method: "HEAD", headers: { accept: "application/json" } });
    const first = await gw.get("/subscribe/success?session_id=cs_test_alpha", { headers: { accept: "application/json" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(Number(head.headers.get("content-length"))).toBe(Number(first.headers.get("content-length") ?? (await first.clone().arrayBuffer()).byteLength));
    const body = await first.json();
    expect(body).toEqual({ api_key: expect.stringMatching(/^fds_[A-Za-z0-9_-]{43}$/), key_id: expect.stringMatching(/^[0-9a-f]{12}$/) });
    keyOf.alpha = body.api_key;
    const json = await gw.get("/subscribe/success?session_id=cs_test_alpha", { headers: { accept: "application/json" } });
    expect(json.status).toBe(410);
    expect((await json.json()).error.code).toBe("key_already_shown");
    const html = await gw.get("/subscribe/success?session_id=cs_test_alpha", { headers: { accept: "text/html,*/*" } });
    expect(html.status).toBe(410);
    const gone = await gw.get("/subscribe/success?session_id=cs_test_alpha", { method: "HEAD", headers: { accept: "application/json" } });
    expect([gone.status, await gone.text()]).toEqual([410, ""]);
    expect(await html.text()).not.toContain("fds_");
  });

  it("shows the key once as an HTML page to a browser", async () => {
    stripe.subscriptions.set("sub_beta", subscriptionObject("sub_beta", "cus_beta"));
    expect((await deliver("evt_checkout_beta", "checkout.session.completed", checkout("cs_test_beta", "sub_beta", "cus_beta"))).status).toBe(200);
    const page = await gw.get("/subscribe/success?session_id=cs_test_beta", { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const key = /<pre>(fds_[A-Za-z0-9_-]{43})<\/pre>/.exec(await page.text())?.[1];
    expect(key).toBeDefined();
    keyOf.beta = key!;
    const again = await gw.get("/subscribe/success?session_id=cs_test_beta", { headers: { accept: "application/json" } });
    expect(again.status).toBe(410);
  });

  it("the key works on every paid endpoint and an MCP tool, with no x402", async () => {
    expect(await paidStatuses(keyOf.alpha!)).toEqual(PAID_ROUTES.map(() => 200));
    const client = new Client({ name: "subscriber", version: "1.0.0" });
    const fetchViaApp = async (url: string | URL, init?: RequestInit) => gw.app.fetch(new Request(url, init));
    await client.connect(new StreamableHTTPClientTransport(new URL("http://gateway.test/mcp"), { requestInit: { headers: withKey(keyOf.alpha!).headers }, fetch: fetchViaApp }));
    // As an agent does: the tools listed first, so the client validates the result against the tool's output schema.
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "get_latest_filings")?.outputSchema).toBeDefined();
    const result = (await client.callTool({ name: "get_latest_filings", arguments: { ticker: "AAPL", limit: 1 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { data: unknown[] }).data).toHaveLength(1);
    await client.close();
  });

  it("POST /billing/portal answers a Billing Portal URL for the key's customer; 401 for a bad key, 400 for an operator key", async () => {
    const res = await gw.get("/billing/portal", { method: "POST", headers: { "x-api-key": keyOf.alpha! } });
    expect(res.status).toBe(200);
    expect((await res.json()).url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
    expect(stripe.requests.at(-1)).toMatchObject({ method: "POST", path: "/v1/billing_portal/sessions" });
    expect(stripe.requests.at(-1)!.form.get("customer")).toBe("cus_alpha");
    const bad = await gw.get("/billing/portal", { method: "POST", headers: { authorization: "Bearer fds_nope" } });
    expect([bad.status, (await bad.json()).error.code]).toEqual([401, "invalid_api_key"]);
    const { key: operatorKey } = await gw.keys.create("ops");
    const plain = await gw.get("/billing/portal", { method: "POST", ...withKey(operatorKey) });
    expect([plain.status, (await plain.json()).error.code]).toEqual([400, "invalid_parameter"]);
    expect((await gw.get("/billing/portal")).status).toBe(405);
  });

  it("cancel at period end keeps the key working; the operator sees it in `keys list`", async () => {
    const end = Math.floor(Date.now() / 1000) + 10 * 86_400;
    const cancelling = subscriptionObject("sub_alpha", "cus_alpha", { cancel_at_period_end: true, period_end: end });
    stripe.subscriptions.set("sub_alpha", cancelling); // the webhook reads the subscription's state from Stripe
    const res = await deliver("evt_cancel_alpha", "customer.subscription.updated", cancelling);
    expect(res.status).toBe(200);
    expect(await paidStatuses(keyOf.alpha!)).toEqual(PAID_ROUTES.map(() => 200));
    const out: string[] = [];
    expect(await keysMain(["list", "--data", data.dataDir], {}, (line) => void out.push(line))).toBe(0);
    const listing = out.join("\n");
    expect(listing).toContain(`subscription active (accepted, ends ${new Date(end * 1000).toISOString()})  cus_alpha sub_alpha`);
    expect(listing).toMatch(/subscription active \(accepted, renews \S+\)  cus_beta sub_beta/);
    expect(listing).not.toContain(keyOf.alpha!);
  });

  it("customer.subscription.deleted refuses the key at once (401), even though it was just verified", async () => {
    const ended = { ...subscriptionObject("sub_alpha", "cus_alpha", { status: "canceled", cancel_at_period_end: true }), ended_at: clock };
    stripe.subscriptions.set("sub_alpha", ended);
    expect((await deliver("evt_deleted_alpha", "customer.subscription.deleted", ended)).status).toBe(200);
    const res = await gw.get("/insiders?ticker=JNJ", withKey(keyOf.alpha!));
    expect(res.status).toBe(401);
    expect(res.headers.get("payment-required")).toBeNull();
    expect((await res.json()).error.code).toBe("invalid_api_key");
  });

  it("replayed, out-of-order and late 'active' events cannot revive an ended subscription", async () => {
    const replay = await deliver("evt_cancel_alpha", "customer.subscription.updated", subscriptionObject("sub_alpha", "cus_alpha"));
    expect(await replay.json()).toMatchObject({ duplicate: true });
    await deliver("evt_old_alpha", "customer.subscription.updated", subscriptionObject("sub_alpha", "cus_alpha"), clock - 100);
    await deliver("evt_late_alpha", "customer.subscription.updated", subscriptionObject("sub_alpha", "cus_alpha"));
    expect((await gw.get("/insiders?ticker=JNJ", withKey(keyOf.alpha!))).status).toBe(401);
  });

  it("tampered, unsigned, wrongly signed and stale webhooks are refused with 400 and change nothing", async () => {
    const revive = subscriptionObject("sub_alpha", "cus_alpha");
    const { body, signature } = signedEvent("evt_forged", "customer.subscription.updated", { ...revive, status: "canceled" }, ++clock);
    const post = (headers: Record<string, string>, payload = body) => gw.get("/webhooks/stripe", { method: "POST", headers, body: payload });
    const attempts = [
      await post({ "stripe-signature": signature }, body.replace('"canceled"', '"active"')),
      await post({}),
      await post({ "stripe-signature": signedEvent("evt_forged", "x", revive, clock, "whsec_someoneelse").signature }),
      await post({ "stripe-signature": signature.replace(/t=\d+/, `t=${clock - 3600}`) }),
      await post({ "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_TEST_ENV.STRIPE_WEBHOOK_SECRET, timestamp: clock - 3600 }) }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe("invalid_parameter");
    }
    expect((await gw.get("/insiders?ticker=JNJ", withKey(keyOf.alpha!))).status).toBe(401);
  });

  it("a failed payment keeps the key while past_due (Stripe retrying), and refuses it once the subscription is unpaid", async () => {
    const invoice = (id: string) => ({ id, object: "invoice", customer: "cus_beta", status: "open", parent: { type: "subscription_details", subscription_details: { subscription: "sub_beta" } } });
    stripe.subscriptions.set("sub_beta", subscriptionObject("sub_beta", "cus_beta", { status: "past_due" }));
    expect((await deliver("evt_fail_beta_1", "invoice.payment_failed", invoice("in_1"))).status).toBe(200);
    expect(await paidStatuses(keyOf.beta!)).toEqual(PAID_ROUTES.map(() => 200));
    stripe.subscriptions.set("sub_beta", subscriptionObject("sub_beta", "cus_beta", { status: "unpaid" }));
    expect((await deliver("evt_fail_beta_4", "invoice.payment_failed", invoice("in_1"))).status).toBe(200);
    expect(await paidStatuses(keyOf.beta!)).toEqual(PAID_ROUTES.map(() => 401));
    const out: string[] = [];
    await keysMain(["list", "--data", data.dataDir], {}, (line) => void out.push(line));
    expect(out.join("\n")).toMatch(/subscription unpaid \(refused, renews \S+\)  cus_beta sub_beta/);
  });

  it("a webhook that cannot be processed (Stripe unreachable for the subscription) is 503, so Stripe retries it", async () => {
    const event = () => deliver("evt_checkout_gamma", "checkout.session.completed", checkout("cs_test_gamma", "sub_gamma", "cus_gamma"));
    const failed = await event();
    expect([failed.status, (await failed.json()).error.code]).toEqual([503, "stripe_unavailable"]);
    stripe.subscriptions.set("sub_gamma", subscriptionObject("sub_gamma", "cus_gamma"));
    expect(await (await event()).json()).toEqual({ received: true, duplicate: false });
    expect((await gw.get("/subscribe/success?session_id=cs_test_gamma", { headers: { accept: "application/json" } })).status).toBe(200);
  });

  it("never logs a key or a Stripe secret", () => {
    const logged = JSON.stringify(gw.logs);
    for (const secret of [keyOf.alpha!, keyOf.beta!, STRIPE_TEST_ENV.STRIPE_SECRET_KEY, STRIPE_TEST_ENV.STRIPE_WEBHOOK_SECRET]) expect(logged).not.toContain(secret);
    expect(gw.logs.some((l) => l.event === "subscription_key_issued")).toBe(true);
  });
});
