// Subscription API keys: stored hashed (SHA-256) under keys/ in the same storage, compared in constant time.
// A key is shown once, when created; the store never holds it, and nothing here logs it.
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Storage } from "unstorage";
import { z } from "zod";
import { readJson, writeJson } from "../storage/json.ts";

/** What the store keeps for a key. */
export const KeyRecord = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.iso.datetime(),
  revoked_at: z.iso.datetime().nullable(),
  label: z.string().nullable(),
});
export type KeyRecord = z.infer<typeof KeyRecord>;

const PREFIX = "fds_";
/** How long a verified key is trusted from memory before storage is asked again (so a revocation lands within it). */
const VERIFIED_TTL_MS = 10_000;

/** Creates, revokes, lists and verifies keys. */
export class KeyStore {
  readonly #storage: Storage;
  readonly #verified = new Map<string, number>();

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  /** Issues a new key; the returned secret is never stored. */
  async create(label: string | null = null, now = new Date()): Promise<{ key: string; id: string }> {
    const key = PREFIX + randomBytes(32).toString("base64url");
    const hash = hashKey(key);
    await writeJson(this.#storage, recordKey(hash), KeyRecord, { hash, created_at: now.toISOString(), revoked_at: null, label });
    return { key, id: hash.slice(0, 12) };
  }

  /** Revokes a key (given as the key itself or its id); false when no such key exists. */
  async revoke(keyOrId: string, now = new Date()): Promise<boolean> {
    const record = await this.#find(keyOrId);
    if (!record) return false;
    await writeJson(this.#storage, recordKey(record.hash), KeyRecord, { ...record, revoked_at: record.revoked_at ?? now.toISOString() });
    this.#verified.delete(record.hash);
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

  /** True for a known, unrevoked key. Storage errors propagate (the caller answers 503, never a free pass). */
  async verify(key: string): Promise<boolean> {
    if (!key.startsWith(PREFIX) || key.length > 100) return false;
    const hash = hashKey(key);
    const until = this.#verified.get(hash);
    if (until !== undefined && until > Date.now()) return true;
    const record = await readJson(this.#storage, recordKey(hash), KeyRecord);
    const ok = record !== null && record.revoked_at === null && timingSafeEqual(Buffer.from(record.hash, "hex"), Buffer.from(hash, "hex"));
    if (ok) this.#verified.set(hash, Date.now() + VERIFIED_TTL_MS);
    else this.#verified.delete(hash);
    return ok;
  }

  async #find(keyOrId: string): Promise<KeyRecord | null> {
    if (keyOrId.startsWith(PREFIX)) return readJson(this.#storage, recordKey(hashKey(keyOrId)), KeyRecord);
    if (!/^[0-9a-f]{12}$/.test(keyOrId)) return null;
    const matches = (await this.list()).filter((r) => r.id === keyOrId);
    return matches.length === 1 ? matches[0]! : null;
  }
}

/** SHA-256 of the key, hex. */
export function hashKey(key: string): string {
  return hash("sha256", key, "hex");
}

function recordKey(hash: string): string {
  return `keys/${hash}.json`;
}
