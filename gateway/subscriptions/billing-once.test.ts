import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson, writeJson } from "../../storage/json.ts";
import { billingKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { EventClaim, SessionRecord } from "../../schemas/subscription.ts";
import { startGatewayProcess, type GatewayProcess } from "../../test/_gateway-process.ts";
import { removeDir, startConditionalS3, startS3, type ConditionalS3, type S3Server } from "../../test/_s3.ts";
import { signedEvent, startStripe, subscriptionObject, type StripeStandIn } from "../../test/_stripe.ts";
import { KeyStore } from "../payment/keys.ts";

// Whatever must happen once across replicas (issue 17): two real gateway processes (`npm run serve`) share one store
// and nothing else — a folder, then S3 (s3rver behind the conditional-write stand-in) — and are hit at once over HTTP.

const backends = [
  { name: "a folder", s3: false },
  { name: "S3", s3: true },
] as const;

describe.each(backends)("shown once and applied once, across two gateway processes sharing $name", ({ s3: useS3 }) => {
  let stripe: StripeStandIn;
  let s3: S3Server | undefined;
  let conditional: ConditionalS3 | undefined;
  let dir: string | undefined;
  let location: string;
  let storageEnv: Record<string, string> = {};
  let gateways: GatewayProcess[] = [];
  let clock = Math.floor(Date.now() / 1000) - 60;
  const store = () => openStorage(location, storageEnv);

  beforeAll(async () => {
    stripe = await startStripe();
    if (useS3) {
      s3 = await startS3();
      conditional = await startConditionalS3(s3);
      location = `s3://${s3.bucket}/replicas`;
      storageEnv = { ...conditional.env, AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" };
    } else {
      dir = mkdtempSync(join(tmpdir(), "replicas-"));
      location = dir;
    }
    gateways = await Promise.all([0, 1].map(() => startGatewayProcess({ ...stripe.env, ...storageEnv, DATA_URL: location })));
  }, 60_000);
  afterAll(async () => {
    for (const g of gateways) g.child.kill("SIGKILL");
    await stripe?.stop();
    await conditional?.stop();
    await s3?.close();
    if (dir) removeDir(dir);
  });

  const checkout = (n: number) => ({ id: `cs_test_once${n}`, object: "checkout.session", mode: "subscription", status: "complete", customer: `cus_once${n}`, subscription: `sub_once${n}` });
  /** POSTs one signed delivery to replica `i % 2`. */
  const deliver = (i: number, body: string, signature: string) =>
    fetch(`${gateways[i % 2]!.url}/webhooks/stripe`, { method: "POST", headers: { "stripe-signature": signature, "content-type": "application/json" }, body });
  const visit = (i: number, session: string) => fetch(`${gateways[i % 2]!.url}/subscribe/success?session_id=${session}`, { headers: { accept: "application/json" } });

  it("20 simultaneous deliveries of one event, 10 to each replica: it is applied once, one key exists", async () => {
    stripe.subscriptions.set("sub_once0", subscriptionObject("sub_once0", "cus_once0"));
    const { body, signature } = signedEvent("evt_once_checkout0", "checkout.session.completed", checkout(0), ++clock);
    const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const res = await deliver(i, body, signature);
      return { status: res.status, ...((await res.json()) as { duplicate?: boolean }) };
    }));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => a.duplicate === false)).toHaveLength(1);
    const keys = await new KeyStore(store()).list();
    expect(keys).toHaveLength(1);
    expect(keys[0]!.subscription).toMatchObject({ id: "sub_once0", customer: "cus_once0", status: "active" });
    // Stripe was asked for the subscription twice (to issue the key, then to check it did not change meanwhile), by
    // the one delivery that applied the event: the losing deliveries did no work.
    expect(stripe.requests.filter((r) => r.path === "/v1/subscriptions/sub_once0")).toHaveLength(2);
    expect(await readJson(store(), billingKey("events", "evt_once_checkout0"), EventClaim)).toMatchObject({ processed_at: expect.any(String) });
  });

  it("20 simultaneous visits to each of 10 success pages, across both replicas: each key is shown exactly once", async () => {
    for (let n = 1; n <= 10; n++) {
      stripe.subscriptions.set(`sub_once${n}`, subscriptionObject(`sub_once${n}`, `cus_once${n}`));
      const { body, signature } = signedEvent(`evt_once_checkout${n}`, "checkout.session.completed", checkout(n), ++clock);
      expect((await deliver(n, body, signature)).status).toBe(200);
    }
    const visits = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const session = `cs_test_once${(i % 10) + 1}`;
        const res = await visit(i >> 1, session);
        return { session, status: res.status, body: (await res.json()) as { api_key?: string; error?: { code: string } } };
      }),
    );
    const keys = new KeyStore(store());
    for (let n = 1; n <= 10; n++) {
      const mine = visits.filter((v) => v.session === `cs_test_once${n}`);
      const shown = mine.filter((v) => v.status === 200);
      expect(shown).toHaveLength(1);
      expect(mine.filter((v) => v.status === 410 && v.body.error?.code === "key_already_shown")).toHaveLength(19);
      expect(await keys.verify(shown[0]!.body.api_key!)).toBe(true);
    }
    expect(new Set(visits.filter((v) => v.status === 200).map((v) => v.body.api_key)).size).toBe(10);
  });

  it("a delivery that fails releases its claim, so Stripe's retry applies the event", async () => {
    const { body, signature } = signedEvent("evt_once_checkout11", "checkout.session.completed", checkout(11), ++clock);
    const failed = await deliver(0, body, signature); // Stripe does not know sub_once11 yet: the webhook cannot finish
    expect(failed.status).toBe(503);
    expect(await store().hasItem(billingKey("events", "evt_once_checkout11"))).toBe(false);
    stripe.subscriptions.set("sub_once11", subscriptionObject("sub_once11", "cus_once11"));
    expect(await (await deliver(1, body, signature)).json()).toEqual({ received: true, duplicate: false });
    expect((await visit(0, "cs_test_once11")).status).toBe(200);
  });

  it("a replica that died while applying an event: its claim is taken over after the lease, and what it left half done is completed", async () => {
    stripe.subscriptions.set("sub_once12", subscriptionObject("sub_once12", "cus_once12"));
    const { body, signature } = signedEvent("evt_once_checkout12", "checkout.session.completed", checkout(12), ++clock);
    expect((await deliver(0, body, signature)).status).toBe(200);
    // As if the replica died after the session record: the key's record and the link are lost, the claim is stale.
    const storage = store();
    const session = (await readJson(storage, billingKey("sessions", "cs_test_once12"), SessionRecord))!;
    await storage.removeItem(`keys/${session.key_hash}.json`);
    await storage.removeItem(billingKey("subscriptions", "sub_once12"));
    expect((await visit(0, "cs_test_once12")).status).toBe(202); // the key is not usable yet: not shown
    const stale = new Date(Date.now() - 10 * 60_000).toISOString();
    await writeJson(storage, billingKey("events", "evt_once_checkout12"), EventClaim, { type: "checkout.session.completed", claimed_at: stale, processed_at: null });
    expect(await (await deliver(1, body, signature)).json()).toEqual({ received: true, duplicate: false });
    const shown = await visit(1, "cs_test_once12");
    expect(shown.status).toBe(200);
    const { api_key } = (await shown.json()) as { api_key: string };
    expect(await new KeyStore(store()).verify(api_key)).toBe(true); // the same key the session sealed, recorded again
    expect((await readJson(store(), billingKey("sessions", "cs_test_once12"), SessionRecord))!.key_hash).toBe(session.key_hash);
  });

  it("20 deliveries at once, 10 to each replica, of an event whose claim was abandoned: one takes it over and applies it", async () => {
    stripe.subscriptions.set("sub_once13", subscriptionObject("sub_once13", "cus_once13"));
    const { body, signature } = signedEvent("evt_once_checkout13", "checkout.session.completed", checkout(13), ++clock);
    // As if a replica claimed the event ten minutes ago and died before doing anything.
    const stale = new Date(Date.now() - 10 * 60_000).toISOString();
    await writeJson(store(), billingKey("events", "evt_once_checkout13"), EventClaim, { type: "checkout.session.completed", claimed_at: stale, processed_at: null });
    const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => (await (await deliver(i, body, signature)).json()) as { duplicate?: boolean }));
    expect(answers.filter((a) => a.duplicate === false)).toHaveLength(1);
    expect(answers.filter((a) => a.duplicate === true)).toHaveLength(19);
    // The one that took over asked Stripe (twice, as above); none of the others did any of the work.
    expect(stripe.requests.filter((r) => r.path === "/v1/subscriptions/sub_once13")).toHaveLength(2);
    expect((await visit(0, "cs_test_once13")).status).toBe(200);
  });

  it("a subscription event delivered 20 times at once to both replicas is applied once", async () => {
    const end = Math.floor(Date.now() / 1000) + 5 * 86_400;
    const update = subscriptionObject("sub_once1", "cus_once1", { cancel_at_period_end: true, period_end: end });
    stripe.subscriptions.set("sub_once1", update);
    const before = stripe.requests.length;
    const { body, signature } = signedEvent("evt_once_cancel1", "customer.subscription.updated", update, ++clock);
    const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => (await (await deliver(i, body, signature)).json()) as { duplicate?: boolean }));
    expect(answers.filter((a) => a.duplicate === false)).toHaveLength(1);
    expect(answers.filter((a) => a.duplicate === true)).toHaveLength(19);
    const record = (await new KeyStore(store()).list()).find((k) => k.subscription?.id === "sub_once1");
    expect(record?.subscription).toMatchObject({ cancel_at_period_end: true, current_period_end: new Date(end * 1000).toISOString() });
    expect(stripe.requests.slice(before).filter((r) => r.path === "/v1/subscriptions/sub_once1")).toHaveLength(2); // read, then checked, once
  });
});
