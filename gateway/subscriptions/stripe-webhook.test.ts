// Taking over an abandoned event claim when the store fails half way (the webhook in process, over a folder store whose
// writes of the claim can be made to fail): the event is never lost to a half-done takeover.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { afterAll, expect, it } from "vitest";
import { EventClaim } from "../../schemas/subscription.ts";
import { writeJson } from "../../storage/json.ts";
import { billingKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { removeDir } from "../../test/_s3.ts";
import { signedEvent, STRIPE_TEST_ENV } from "../../test/_stripe.ts";
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
  await expect(receiveWebhook(deps, Buffer.from(body), signature)).rejects.toMatchObject({ code: "subscriptions_unavailable" });
  expect(await receiveWebhook(deps, Buffer.from(body), signature)).toEqual({ duplicate: false }); // Stripe's retry
  expect(await receiveWebhook(deps, Buffer.from(body), signature)).toEqual({ duplicate: true });
});
