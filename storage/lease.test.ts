// The writer lease (issue 19): one holder however many try at once, from two stores on one location (two processes),
// on a folder and on S3 behind the conditional-write stand-in; a released or expired lease is taken over; a holder
// whose lease was taken over finds out before it writes.
import { mkdtempSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeDir } from "../test/_s3.ts";
import { useConditionalS3 } from "../test/_s3-suite.ts";
import { writeJson } from "./json.ts";
import { leaseKey } from "./layout.ts";
import { acquireLease, isLive, Lease, LeaseHeldError, LeaseLostError, LeaseRecord, readLease, tryAcquireLease } from "./lease.ts";
import { openStorage } from "./open.ts";

const dirs: string[] = [];
const suite = useConditionalS3();
afterAll(() => dirs.forEach(removeDir));

let n = 0;
const backends = [
  {
    name: "a folder",
    fresh: () => {
      const dir = mkdtempSync(join(tmpdir(), "lease-"));
      dirs.push(dir);
      return dir;
    },
    open: (location: string) => openStorage(location),
  },
  { name: "S3", fresh: () => `s3://${suite.s3.bucket}/lease-${n++}`, open: (location: string) => openStorage(location, suite.conditional.env) },
];

describe.each(backends)("the writer lease on $name", ({ fresh, open }) => {
  const options = (holder: string, ttlMs = 60_000) => ({ name: "writer", holder, role: "test", ttlMs });

  it("of 20 simultaneous takers on two stores of one location, exactly one holds it", async () => {
    const location = fresh();
    const [a, b] = [open(location), open(location)];
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => tryAcquireLease(i % 2 ? a : b, options(`taker-${i}`))));
    const held = outcomes.filter((o): o is Lease => o instanceof Lease);
    expect(held).toHaveLength(1);
    // Every other taker was shown the winner's record.
    for (const o of outcomes) if (!(o instanceof Lease)) expect(o.holder).toBe(held[0]!.record.holder);
    expect((await readLease(a, "writer"))!.holder).toBe(held[0]!.record.holder);
  });

  it("a released lease is taken at once; waiting ends with a clear error naming the holder", async () => {
    const storage = open(fresh());
    const first = (await tryAcquireLease(storage, options("first"))) as Lease;
    await expect(acquireLease(storage, { ...options("second"), waitMs: 300, pollMs: 100 })).rejects.toThrow(
      new RegExp(`^the writer lease is held by first \\(test, pid ${process.pid} on ${hostname()}\\) since .* waited 0 s$`),
    );
    await first.release();
    const second = await acquireLease(storage, { ...options("second"), waitMs: 1_000 });
    expect(second.record).toMatchObject({ holder: "second", generation: 2 });
    await expect(first.renew()).rejects.toThrow(LeaseLostError);
  });

  it("an expired lease of another machine is taken over; its holder, still running, learns it before writing", async () => {
    const storage = open(fresh());
    let clock = Date.parse("2026-11-23T10:00:00Z");
    const now = () => clock;
    const old = (await tryAcquireLease(storage, { ...options("old", 10_000), now })) as Lease;
    // As if the holder ran elsewhere (a dead process here is not waited for at all).
    await writeJson(storage, leaseKey("writer", old.record.generation), LeaseRecord, { ...old.record, host: "another-machine" });
    clock += 10_000; // expired, but within the clock skew allowed
    expect(await tryAcquireLease(storage, { ...options("new", 10_000), now })).not.toBeInstanceOf(Lease);
    clock += 3_000;
    const taker = await tryAcquireLease(storage, { ...options("new", 10_000), now });
    expect(taker).toBeInstanceOf(Lease);
    await expect(old.assertHeld()).rejects.toThrow(/taken over \(generation 2 after ours, 1\)/);
    expect(isLive((await readLease(storage, "writer"))!, clock)).toBe(true);
  });

  it("released while a renewal is under way: the renewal lands first, and the lease ends released", async () => {
    const storage = open(fresh());
    // A store whose renewal writes (a record not released) take 300 ms, as a slow object store's can.
    const slow: typeof storage = new Proxy(storage, {
      get: (target, key) =>
        key === "setItemRaw"
          ? async (k: string, bytes: Uint8Array) => {
              if (new TextDecoder().decode(bytes).includes('"released":false')) await new Promise((r) => setTimeout(r, 300));
              return target.setItemRaw(k, bytes);
            }
          : Reflect.get(target, key),
    });
    const lease = (await tryAcquireLease(storage, options("follower"))) as Lease;
    const held = new Lease(slow, lease.record, options("follower"));
    const renewing = held.renew({ published: 1 });
    await held.release();
    await renewing;
    expect((await readLease(storage, "writer"))!).toMatchObject({ holder: "follower", released: true });
  });

  it("a request for the lease is seen by its holder and cleared by the taker", async () => {
    const storage = open(fresh());
    const holder = (await tryAcquireLease(storage, options("follower"))) as Lease;
    expect(await holder.wanted()).toBe(false);
    const asking = acquireLease(storage, { ...options("build"), waitMs: 10_000, pollMs: 50, request: true });
    await expect.poll(() => holder.wanted(), { timeout: 3_000 }).toBe(true);
    await holder.release();
    const build = await asking;
    expect(build.record.holder).toBe("build");
    expect(await build.wanted()).toBe(false);
  });
});

describe("the writer lease of a process that died on this machine", () => {
  it("is taken over at once, without waiting for its expiry", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lease-dead-"));
    dirs.push(dir);
    const storage = openStorage(dir);
    const { spawnSync } = await import("node:child_process");
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    const at = new Date().toISOString();
    const record: LeaseRecord = { name: "writer", generation: 1, holder: "killed", role: "follow", host: hostname(), pid: Number(gone), acquired_at: at, renewed_at: at, expires_at: new Date(Date.now() + 600_000).toISOString(), released: false };
    await writeJson(storage, leaseKey("writer", 1), LeaseRecord, record);
    expect(isLive(record, Date.now())).toBe(false);
    expect(await tryAcquireLease(storage, { name: "writer", holder: "restarted", role: "follow" })).toBeInstanceOf(Lease);
    await expect(acquireLease(storage, { name: "writer", holder: "third", role: "follow", waitMs: 0 })).rejects.toThrow(LeaseHeldError);
  });
});
