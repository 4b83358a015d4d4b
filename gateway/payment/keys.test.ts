import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStorage } from "../../storage/open.ts";
import { removeDir, startS3, type S3Server } from "../../test/_s3.ts";
import { KeyStore, type SubscriptionState } from "./keys.ts";
import { presentedKey } from "./http.ts";

const T0 = Date.UTC(2026, 10, 22, 12);
const at = (ms: number) => new Date(T0 + ms);
const DAY = 24 * 3_600_000;
const SUBSCRIPTION: SubscriptionState = { customer: "cus_1", id: "sub_1", status: "active", current_period_end: null, cancel_at_period_end: false, synced_at: 0 };
const dirs: string[] = [];
const store = (dir: string) => new KeyStore(openStorage(dir));
const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "keys-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach(removeDir));

describe("verified keys in memory", () => {
  it("trusts a key for 10 s after it was verified; a revocation by another process lands once that has passed", async () => {
    const dir = newDir();
    const gateway = store(dir);
    const operator = store(dir); // the keys CLI: another process on the same storage
    const { key } = await gateway.create(null, at(0));
    expect(gateway.trusted(key, T0)).toBe(false); // never verified yet
    expect(await gateway.verify(key, at(0))).toBe(true);
    expect(gateway.trusted(key, T0 + 9_999)).toBe(true);
    expect(await operator.revoke(key, at(1_000))).toBe(true);
    expect(await gateway.verify(key, at(5_000))).toBe(true); // still within the 10 s it was trusted for
    expect(gateway.trusted(key, T0 + 10_000)).toBe(false);
    expect(await gateway.verify(key, at(10_000))).toBe(false); // asked storage again: revoked
    expect(gateway.trusted(key, T0 + 10_001)).toBe(false);
  });

  it("forgets a key at once when this process revokes it; an unknown key is never trusted", async () => {
    const keys = store(newDir());
    const { key, id } = await keys.create(null, at(0));
    expect(await keys.verify(key, at(0))).toBe(true);
    expect(await keys.revoke(id, at(1))).toBe(true); // by id: the memory is keyed by the key, found through its hash
    expect(keys.trusted(key, T0 + 2)).toBe(false);
    expect(await keys.verify("fds_not-a-real-key", at(2))).toBe(false);
    expect(keys.trusted("fds_not-a-real-key", T0 + 2)).toBe(false);
  });

  it("never trusts a different key that shares a live key's first characters", async () => {
    const keys = store(newDir());
    const { key } = await keys.create(null, at(0));
    expect(await keys.verify(key, at(0))).toBe(true);
    const lookalike = key.slice(0, 16) + (key[16] === "A" ? "B" : "A") + key.slice(17);
    expect(keys.trusted(lookalike, T0 + 1)).toBe(false);
    expect(await keys.verify(lookalike, at(1))).toBe(false);
    expect(await keys.verify(key, at(2))).toBe(true); // the real key still verifies (through storage if need be)
    expect(keys.trusted(key, T0 + 3)).toBe(true);
  });

  it("drops a key's state once it has not been asked for in a day, and never writes a key to storage", async () => {
    const dir = newDir();
    const keys = store(dir);
    const first = await keys.create(null, at(0));
    const second = await keys.create(null, at(0));
    expect(await keys.verify(first.key, at(0))).toBe(true);
    expect(await keys.verify(second.key, at(DAY - 1))).toBe(true);
    // trusted() with a time inside first's old window tells whether its state is still held at all.
    expect(keys.trusted(first.key, T0 + 1)).toBe(true);
    expect(await keys.verify(second.key, at(DAY + 20_000))).toBe(true); // first was last asked for a day ago: swept now
    expect(keys.trusted(first.key, T0 + 1)).toBe(false);
    expect(keys.trusted(second.key, T0 + DAY + 20_001)).toBe(true);
    const stored = readdirSync(join(dir, "keys")).map((f) => readFileSync(join(dir, "keys", f), "utf8"));
    expect(stored).toHaveLength(2);
    for (const text of stored) for (const { key } of [first, second]) expect(text).not.toContain(key.slice(4));
  });
});

describe("keys while the store cannot be read (s3rver stopped)", () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(() => s3?.close());

  it("each key seen keeps its last state (revoked stays refused, a subscription lapses at its period end), a key never seen cannot be verified; fresh state within 10 s of the store's return", async () => {
    const location = `s3://${s3.bucket}/keys-outage`;
    const gateway = new KeyStore(openStorage(location, s3.env));
    const operator = new KeyStore(openStorage(location, s3.env)); // another replica, or the keys CLI
    const live = await operator.create("live", at(0));
    const revoked = await operator.create("revoked", at(0));
    const ending = await operator.create("ending", at(0), { ...SUBSCRIPTION, current_period_end: at(15_000).toISOString(), cancel_at_period_end: true });
    const unseen = await operator.create("unseen", at(0));
    expect(await operator.revoke(revoked.key, at(0))).toBe(true);
    expect([await gateway.verify(live.key, at(0)), await gateway.verify(revoked.key, at(0)), await gateway.verify(ending.key, at(0))]).toEqual([true, false, true]);
    expect(gateway.staleSince()).toBeNull();

    await s3.stop();
    expect(gateway.trusted(live.key, T0 + 10_000)).toBe(false); // its 10 s are over: storage is asked, and fails
    expect(await gateway.verify(live.key, at(10_000))).toBe(true);
    expect(gateway.staleSince()).toEqual(at(10_000));
    expect(gateway.trusted(live.key, T0 + 19_999)).toBe(true); // the last state is trusted for another 10 s
    expect(await gateway.verify(revoked.key, at(10_000))).toBe(false);
    expect(await gateway.verify(ending.key, at(10_000))).toBe(true);
    expect(await gateway.verify(ending.key, at(15_000))).toBe(false); // its period ended, whatever the store would say
    await expect(gateway.verify(unseen.key, at(10_000))).rejects.toThrow();
    expect(gateway.staleSince()).toEqual(at(10_000));

    await s3.restart();
    expect(await operator.revoke(live.key, at(12_000))).toBe(true); // while the gateway still judges by the last state
    expect(await gateway.verify(live.key, at(15_000))).toBe(true); // within the interval its last state is trusted for
    expect(await gateway.verify(live.key, at(20_000))).toBe(false); // read fresh: revoked
    expect(gateway.staleSince()).toBeNull();
    expect(await gateway.verify(unseen.key, at(20_000))).toBe(true);
  }, 60_000);
});

describe("the key a request presents", () => {
  const presented = (headers: Record<string, string>) => presentedKey(new Headers(headers));
  it("reads Authorization: Bearer in any spacing and case, else X-API-Key; anything else is passed on whole (and fails)", () => {
    expect(presented({ authorization: "Bearer fds_abc" })).toBe("fds_abc");
    expect(presented({ authorization: "bearer   fds_abc" })).toBe("fds_abc");
    expect(presented({ authorization: "BEARER\tfds_abc" })).toBe("fds_abc");
    expect(presented({ authorization: "Bearer fds_a b" })).toBe("Bearer fds_a b"); // two tokens: not a bearer key
    expect(presented({ authorization: "Basic Zm9vOmJhcg==" })).toBe("Basic Zm9vOmJhcg==");
    expect(presented({ authorization: "Bearer fds_abc", "x-api-key": "fds_other" })).toBe("fds_abc");
    expect(presented({ "x-api-key": "  fds_abc " })).toBe("fds_abc");
    expect(presented({})).toBeNull();
  });
});
