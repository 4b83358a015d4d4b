// A lease in the store: one holder at a time for a role (the writer of snapshots), decided by create-if-absent
// (claim.ts), so it holds across processes and machines. The lease is the highest of its generations
// (`leases/<name>/<n>.json`); taking over a released or expired one creates generation n+1, which exactly one
// contender can. The holder renews by rewriting its own generation and, before each write it makes under the
// lease, checks that no higher generation exists and that its last renewal is recent.
import { hostname } from "node:os";
import type { Storage } from "unstorage";
import { z } from "zod";
import { createJsonIfAbsent, readJson, writeJson } from "./json.ts";
import { leaseKey, leasePrefix, leaseWantedKey } from "./layout.ts";

/** One generation of a lease, as stored. */
export const LeaseRecord = z.object({
  name: z.string(),
  generation: z.number().int().positive(),
  holder: z.string().meta({ description: "Who holds it: a role and a random id, e.g. follow-3f9a0c." }),
  role: z.string(),
  host: z.string(),
  pid: z.number().int(),
  acquired_at: z.iso.datetime(),
  renewed_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  released: z.boolean(),
  status: z.unknown().optional().meta({ description: "What the holder reports about itself (the follower: FollowerStatus)." }),
});
export type LeaseRecord = z.infer<typeof LeaseRecord>;

/** What is asked for: the lease's name, who asks, and for how long a renewal holds it. */
export interface LeaseOptions {
  name: string;
  holder: string;
  role: string;
  /** How long a renewal holds the lease; a holder that stops renewing loses it this long after its last one. */
  ttlMs?: number;
  /** Wall clock (expiry is compared across machines, so clocks must agree within SKEW_MS). */
  now?: () => number;
}

const DEFAULT_TTL_MS = 60_000;
/** Clocks of two machines may differ this much: an expired lease is taken over only this long after its expiry. */
export const SKEW_MS = 2_000;

/** The lease is held by someone else (its record says who, and until when). */
export class LeaseHeldError extends Error {
  override readonly name = "LeaseHeldError";
  readonly record: LeaseRecord;
  constructor(record: LeaseRecord, waitedMs: number) {
    super(
      `the ${record.name} lease is held by ${record.holder} (${record.role}, pid ${record.pid} on ${record.host}) since ${record.acquired_at}, ` +
        `renewed ${record.renewed_at}, until ${record.expires_at}${waitedMs ? `; waited ${Math.round(waitedMs / 1000)} s` : ""}`,
    );
    this.record = record;
  }
}

/** The holder lost its lease: a higher generation exists, or it could not renew in time. Stop writing. */
export class LeaseLostError extends Error {
  override readonly name = "LeaseLostError";
}

/** The current lease record (the highest generation), or null when the lease was never taken. */
export async function readLease(storage: Storage, name: string): Promise<LeaseRecord | null> {
  const generation = await highestGeneration(storage, name);
  return generation === 0 ? null : readJson(storage, leaseKey(name, generation), LeaseRecord);
}

/** Whether a record still holds at `now`: not released, not past its expiry (plus the clock skew allowed). */
export function isLive(record: LeaseRecord, now: number): boolean {
  return !record.released && Date.parse(record.expires_at) + SKEW_MS > now && !isDeadHereAt(record);
}

/**
 * Takes the lease if nobody holds it; otherwise returns the holder's record. A lease whose holder ran on this
 * machine and no longer exists (a killed process) is taken over at once; on another machine, only once expired.
 */
export async function tryAcquireLease(storage: Storage, options: LeaseOptions): Promise<Lease | LeaseRecord> {
  const now = options.now ?? Date.now;
  for (;;) {
    const generation = await highestGeneration(storage, options.name);
    const current = generation ? await readJson(storage, leaseKey(options.name, generation), LeaseRecord) : null;
    if (current && isLive(current, now())) return current;
    const at = new Date(now()).toISOString();
    const record: LeaseRecord = {
      name: options.name,
      generation: generation + 1,
      holder: options.holder,
      role: options.role,
      host: hostname(),
      pid: process.pid,
      acquired_at: at,
      renewed_at: at,
      expires_at: new Date(now() + (options.ttlMs ?? DEFAULT_TTL_MS)).toISOString(),
      released: false,
    };
    if (!(await createJsonIfAbsent(storage, leaseKey(options.name, record.generation), LeaseRecord, record))) continue; // another took it first
    // A contender that read an old highest generation may have created a lower one after it was cleaned up: the
    // highest generation wins, and a lower winner gives way.
    if ((await highestGeneration(storage, options.name)) !== record.generation) continue;
    const lease = new Lease(storage, record, options);
    await lease.cleanUp();
    return lease;
  }
}

/**
 * Takes the lease, waiting up to `waitMs` for its holder to release it or for it to expire; with `request`, leaves a
 * request its holder honours by releasing it (the follower does, for a build's publish). Throws LeaseHeldError.
 */
export async function acquireLease(
  storage: Storage,
  options: LeaseOptions & { waitMs: number; pollMs?: number; request?: boolean; onWait?: (holder: LeaseRecord) => void },
): Promise<Lease> {
  const started = Date.now();
  let told = false;
  for (;;) {
    const outcome = await tryAcquireLease(storage, options);
    if (outcome instanceof Lease) {
      if (options.request) await storage.removeItem(leaseWantedKey(options.name));
      return outcome;
    }
    const waited = Date.now() - started;
    if (waited >= options.waitMs) throw new LeaseHeldError(outcome, waited);
    if (options.request) await storage.setItemRaw(leaseWantedKey(options.name), new TextEncoder().encode(JSON.stringify({ by: options.holder, at: new Date().toISOString() })));
    if (!told) options.onWait?.(outcome);
    told = true;
    await new Promise((r) => setTimeout(r, Math.min(options.pollMs ?? 1000, options.waitMs - waited)));
  }
}

/** A held lease: renew it (with a status), check it before each write, release it. */
export class Lease {
  readonly #storage: Storage;
  readonly #options: LeaseOptions;
  #record: LeaseRecord;
  /** Monotonic time until which the last renewal surely holds (its TTL less the clock skew allowed). */
  #validUntil: number;
  #timer: NodeJS.Timeout | null = null;
  #lost: Error | null = null;
  /** Settles when every renewal under way has: a release waits for them, or one's write could land after its own. */
  #renewing: Promise<unknown> | null = null;

  constructor(storage: Storage, record: LeaseRecord, options: LeaseOptions) {
    this.#storage = storage;
    this.#record = record;
    this.#options = options;
    this.#validUntil = performance.now() + this.#ttl - SKEW_MS;
  }

  get record(): LeaseRecord {
    return this.#record;
  }

  get #ttl(): number {
    return this.#options.ttlMs ?? DEFAULT_TTL_MS;
  }

  /** Extends the lease by its TTL from now, with the holder's status; LeaseLostError if it is no longer ours. */
  async renew(status?: unknown): Promise<void> {
    if (this.#lost) throw this.#lost;
    const renewing = this.#renew(status);
    const settled = Promise.allSettled([this.#renewing, renewing]);
    this.#renewing = settled;
    try {
      await renewing;
    } finally {
      if (this.#renewing === settled) this.#renewing = null;
    }
  }

  async #renew(status: unknown): Promise<void> {
    await this.#checkHighest();
    const started = performance.now();
    const now = (this.#options.now ?? Date.now)();
    const record: LeaseRecord = {
      ...this.#record,
      renewed_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.#ttl).toISOString(),
      ...(status === undefined ? {} : { status }),
    };
    await writeJson(this.#storage, leaseKey(record.name, record.generation), LeaseRecord, record);
    this.#record = record;
    this.#validUntil = started + this.#ttl - SKEW_MS;
  }

  /** Renews every `everyMs` with `status()`; a failed renewal marks the lease lost once it can no longer hold. */
  keepAlive(everyMs: number, status?: () => unknown): void {
    this.#timer ??= setInterval(() => {
      this.renew(status?.()).catch((error: Error) => {
        if (error instanceof LeaseLostError || performance.now() > this.#validUntil) this.#lost ??= error instanceof LeaseLostError ? error : new LeaseLostError(`the ${this.#record.name} lease could not be renewed in time: ${error.message}`);
      });
    }, everyMs);
    this.#timer.unref();
  }

  /** Before a write under the lease: throws LeaseLostError unless it is still ours and surely unexpired. */
  async assertHeld(): Promise<void> {
    if (this.#lost) throw this.#lost;
    if (performance.now() > this.#validUntil - this.#ttl / 3) await this.renew();
    else await this.#checkHighest();
  }

  /** Whether another writer asked for the lease (acquireLease with `request`). */
  async wanted(): Promise<boolean> {
    return this.#storage.hasItem(leaseWantedKey(this.#record.name));
  }

  /** Stops renewing and marks the lease released, so the next writer takes it at once. */
  async release(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    // Every renewal under way, one started while waiting too; a renewal's failure is its caller's to report.
    while (this.#renewing) await this.#renewing;
    if (this.#lost) return;
    this.#lost = new LeaseLostError(`the ${this.#record.name} lease was released`);
    if ((await highestGeneration(this.#storage, this.#record.name)) !== this.#record.generation) return;
    const now = new Date((this.#options.now ?? Date.now)()).toISOString();
    await writeJson(this.#storage, leaseKey(this.#record.name, this.#record.generation), LeaseRecord, { ...this.#record, released: true, renewed_at: now, expires_at: now });
  }

  /** Removes generations below the previous one (kept for a reader that listed just before). */
  async cleanUp(): Promise<void> {
    const generations = await listGenerations(this.#storage, this.#record.name);
    await Promise.all(generations.filter((g) => g < this.#record.generation - 1).map((g) => this.#storage.removeItem(leaseKey(this.#record.name, g))));
  }

  async #checkHighest(): Promise<void> {
    const highest = await highestGeneration(this.#storage, this.#record.name);
    if (highest !== this.#record.generation) {
      this.#lost = new LeaseLostError(`the ${this.#record.name} lease was taken over (generation ${highest} after ours, ${this.#record.generation})`);
      throw this.#lost;
    }
  }
}

async function listGenerations(storage: Storage, name: string): Promise<number[]> {
  const keys = await storage.getKeys(leasePrefix(name));
  return keys.map((k) => /:(\d{12})\.json$/.exec(k)?.[1]).filter((g): g is string => g !== undefined).map(Number);
}

async function highestGeneration(storage: Storage, name: string): Promise<number> {
  return Math.max(0, ...(await listGenerations(storage, name)));
}

/** A holder on this machine whose process is gone (killed): its lease need not be waited out. */
function isDeadHereAt(record: LeaseRecord): boolean {
  if (record.host !== hostname() || record.pid === process.pid) return false;
  try {
    process.kill(record.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
