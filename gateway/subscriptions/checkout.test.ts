// GET /subscribe asks Stripe for a Checkout Session (a write to Stripe's API): at most the free allowance per address,
// and none for a browser that already has an open session (issue 39). Stripe is the loopback stand-in.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir } from "../../test/_s3.ts";
import { testGateway } from "../../test/_gateway.ts";
import { signedEvent, startStripe, subscriptionObject, type StripeStandIn } from "../../test/_stripe.ts";
import { CHECKOUT_COOKIE, checkoutCookie, openCheckoutCookie } from "./checkout-cookie.ts";
import { Sealer } from "./seal.ts";

describe("GET /subscribe: one open Checkout Session per browser, and no more than the address's allowance", () => {
  let stripe: StripeStandIn;
  let dir: string;
  beforeAll(async () => {
    stripe = await startStripe();
    dir = mkdtempSync(join(tmpdir(), "checkout-"));
  });
  afterAll(async () => {
    await stripe?.stop();
    if (dir) removeDir(dir);
  });
  const creations = () => stripe.requests.filter((r) => r.method === "POST" && r.path === "/v1/checkout/sessions").length;
  /** The cookie's value in a Set-Cookie header, as a browser sends it back. */
  const cookieOf = (setCookie: string | null) => `${CHECKOUT_COOKIE}=${new RegExp(`^${CHECKOUT_COOKIE}=([^;]+)`).exec(setCookie ?? "")?.[1]}`;

  it("200 simultaneous GETs from one address, without a cookie: Stripe gets as many creations as the burst allows, the rest are 429", async () => {
    const gw = testGateway(dir, { env: { ...stripe.env, FREE_RATE_PER_MINUTE: "60", FREE_BURST: "5" } });
    const before = creations();
    const answers = await Promise.all(Array.from({ length: 200 }, () => gw.get("/subscribe")));
    expect(creations() - before).toBe(5);
    expect(answers.filter((a) => a.status === 303)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(195);
    expect(Number(refused[0]!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await refused[0]!.json()).error.code).toBe("rate_limited");
    gw.close();
  });

  it("a browser that clicks again, 200 times at once, is sent back to its session: no new creation", async () => {
    const gw = testGateway(dir, { env: stripe.env }); // no per-address limit here: only the cookie is at work
    const first = await gw.get("/subscribe");
    expect(first.status).toBe(303);
    const setCookie = first.headers.get("set-cookie");
    // About 24 h (Stripe's default expiry) less the 15 minutes a subscriber needs; for /subscribe only, never to scripts.
    expect(setCookie).toMatch(new RegExp(`^${CHECKOUT_COOKIE}=[\\w-]+; Max-Age=(8[45]\\d{3}); Path=/subscribe; HttpOnly; SameSite=Lax; Secure$`));
    expect(setCookie).not.toContain("cs_test_"); // sealed: the session id is not readable from the cookie
    const before = creations();
    const again = await Promise.all(Array.from({ length: 200 }, () => gw.get("/subscribe", { headers: { cookie: cookieOf(setCookie) } })));
    expect(creations()).toBe(before);
    for (const res of again) {
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(first.headers.get("location"));
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    gw.close();
  });

  it("a new session (and cookie) once the browser's session has completed, or for a cookie altered or sealed under another secret", async () => {
    const gw = testGateway(dir, { env: stripe.env });
    const first = await gw.get("/subscribe");
    const cookie = cookieOf(first.headers.get("set-cookie"));
    const forged = `${CHECKOUT_COOKIE}=${new Sealer("whsec_someoneelse").seal(JSON.stringify({ id: "cs_test_x", url: "https://evil.test/", expires_at: 2e9 }), "checkout-cookie/v1")}`;
    for (const other of [forged, `${cookie.slice(0, -4)}AAAA`, `${CHECKOUT_COOKIE}=garbage`]) {
      const before = creations();
      const res = await gw.get("/subscribe", { headers: { cookie: other } });
      expect([res.status, creations() - before]).toEqual([303, 1]);
      expect(res.headers.get("location")).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    }
    // The subscriber pays: Stripe's webhook records the session's key. The next visit starts a new checkout.
    const sessionId = /\/pay\/(cs_test_\w+)#/.exec(first.headers.get("location")!)![1]!;
    stripe.subscriptions.set("sub_checkout1", subscriptionObject("sub_checkout1", "cus_checkout1"));
    const checkout = { id: sessionId, object: "checkout.session", mode: "subscription", status: "complete", customer: "cus_checkout1", subscription: "sub_checkout1" };
    const { body, signature } = signedEvent("evt_checkout_cookie1", "checkout.session.completed", checkout, Math.floor(Date.now() / 1000));
    expect((await gw.get("/webhooks/stripe", { method: "POST", headers: { "stripe-signature": signature }, body })).status).toBe(200);
    const before = creations();
    const next = await gw.get("/subscribe", { headers: { cookie } });
    expect(creations() - before).toBe(1);
    expect(next.headers.get("location")).not.toBe(first.headers.get("location"));
    expect(next.headers.get("set-cookie")).toMatch(new RegExp(`^${CHECKOUT_COOKIE}=`));
    gw.close();
  });

  it("the cookie names its session until 15 minutes before Stripe expires it: an hour later it still does, at the end it does not", () => {
    const sealer = new Sealer("whsec_cookie");
    const now = new Date("2026-07-01T12:00:00Z");
    const session = { id: "cs_test_cookie", url: "https://checkout.stripe.com/c/pay/cs_test_cookie#x", expires_at: now.getTime() / 1000 + 86_400 };
    const value = /^fds_checkout=([^;]+); Max-Age=85500;/.exec(checkoutCookie(sealer, session, now, true)!)![1]!;
    expect(openCheckoutCookie(sealer, value, new Date(now.getTime() + 3_600_000))).toEqual(session);
    expect(openCheckoutCookie(sealer, value, new Date(now.getTime() + (86_400 - 15 * 60) * 1000))).toBeNull();
    expect(checkoutCookie(sealer, { ...session, expires_at: now.getTime() / 1000 + 15 * 60 }, now, true)).toBeNull(); // too short to offer again
    expect(checkoutCookie(sealer, session, now, false)).not.toContain("Secure"); // a deployment on plain http (local)
  });
});
