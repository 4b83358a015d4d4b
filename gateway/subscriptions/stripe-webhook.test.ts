// The webhook when things fail (in process, over a folder store whose reads and writes can be made to fail): a half-done
// takeover never loses the event, a failure is logged and answered saying what failed, a cut-short body is no error.
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "h3";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../logging/log.ts";
import { EventClaim } from "../../schemas/subscription.ts";
import { writeJson } from "../../storage/json.ts";
import { billingKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { removeDir } from "../../test/_s3.ts";
import { testGateway } from "../../test/_gateway.ts";
import { signedEvent, startStripe, STRIPE_TEST_ENV, type StripeStandIn } from "../../test/_stripe.ts";
import type { ApiError } from "../http/errors.ts";
import { KeyStore } from "../payment/keys.ts";
import { Sealer } from "./seal.ts";
import { receiveWebhook } from "./stripe-webhook.ts";

const dir = mkdtempSync(join(tmpdir(), "webhook-takeover-"));
afterAll(() => removeDir(dir));

it("a takeover whose claim write fails gives the claim back: the next delivery takes it over and applies the event", async () => {
  const storage = openStorage(dir);
  const claimKey = billingKey("events", "evt_takeover_fails");
  let failClaimWrites = 1;
  const setItemRaw = storage.setItemRaw.bind(storage);
  storage.setItemRaw = (async (key: string, value: unknown, options?: never) => {
    if (key === claimKey && failClaimWrites-- > 0) throw new Error("store unreachable");
    return setItemRaw(key, value, options);
  }) as typeof storage.setItemRaw;
  const deps = {
    stripe: new Stripe(STRIPE_TEST_ENV.STRIPE_SECRET_KEY),
    webhookSecret: STRIPE_TEST_ENV.STRIPE_WEBHOOK_SECRET,
    keys: new KeyStore(storage),
    storage,
    sealer: new Sealer("a webhook test's sealing secret"),
    log: memoryLogger().log,
  };
  // A replica claimed the event ten minutes ago and died: the claim is stale. The event is one the webhook ignores.
  const stale = new Date(Date.now() - 10 * 60_000).toISOString();
  await writeJson(openStorage(dir), claimKey, EventClaim, { type: "invoice.created", claimed_at: stale, processed_at: null });
  const { body, signature } = signedEvent("evt_takeover_fails", "invoice.created", { id: "in_1", object: "invoice" }, Math.floor(Date.now() / 1000));
  await expect(receiveWebhook(deps, Buffer.from(body), signature)).rejects.toMatchObject({ code: "storage_unavailable" });
  expect(await receiveWebhook(deps, Buffer.from(body), signature)).toEqual({ duplicate: false }); // Stripe's retry
  expect(await receiveWebhook(deps, Buffer.from(body), signature)).toEqual({ duplicate: true });
});

it("stripe_webhook_failed names the event's type and id, and the 503 says what failed: Stripe's API, or the store", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve)); // nothing listens there now: Stripe is unreachable
  const lines: string[] = [];
  const storage = openStorage(dir);
  const deps = {
    stripe: new Stripe(STRIPE_TEST_ENV.STRIPE_SECRET_KEY, { host: "127.0.0.1", port, protocol: "http", maxNetworkRetries: 0 }),
    webhookSecret: STRIPE_TEST_ENV.STRIPE_WEBHOOK_SECRET,
    keys: new KeyStore(storage),
    storage,
    sealer: new Sealer("a webhook test's sealing secret"),
    log: createLogger("info", (line) => void lines.push(line)).log,
  };
  const checkout = { id: "cs_test_failing", object: "checkout.session", mode: "subscription", status: "complete", customer: "cus_failing", subscription: "sub_failing" };
  const { body, signature } = signedEvent("evt_failing_stripe", "checkout.session.completed", checkout, Math.floor(Date.now() / 1000));
  const unreachable = await receiveWebhook(deps, Buffer.from(body), signature).catch((error: ApiError) => error);
  expect(unreachable).toMatchObject({ code: "stripe_unavailable", status: 503, message: expect.stringMatching(/^Stripe's API did not give subscription sub_failing \(StripeConnectionError\)/) });
  expect((unreachable as ApiError).hint).not.toMatch(/not configured/);
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ level: "error", event: "stripe_webhook_failed", event_id: "evt_failing_stripe", type: "checkout.session.completed", code: "stripe_unavailable" });

  // The store stops answering reads of checkout sessions (Stripe's retry of the same event).
  const getItemRaw = storage.getItemRaw.bind(storage);
  storage.getItemRaw = (async (key: string, options?: never) => {
    if (key.startsWith("billing/sessions/")) throw new Error("store unreachable");
    return getItemRaw(key, options);
  }) as typeof storage.getItemRaw;
  const storeDown = await receiveWebhook(deps, Buffer.from(body), signature).catch((error: ApiError) => error);
  expect(storeDown).toMatchObject({ code: "storage_unavailable", status: 503 });
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ level: "error", event: "stripe_webhook_failed", event_id: "evt_failing_stripe", type: "checkout.session.completed", code: "storage_unavailable", error: "store unreachable" });
});

describe("a delivery whose body is cut short (the sender closed the connection) is the sender's problem: no error-level line", () => {
  let stripe: StripeStandIn;
  let gw: ReturnType<typeof testGateway>;
  let server: ReturnType<typeof serve>;
  let port: number;
  beforeAll(async () => {
    stripe = await startStripe();
    gw = testGateway(dir, { env: stripe.env });
    server = serve(gw.app, { port: 0, hostname: "127.0.0.1", silent: true });
    await server.ready();
    port = Number(new URL(server.url!).port);
  });
  afterAll(async () => {
    await server?.close(true);
    gw?.close();
    await stripe?.stop();
  });

  it.each([
    ["a Content-Length body", "Content-Length: 1000\r\n\r\n{\"id\":\"evt_cut"],
    ["a chunked body", "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"id\"\r\n"],
  ])("%s, then the connection closes", async (_, rest) => {
    const seen = gw.logs.length;
    const socket = connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(`POST /webhooks/stripe HTTP/1.1\r\nHost: gateway.test\r\nContent-Type: application/json\r\nStripe-Signature: t=1,v1=00\r\n${rest}`);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the gateway is reading the body
    socket.destroy();
    await vi.waitFor(() => expect(gw.logs.slice(seen).some((l) => l.event === "stripe_webhook_body_incomplete" || l.level === "error")).toBe(true));
    expect(gw.logs.slice(seen).filter((l) => l.level === "error")).toEqual([]);
    expect(gw.logs.slice(seen).find((l) => l.event === "stripe_webhook_body_incomplete")?.level).toBe("info");
  });
});
