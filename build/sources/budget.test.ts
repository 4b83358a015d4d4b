// SEC's budget across processes: whole slots by weight that every process computes alike, a newcomer that waits to
// be seen, and buckets whose arrivals stay within the slots even when each arrives up to the allowed jitter late.
import { createStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { peak } from "../../test/_arrival-clock.ts";
import { allocateSlots, SharedBudget } from "./budget.ts";
import { ARRIVAL_JITTER_MS, SEC_REQUESTS_PER_SECOND, TokenBucket } from "./rate-limit.ts";

describe("allocateSlots", () => {
  it("splits SEC's 10 by weight in whole slots: the follower (2) and a build (1) get 7 and 3; three builds 4, 3, 3", () => {
    expect(Object.fromEntries(allocateSlots([{ id: "follow-a", weight: 2 }, { id: "build-b", weight: 1 }], 10))).toEqual({ "follow-a": 7, "build-b": 3 });
    expect([...allocateSlots([{ id: "c", weight: 1 }, { id: "a", weight: 1 }, { id: "b", weight: 1 }], 10).values()].sort()).toEqual([3, 3, 4]);
    expect(allocateSlots([{ id: "only", weight: 2 }], 10).get("only")).toBe(10);
  });

  it("sums to the total, gives every process the same answer whatever order it read the claims in, and never more to the lighter", () => {
    const claims = fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 6 }), weight: fc.integer({ min: 1, max: 5 }) }), { selector: (c) => c.id, minLength: 1, maxLength: 14 });
    fc.assert(
      fc.property(claims, fc.integer({ min: 1, max: 12 }), fc.nat(), (all, total, seed) => {
        const slots = allocateSlots(all, total);
        const shuffled = [...all].sort((a, b) => ((a.id.charCodeAt(0) * 31 + seed) % 7) - ((b.id.charCodeAt(0) * 31 + seed) % 7));
        expect(allocateSlots(shuffled, total)).toEqual(slots);
        expect([...slots.values()].reduce((a, b) => a + b, 0)).toBe(total);
        for (const a of all) for (const b of all) if (a.weight > b.weight) expect(slots.get(a.id)!).toBeGreaterThanOrEqual(slots.get(b.id)!);
      }),
    );
  });
});

describe("SharedBudget", () => {
  it("a newcomer waits until the others have seen it; each then paces at its slots; the one left takes all back", async () => {
    const storage = createStorage();
    const changes: Record<string, number[]> = { follow: [], build: [] };
    const join = (id: string, weight: number) =>
      SharedBudget.join(storage, { id, role: id, weight, refreshMs: 100, onChange: (s) => void changes[id]!.push(s.slots) });
    const follow = await join("follow", 2);
    expect(follow.bucket.slots).toBe(SEC_REQUESTS_PER_SECOND);
    const started = performance.now();
    const build = await join("build", 1);
    // It waited a reread and a second before its first request, by which time the follower had moved to its share.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_100 - 5);
    expect([follow.bucket.slots, build.bucket.slots]).toEqual([7, 3]);
    expect(changes.follow).toEqual([7]);
    await build.leave();
    await expect.poll(() => follow.bucket.slots, { timeout: 2_000 }).toBe(10);
    await follow.leave();
  });

  it("with more processes than slots, one without a slot makes no request until a slot frees", async () => {
    const storage = createStorage();
    const join = (id: string) => SharedBudget.join(storage, { id, role: "build", weight: 1, refreshMs: 100, total: 2 });
    const [p0, p1] = [await join("p0"), await join("p1")];
    const p2 = await join("p2");
    // Two slots for three equal processes: ties go by id, so p2 has none and its requests wait.
    await Promise.all([p0, p1].map((b) => b.refresh()));
    expect([p0.bucket.slots, p1.bucket.slots]).toEqual([1, 1]);
    let went = false;
    const waiting = p2.bucket.take().then(() => void (went = true));
    await new Promise((r) => setTimeout(r, 600));
    expect(went).toBe(false);
    await p0.leave();
    await waiting;
    expect(went).toBe(true);
    await Promise.all([p1, p2].map((b) => b.leave()));
  });
});

describe("TokenBucket with late arrivals", () => {
  it("two processes' buckets of 7 and 3 slots, each request arriving up to the allowed jitter late: never 11 in a second", async () => {
    const arrivals: number[] = [];
    const run = async (bucket: TokenBucket, ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until) {
        await bucket.take();
        // Late by up to the allowance, often by nearly all of it: the worst case for two neighbours.
        arrivals.push(performance.now() + (Math.random() < 0.5 ? ARRIVAL_JITTER_MS - 1 : Math.random() * ARRIVAL_JITTER_MS));
      }
    };
    await Promise.all([run(new TokenBucket(7), 3_000), run(new TokenBucket(3), 3_000)]);
    const most = peak(arrivals.sort((a, b) => a - b));
    expect(most).toBeLessThanOrEqual(SEC_REQUESTS_PER_SECOND);
    expect(most).toBeGreaterThanOrEqual(8); // paced, not starved
  });
});
