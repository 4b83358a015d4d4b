// API keys: stored hashed (SHA-256) under keys/ in the same storage, compared in constant time; a subscription
// key also carries its Stripe subscription's state, honoured on every call. Nothing here stores or logs a key.
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Storage } from "unstorage";
import { z } from "zod";
import { createJsonIfAbsent, readJson, writeJson } from "../../storage/json.ts";

/** A Stripe subscription as the key last heard of it (from a signed webhook or from Stripe's API). */
export const SubscriptionState = z.object({
  customer: z.string(),
  id: z.string(),
  status: z.string(),
  current_period_end: z.iso.datetime().nullable(),
  cancel_at_period_end: z.boolean(),
  /** Unix seconds when this state was read from Stripe (each event reads it afresh rather than trusting its payload). */
  synced_at: z.number().int(),
});
export type SubscriptionState = z.infer<typeof SubscriptionState>;

/** What the store keeps for a key; `subscription` is absent on operator-created keys (older records stay valid). */
export const KeyRecord = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.iso.datetime(),
  revoked_at: z.iso.datetime().nullable(),
  label: z.string().nullable(),
  subscription: SubscriptionState.optional(),
});
export type KeyRecord = z.infer<typeof KeyRecord>;

/**
 * Stripe statuses that keep a key usable. past_due stays usable on purpose: Stripe is still retrying the card
 * (Smart Retries), and the subscriber keeps service until the retries end in unpaid or canceled, which refuse.
 * incomplete, incomplete_expired, paused, unpaid and canceled refuse.
 */
const USABLE_STATUSES = new Set(["active", "trialing", "past_due"]);
/** Stripe statuses a subscription never leaves: a late, older event must not revive the key. */
const TERMINAL_STATUSES = new Set(["canceled", "incomplete_expired"]);
const PREFIX = "fds_";
/** How long a verified key is trusted from memory before storage is asked again (so a revocation lands within it). */
const VERIFIED_TTL_MS = 10_000;

/** A key verified lately: the key, its hash (to forget it on revocation) and until when it is trusted. */
interface Verdict {
  key: string;
  hash: string;
  until: number;
}

/** Creates, revokes, lists and verifies keys, and keeps subscription keys in step with Stripe. */
export class KeyStore {
  readonly #storage: Storage;
  /**
   * Keys verified lately, held as they were presented, so that a hit needs no SHA-256 (most of a keyed request's
   * own cost), by `slot()`. Only usable keys enter; an expired entry is dropped at the next verification
   * (docs/threat-model.md weighs holding keys in memory).
   */
  readonly #verified = new Map<number, Verdict>();

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  /** Issues a new key (bound to a subscription when given); the returned secret is never stored. */
  async create(label: string | null = null, now = new Date(), subscription?: SubscriptionState): Promise<{ key: string; id: string; hash: string }> {
    const minted = mintKey();
    await writeJson(this.#storage, recordKey(minted.hash), KeyRecord, keyRecord(minted.hash, label, now, subscription));
    return minted;
  }

  /**
   * Records a key minted elsewhere (a subscription's, decided by its checkout session) unless its record exists:
   * a second writer never overwrites a state the first one, or a later webhook, recorded. True when written.
   */
  register(hash: string, now: Date, subscription: SubscriptionState): Promise<boolean> {
    return createJsonIfAbsent(this.#storage, recordKey(hash), KeyRecord, keyRecord(hash, null, now, subscription));
  }

  /** Whether a key's record exists (revoked or not). */
  has(hash: string): Promise<boolean> {
    return this.#storage.hasItem(recordKey(hash));
  }

  /** Revokes a key (given as the key itself or its id); false when no such key exists. */
  async revoke(keyOrId: string, now = new Date()): Promise<boolean> {
    const record = await this.#find(keyOrId);
    if (!record) return false;
    await writeJson(this.#storage, recordKey(record.hash), KeyRecord, { ...record, revoked_at: record.revoked_at ?? now.toISOString() });
    this.#forget(record.hash);
    return true;
  }

  /**
   * Records a subscription's current state (as just read from Stripe) on its key; false when ignored: no such key,
   * another subscription's, or one that ended (Stripe never revives it, so a state read before the end is stale).
   */
  async updateSubscription(keyHash: string, state: SubscriptionState): Promise<boolean> {
    const record = await readJson(this.#storage, recordKey(keyHash), KeyRecord);
    const held = record?.subscription;
    if (!record || !held || held.id !== state.id) return false;
    if (TERMINAL_STATUSES.has(held.status) && !TERMINAL_STATUSES.has(state.status)) return false;
    await writeJson(this.#storage, recordKey(keyHash), KeyRecord, { ...record, subscription: state });
    this.#forget(keyHash); // this process stops trusting its cached verdict at once
    return true;
  }

  /** Every key's record (hashes and dates only), oldest first. */
  async list(): Promise<(KeyRecord & { id: string })[]> {
    const out: (KeyRecord & { id: string })[] = [];
    for (const key of await this.#storage.getKeys("keys")) {
      const record = await readJson(this.#storage, key.replace(/:/g, "/"), KeyRecord);
      if (record) out.push({ ...record, id: record.hash.slice(0, 12) });
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** The record of a known, unrevoked key, whatever its subscription's state; null otherwise. */
  async lookup(key: string): Promise<KeyRecord | null> {
    if (!wellFormed(key)) return null;
    const hash = hashKey(key);
    const record = await readJson(this.#storage, recordKey(hash), KeyRecord);
    const ok = record !== null && record.revoked_at === null && timingSafeEqual(Buffer.from(record.hash, "hex"), Buffer.from(hash, "hex"));
    return ok ? record : null;
  }

  /** True when the key was verified within the last seconds and is still usable: no storage, no hash. */
  trusted(key: string, now = Date.now()): boolean {
    const verdict = this.#verified.get(slot(key));
    return verdict !== undefined && verdict.key === key && verdict.until > now;
  }

  /** True for a known, unrevoked key whose subscription (if any) is usable now. Storage errors propagate (503, never a free pass). */
  async verify(key: string, now = new Date()): Promise<boolean> {
    if (!wellFormed(key)) return false;
    if (this.trusted(key, now.getTime())) return true;
    this.#sweep(now.getTime());
    const record = await this.lookup(key);
    const ok = record !== null && keyUsable(record, now);
    if (ok) {
      const at = slot(key);
      this.#verified.delete(at); // set again at the newest end: the map stays in the order keys were verified
      this.#verified.set(at, { key, hash: record.hash, until: Math.min(now.getTime() + VERIFIED_TTL_MS, usableUntil(record) ?? Infinity) });
    }
    return ok;
  }

  /** Drops expired verdicts from the oldest on (the map is in the order keys were verified). */
  #sweep(now: number): void {
    for (const [at, verdict] of this.#verified) {
      if (verdict.until > now) break;
      this.#verified.delete(at);
    }
  }

  /** Stops trusting a key at once (revoked, or its subscription changed), found by its hash. */
  #forget(hash: string): void {
    for (const [at, verdict] of this.#verified) if (verdict.hash === hash) this.#verified.delete(at);
  }

  async #find(keyOrId: string): Promise<KeyRecord | null> {
    if (keyOrId.startsWith(PREFIX)) return readJson(this.#storage, recordKey(hashKey(keyOrId)), KeyRecord);
    if (!/^[0-9a-f]{12}$/.test(keyOrId)) return null;
    const matches = (await this.list()).filter((r) => r.id === keyOrId);
    return matches.length === 1 ? matches[0]! : null;
  }
}

/** Whether an unrevoked key may be used now: always for operator keys; by status and period end for subscription keys. */
export function keyUsable(record: KeyRecord, now: Date): boolean {
  if (record.revoked_at !== null) return false;
  const sub = record.subscription;
  if (!sub) return true;
  if (!USABLE_STATUSES.has(sub.status)) return false;
  const until = usableUntil(record);
  return until === null || now.getTime() < until;
}

/**
 * A cancelled-at-period-end subscription is usable until its period ends even if the final
 * customer.subscription.deleted webhook is late or lost; a renewing one is not cut off at its period end,
 * because the renewal's webhook may lag the boundary (Stripe's retries then decide, through its status).
 */
function usableUntil(record: KeyRecord): number | null {
  const sub = record.subscription;
  return sub?.cancel_at_period_end && sub.current_period_end ? Date.parse(sub.current_period_end) : null;
}

/**
 * Where a key's verdict is held: a 30-bit number from seven characters of its random part (a small integer, which
 * V8 keeps unboxed). A map keyed by a number skips V8's hashing of a string first seen (a call into the runtime, per
 * request); the verdict keeps the whole key, and two keys sharing a slot only cost each other a verification.
 */
function slot(key: string): number {
  let n = 0;
  for (let i = PREFIX.length; i < PREFIX.length + 7 && i < key.length; i++) n = (n * 31 + key.charCodeAt(i)) & 0x3fffffff;
  return n;
}

/** Could be one of our keys (prefix, bounded length): anything else is refused before storage or memory is asked. */
function wellFormed(key: string): boolean {
  return key.startsWith(PREFIX) && key.length <= 100;
}

/** A new random key, its public id and its hash; nothing is stored. */
export function mintKey(): { key: string; id: string; hash: string } {
  const key = PREFIX + randomBytes(32).toString("base64url");
  const hash = hashKey(key);
  return { key, id: hash.slice(0, 12), hash };
}

function keyRecord(hash: string, label: string | null, now: Date, subscription?: SubscriptionState): KeyRecord {
  return { hash, created_at: now.toISOString(), revoked_at: null, label, ...(subscription ? { subscription } : {}) };
}

/** SHA-256 of the key, hex. */
export function hashKey(key: string): string {
  return hash("sha256", key, "hex");
}

function recordKey(hash: string): string {
  return `keys/${hash}.json`;
}
