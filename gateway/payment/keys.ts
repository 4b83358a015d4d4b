// API keys: stored hashed (SHA-256) under keys/ in the same storage, compared in constant time; a subscription
// key also carries its Stripe subscription's state, honoured on every call; a key's last state read outlives a store
// that cannot be read. Nothing here stores or logs a key.
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
/** A key's public id: the first hex digits of its hash (`keys list`, log lines). */
const ID_LENGTH = 12;
const ID_PATTERN = new RegExp(`^[0-9a-f]{${ID_LENGTH}}$`);
/** How long a key's state is trusted from memory before storage is asked again (so a revocation lands within it). */
const REFRESH_MS = 10_000;
/** A key's last state is dropped once it has not been asked for this long: memory holds the keys in use. */
const KEEP_MS = 24 * 3_600_000;

/** A key's state as last read from storage: the key (as bytes, compared in constant time), its record, and until when it is trusted. */
interface KeyState {
  bytes: Buffer;
  /** Where sameKey writes a presented key (as long as `bytes`): the hot path allocates nothing. */
  scratch: Buffer;
  hash: string;
  /** The key's public id (its hash's first 12 hex digits), for the log line of each call it makes. */
  id: string;
  record: KeyRecord;
  /** Until when a usable key is trusted without storage (0 for a refused one: asked again at its next call). */
  until: number;
  /** When it was last asked for (verify): states unasked for KEEP_MS are swept. */
  asked: number;
}

/** Creates, revokes, lists and verifies keys, and keeps subscription keys in step with Stripe. */
export class KeyStore {
  readonly #storage: Storage;
  /**
   * Keys with a record, held as they were presented, so that a hit needs no SHA-256 (most of a keyed request's own
   * cost), by `slot()`, in the order they were last asked for. While storage cannot be read, a key's last state
   * (usable, revoked or lapsed) decides it (docs/threat-model.md weighs holding keys in memory).
   */
  readonly #states = new Map<number, KeyState>();
  /** Since when reading a key's record fails (Unix ms), null while it succeeds: last states decide meanwhile. */
  #staleSince: number | null = null;

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
    const revoked = { ...record, revoked_at: record.revoked_at ?? now.toISOString() };
    await writeJson(this.#storage, recordKey(record.hash), KeyRecord, revoked);
    this.#learn(revoked); // refused at once by this process, and still refused if storage then fails
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
    const updated = { ...record, subscription: state };
    await writeJson(this.#storage, recordKey(keyHash), KeyRecord, updated);
    this.#learn(updated); // this process judges the key by its new state from its next call
    return true;
  }

  /** Every key's record (hashes and dates only), oldest first. */
  async list(): Promise<(KeyRecord & { id: string })[]> {
    const out: (KeyRecord & { id: string })[] = [];
    for (const key of await this.#storage.getKeys("keys")) {
      const record = await readJson(this.#storage, key.replace(/:/g, "/"), KeyRecord);
      if (record) out.push({ ...record, id: record.hash.slice(0, ID_LENGTH) });
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** The record of a known, unrevoked key, whatever its subscription's state; null otherwise. */
  async lookup(key: string): Promise<KeyRecord | null> {
    const record = wellFormed(key) ? await this.#read(key) : null;
    return record !== null && record.revoked_at === null ? record : null;
  }

  /** True when the key's state was read within the last seconds and it is usable: no storage, no hash. */
  trusted(key: string, now = Date.now()): boolean {
    return this.trustedId(key, now) !== null;
  }

  /** The key's id when `trusted`, else null: the keyed hot path's verdict and what its log line names it by. */
  trustedId(key: string, now = Date.now()): string | null {
    const state = this.#states.get(slot(key));
    return state !== undefined && state.until > now && sameKey(state, key) ? state.id : null;
  }

  /** A presented key's id (its hash's first 12 hex digits), from memory when its state is held; null for a malformed key. */
  idOf(key: string): string | null {
    if (!wellFormed(key)) return null;
    const state = this.#states.get(slot(key));
    return state !== undefined && sameKey(state, key) ? state.id : hashKey(key).slice(0, ID_LENGTH);
  }

  /**
   * True for a known, unrevoked key whose subscription (if any) is usable now. When its record cannot be read, the
   * key's last state read decides (a revoked key stays refused) and is trusted for another REFRESH_MS; a key never
   * read before cannot be verified then, and the storage error propagates (503, never a free pass).
   */
  async verify(key: string, now = new Date()): Promise<boolean> {
    if (!wellFormed(key)) return false;
    const t = now.getTime();
    if (this.trusted(key, t)) return true;
    this.#sweep(t);
    const at = slot(key);
    const held = this.#states.get(at);
    const last = held !== undefined && sameKey(held, key) ? held : null;
    let record: KeyRecord | null;
    try {
      record = await this.#read(key);
    } catch (error) {
      this.#staleSince ??= t;
      if (last === null) throw error;
      return this.#hold(at, last, last.record, now);
    }
    this.#staleSince = null;
    if (record === null) {
      if (last !== null) this.#states.delete(at);
      return false;
    }
    return this.#hold(at, last ?? { bytes: ownBytes(key), scratch: Buffer.alloc(key.length), hash: record.hash, id: record.hash.slice(0, ID_LENGTH) }, record, now);
  }

  /** Since when key records cannot be read (their last states decide meanwhile, revocations made since unseen); null while they can. */
  staleSince(): Date | null {
    return this.#staleSince === null ? null : new Date(this.#staleSince);
  }

  /** Reads a key's record, revoked or not; null when there is none. */
  async #read(key: string): Promise<KeyRecord | null> {
    const hash = hashKey(key);
    const record = await readJson(this.#storage, recordKey(hash), KeyRecord);
    return record !== null && timingSafeEqual(Buffer.from(record.hash, "hex"), Buffer.from(hash, "hex")) ? record : null;
  }

  /** Holds a key's state at the newest end of the map (the order keys were last asked for) and says whether it is usable now. */
  #hold(at: number, key: Pick<KeyState, "bytes" | "scratch" | "hash" | "id">, record: KeyRecord, now: Date): boolean {
    const t = now.getTime();
    const usable = keyUsable(record, now);
    this.#states.delete(at);
    const until = usable ? Math.min(t + REFRESH_MS, usableUntil(record) ?? Infinity) : 0;
    this.#states.set(at, { bytes: key.bytes, scratch: key.scratch, hash: key.hash, id: key.id, record, until, asked: t });
    return usable;
  }

  /** Drops the states not asked for in KEEP_MS, from the oldest on. */
  #sweep(now: number): void {
    for (const [at, state] of this.#states) {
      if (state.asked > now - KEEP_MS) break;
      this.#states.delete(at);
    }
  }

  /** Takes a record this process wrote (revoked, or its subscription changed) as its key's state, asked again at its next call. */
  #learn(record: KeyRecord): void {
    for (const state of this.#states.values()) {
      if (state.hash !== record.hash) continue;
      state.record = record;
      state.until = 0;
    }
  }

  async #find(keyOrId: string): Promise<KeyRecord | null> {
    if (keyOrId.startsWith(PREFIX)) return readJson(this.#storage, recordKey(hashKey(keyOrId)), KeyRecord);
    if (!ID_PATTERN.test(keyOrId)) return null;
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

/**
 * Whether a presented key is the state's, in constant time (crypto.timingSafeEqual over the keys' bytes): `===` stops
 * at the first differing character, telling a guesser how much of a key it has right (issue 39). The lengths are
 * compared first, as timingSafeEqual needs; every key has the same, public length. The key is written into the
 * state's own scratch bytes, not hashed: no allocation, ~0.2 µs where a SHA-256 would cost ~1.5 µs a call. Latin-1
 * is exact for whatever reaches here: a header value is a string of bytes.
 */
function sameKey(state: KeyState, key: string): boolean {
  if (key.length !== state.bytes.length) return false;
  state.scratch.write(key, "latin1");
  return timingSafeEqual(state.scratch, state.bytes);
}

/** A key's bytes (Latin-1, as sameKey writes them) in memory of their own, not a slice of Buffer's shared 8 KiB pool that they would keep alive. */
function ownBytes(key: string): Buffer {
  const bytes = Buffer.alloc(key.length);
  bytes.write(key, "latin1");
  return bytes;
}

/** Could be one of our keys (prefix, bounded length): anything else is refused before storage or memory is asked. */
function wellFormed(key: string): boolean {
  return key.startsWith(PREFIX) && key.length <= 100;
}

/** A new random key, its public id and its hash; nothing is stored. */
export function mintKey(): { key: string; id: string; hash: string } {
  const key = PREFIX + randomBytes(32).toString("base64url");
  const hash = hashKey(key);
  return { key, id: hash.slice(0, ID_LENGTH), hash };
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
