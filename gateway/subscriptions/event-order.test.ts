// Stripe events in any order (issue 39): a burst of events created in the same second, of several types, delivered in
// every order one after another or all at once, leaves the key in the subscription's real state; so does a state read
// from Stripe just before it changed.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SubscriptionLink } from "../../schemas/subscription.ts";
import { readJson } from "../../storage/json.ts";
import { billingKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { removeDir } from "../../test/_s3.ts";
import { testGateway } from "../../test/_gateway.ts";
import { signedEvent, startStripe, subscriptionObject, type StripeStandIn } from "../../test/_stripe.ts";
import { KeyRecord, keyUsable } from "../payment/keys.ts";
import { readSubscription } from "./stripe-events.ts";

type Fields = Parameters<typeof subscriptionObject>[2];
/** One event of a burst: its type and, for a subscription event, the subscription's fields in its payload. */
type BurstEvent = { type: "checkout.session.completed" | "invoice.payment_failed" | "customer.subscription.updated" | "customer.subscription.deleted"; fields?: Fields };

const END = Math.floor(Date.now() / 1000) + 20 * 86_400;
/** Each burst: what happened, in the order Stripe did it, and the subscription's state once it had happened. */
const BURSTS: { name: string; events: BurstEvent[]; final: Fields; accepted: boolean }[] = [
  {
    name: "the card failed, the subscription went unpaid, then the subscriber paid",
    events: [{ type: "checkout.session.completed" }, { type: "invoice.payment_failed" }, { type: "customer.subscription.updated", fields: { status: "unpaid" } }, { type: "customer.subscription.updated", fields: { status: "active" } }],
    final: { status: "active" },
    accepted: true,
  },
  {
    name: "the card failed and Stripe's retries ended unpaid",
    events: [{ type: "checkout.session.completed" }, { type: "customer.subscription.updated", fields: { status: "past_due" } }, { type: "invoice.payment_failed" }, { type: "customer.subscription.updated", fields: { status: "unpaid" } }],
    final: { status: "unpaid" },
    accepted: false,
  },
  {
    name: "the subscriber cancelled at period end, then the subscription was deleted",
    events: [
      { type: "checkout.session.completed" },
      { type: "customer.subscription.updated", fields: { cancel_at_period_end: true, period_end: END } },
      { type: "invoice.payment_failed" },
      { type: "customer.subscription.deleted", fields: { status: "canceled", cancel_at_period_end: true, period_end: END } },
    ],
    final: { status: "canceled", cancel_at_period_end: true, period_end: END },
    accepted: false,
  },
];

describe("a burst of Stripe events, same `created` second, in every order: the key ends in the subscription's real state", () => {
  let stripe: StripeStandIn;
  let dir: string;
  let gw: ReturnType<typeof testGateway>;
  beforeAll(async () => {
    stripe = await startStripe();
    dir = mkdtempSync(join(tmpdir(), "event-order-"));
    gw = testGateway(dir, { env: stripe.env });
  });
  afterAll(async () => {
    gw?.close();
    await stripe?.stop();
    if (dir) removeDir(dir);
  });

  /** Delivers event `i` of subscription `run`'s burst. */
  const post = (run: string, e: BurstEvent, i: number, created: number) => {
    const sub = `sub_${run}`;
    const object =
      e.type === "checkout.session.completed" ? { id: `cs_test_${run}`, object: "checkout.session", mode: "subscription", status: "complete", customer: `cus_${run}`, subscription: sub }
      : e.type === "invoice.payment_failed" ? { id: `in_${run}`, object: "invoice", customer: `cus_${run}`, status: "open", parent: { type: "subscription_details", subscription_details: { subscription: sub } } }
      : subscriptionObject(sub, `cus_${run}`, e.fields);
    const { body, signature } = signedEvent(`evt_${run}_${i}`, e.type, object, created);
    return gw.get("/webhooks/stripe", { method: "POST", headers: { "stripe-signature": signature }, body });
  };
  /** The subscription state held by the key of subscription `run`. */
  const held = async (run: string) => {
    const storage = openStorage(dir);
    const link = await readJson(storage, billingKey("subscriptions", `sub_${run}`), SubscriptionLink);
    return (await readJson(storage, `keys/${link!.key_hash}.json`, KeyRecord))!;
  };

  /** How a burst arrives: every order one after another, or all at once (with the checkout among them, or before them). */
  const MODES = [
    { name: "one after another", atOnce: false, keyFirst: false },
    { name: "all at once", atOnce: true, keyFirst: false },
    { name: "all at once, the key issued before", atOnce: true, keyFirst: true },
  ];
  for (const [b, burst] of BURSTS.entries()) {
    for (const [m, mode] of MODES.entries()) {
      // With the key issued before, the checkout is not part of the burst: it was applied while the subscription was active.
      const events = mode.keyFirst ? burst.events.filter((e) => e.type !== "checkout.session.completed") : burst.events;
      it(`${burst.name}: all ${permutations(events.length).length} orders, ${mode.name}`, async () => {
        const wrong: string[] = [];
        for (const [p, order] of permutations(events.length).entries()) {
          const run = `b${b}m${m}p${p}`;
          const created = Math.floor(Date.now() / 1000);
          if (mode.keyFirst) {
            stripe.subscriptions.set(`sub_${run}`, subscriptionObject(`sub_${run}`, `cus_${run}`));
            expect((await post(run, { type: "checkout.session.completed" }, 9, created)).status).toBe(200);
          }
          // Stripe holds the final state when the events arrive: each was sent after its change had happened.
          const real = subscriptionObject(`sub_${run}`, `cus_${run}`, burst.final);
          stripe.subscriptions.set(`sub_${run}`, real);
          const send = (i: number) => post(run, events[i]!, i, created);
          const answers = mode.atOnce ? await Promise.all(order.map(send)) : await order.reduce<Promise<Response[]>>(async (done, i) => [...(await done), await send(i)], Promise.resolve([]));
          expect(answers.map((a) => a.status)).toEqual(order.map(() => 200));
          const key = await held(run);
          const { synced_at, ...state } = key.subscription!;
          const { synced_at: _, ...expected } = readSubscription(real, synced_at);
          if (JSON.stringify(state) !== JSON.stringify(expected) || keyUsable(key, new Date()) !== burst.accepted) {
            wrong.push(`${order.map((i) => events[i]!.type.split(".").at(-1)).join(" → ")}: ${state.status}${state.cancel_at_period_end ? " (cancelling)" : ""}`);
          }
        }
        expect(wrong).toEqual([]);
      });
    }
  }

  it("a state read from Stripe before a change, written after that change's own event was applied, is read again and corrected", async () => {
    const [run, created] = ["race", Math.floor(Date.now() / 1000)];
    stripe.subscriptions.set("sub_race", subscriptionObject("sub_race", "cus_race"));
    expect((await post(run, { type: "checkout.session.completed" }, 0, created)).status).toBe(200);
    // The card fails: while the gateway reads the subscription for that event, Stripe's answer takes its time…
    stripe.subscriptions.set("sub_race", subscriptionObject("sub_race", "cus_race", { status: "past_due" }));
    const slow = stripe.holdNextRead("sub_race");
    const failed = post(run, { type: "customer.subscription.updated", fields: { status: "past_due" } }, 1, created);
    await slow.read;
    // …and meanwhile the subscriber pays: Stripe's next event is applied at once, then the slow answer (past_due) lands.
    stripe.subscriptions.set("sub_race", subscriptionObject("sub_race", "cus_race"));
    expect((await post(run, { type: "customer.subscription.updated", fields: {} }, 2, created)).status).toBe(200);
    slow.release();
    expect((await failed).status).toBe(200);
    expect((await held(run)).subscription).toMatchObject({ status: "active" });
  });
});

/** Every order of `n` items, as lists of indices. */
function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  return permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, at) => [...p.slice(0, at), n - 1, ...p.slice(at)]));
}
