import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStorage } from "../../storage/open.ts";
import { removeDir } from "../../test/_s3.ts";
import { testGateway } from "../../test/_gateway.ts";
import { STRIPE_TEST_ENV } from "../../test/_stripe.ts";
import { describeConfig, loadConfig } from "../config.ts";
import { KeyStore, type SubscriptionState } from "../payment/keys.ts";
import { Sealer } from "./seal.ts";

const DAY = 86_400_000;
const state = (fields: Partial<SubscriptionState>): SubscriptionState => ({
  customer: "cus_1",
  id: "sub_1",
  status: "active",
  current_period_end: new Date(Date.now() + 20 * DAY).toISOString(),
  cancel_at_period_end: false,
  synced_at: 1000,
  ...fields,
});

describe("subscription configuration", () => {
  it("takes the three STRIPE_* variables together or not at all, and never describes a secret", () => {
    expect(loadConfig({}).stripe).toBeNull();
    expect(() => loadConfig({ STRIPE_SECRET_KEY: STRIPE_TEST_ENV.STRIPE_SECRET_KEY })).toThrow(/all of STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ ...STRIPE_TEST_ENV, STRIPE_PRICE_ID: "19 dollars" })).toThrow(/STRIPE_PRICE_ID must be a Stripe price id/);
    const config = loadConfig({ ...STRIPE_TEST_ENV, STRIPE_API_BASE: "http://127.0.0.1:12111" });
    expect(config.stripe).toMatchObject({ priceId: "price_test_monthly19", api: { host: "127.0.0.1", port: 12111, protocol: "http" } });
    const described = JSON.stringify(describeConfig(config));
    expect(described).toContain("price_test_monthly19");
    expect(described).not.toContain(STRIPE_TEST_ENV.STRIPE_SECRET_KEY);
    expect(described).not.toContain(STRIPE_TEST_ENV.STRIPE_WEBHOOK_SECRET);
  });

  it("without Stripe, every subscription route answers 503 subscriptions_unavailable in the error body", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nostripe-"));
    const gw = testGateway(dir);
    for (const [path, method] of [["/subscribe", "GET"], ["/subscribe/success?session_id=cs_test_1", "GET"], ["/webhooks/stripe", "POST"], ["/billing/portal", "POST"]] as const) {
      const res = await gw.get(path, { method, ...(method === "POST" ? { body: "{}" } : {}) });
      expect(res.status).toBe(503);
      expect((await res.json()).error).toMatchObject({ code: "subscriptions_unavailable", hint: expect.any(String) });
    }
    expect((await gw.get("/subscribe/success?session_id=../../etc")).status).toBe(400);
    for (const path of ["/subscribe", "/subscribe/success?session_id=cs_test_1"]) {
      const head = await gw.get(path, { method: "HEAD" });
      expect([head.status, await head.text()]).toEqual([503, ""]);
    }
    gw.close();
    removeDir(dir);
  });
});

describe("subscription keys", () => {
  it("follow their subscription: usable while active or past_due, until the end of a cancelled period, never after it ended", async () => {
    const dir = mkdtempSync(join(tmpdir(), "subkeys-"));
    const keys = new KeyStore(openStorage(dir));
    const { key, hash } = await keys.create(null, new Date(), state({}));
    expect(await keys.verify(key)).toBe(true);
    expect(await keys.updateSubscription(hash, state({ status: "past_due", synced_at: 1001 }))).toBe(true);
    expect(await keys.verify(key)).toBe(true);
    // The deleted webhook got lost: a cancel-at-period-end key still stops at its period end, cache or not.
    const end = Date.now() + DAY;
    expect(await keys.updateSubscription(hash, state({ cancel_at_period_end: true, current_period_end: new Date(end).toISOString(), synced_at: 1002 }))).toBe(true);
    expect(await keys.verify(key, new Date(end - 1000))).toBe(true);
    expect(await keys.verify(key, new Date(end + 1000))).toBe(false);
    // An ended subscription is never revived (a state read before it ended is stale).
    expect(await keys.updateSubscription(hash, state({ status: "canceled", synced_at: 1003 }))).toBe(true);
    expect(await keys.updateSubscription(hash, state({ status: "active", synced_at: 1004 }))).toBe(false);
    expect(await keys.verify(key)).toBe(false);
    expect((await keys.lookup(key))?.subscription?.status).toBe("canceled"); // still known: the billing portal works
    removeDir(dir);
  });

  it("an unpaid subscription that is paid again makes its key usable again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "subkeys-"));
    const keys = new KeyStore(openStorage(dir));
    const { key, hash } = await keys.create(null, new Date(), state({ status: "unpaid" }));
    expect(await keys.verify(key)).toBe(false);
    await keys.updateSubscription(hash, state({ status: "active", synced_at: 1001 }));
    expect(await keys.verify(key)).toBe(true);
    removeDir(dir);
  });

  it("seals a key to its checkout session under the webhook secret; anything else does not open it", () => {
    const sealed = new Sealer("whsec_a").seal("fds_secret", "cs_1");
    expect(sealed).not.toContain("fds_secret");
    expect(new Sealer("whsec_a").open(sealed, "cs_1")).toBe("fds_secret");
    expect(new Sealer("whsec_a").open(sealed, "cs_2")).toBeNull();
    expect(new Sealer("whsec_b").open(sealed, "cs_1")).toBeNull();
    expect(new Sealer("whsec_a").open(`${sealed.slice(0, -2)}AA`, "cs_1")).toBeNull();
  });
});
