// Paid answers kept for idempotent retries (x402 payment-identifier): in a bounded memory LRU and in the store, so a
// retry that reaches another replica is not charged twice either; each identifier claimed in the store by the one
// request that pays for it, and all of it pruned a window after it expired. Nothing here decides; the core does.
import { createHash } from "node:crypto";
import type { Storage } from "unstorage";
import { KeptAnswer } from "../../schemas/payment.ts";
import { createIfAbsent } from "../../storage/claim.ts";
import { readJson, writeJson } from "../../storage/json.ts";
import { removePrefix } from "../../storage/remove.ts";
import { ApiError } from "../http/errors.ts";
import { ByteLru } from "../http/lru.ts";
import type { EventLog } from "../../logging/log.ts";

/** How long a paid answer can be fetched again with its payment identifier. */
export const IDEMPOTENCY_WINDOW_MS = 15 * 60_000;
/** Memory held for kept answers on one replica; older answers are still read back from the store. */
const MEMORY_BYTES = 32 * 1024 * 1024;
const ANSWERS = "payments/answers";
/** One empty object per identifier, created only if absent: the request that created it pays. */
const CLAIMS = "payments/claims";
/** `expiry/<window>/<key>`, empty: what to remove once that window is over, found without listing every answer. */
const EXPIRY = "payments/expiry";
/**
 * Windows looked at back from the newest one over when a replica first prunes (a day): expiry windows of a gateway
 * stopped for longer stay in the store. Afterwards each pass removes only the windows over since the last one.
 */
const LOOKBACK_WINDOWS = 96;
const EMPTY = new Uint8Array();

/** Kept answers by payer and payment identifier, with one holder at a time per identifier. */
export class IdempotentAnswers {
  readonly #storage: Storage;
  readonly #log: EventLog;
  readonly #memory = new ByteLru<KeptAnswer>(MEMORY_BYTES);
  readonly #held = new Map<string, Promise<void>>();
  /** The newest expiry window this replica has pruned (null until its first claim). */
  #pruned: number | null = null;
  /** The expiry window of each claim this replica holds and may still release (its marker goes with it). */
  readonly #claimWindows = new Map<string, number>();

  constructor(storage: Storage, log: EventLog) {
    this.#storage = storage;
    this.#log = log;
  }

  /** The key of a payer's identifier (identifiers are the client's: scoped by payer, never trusted alone). */
  static keyOf(payer: string, id: string): string {
    return createHash("sha256").update(`${payer.toLowerCase()}\n${id}`).digest("hex");
  }

  /**
   * Runs `work` once no other request holds `key` on this replica: a retry sent while the first attempt is still
   * running waits for its outcome instead of racing it (x402 payment-identifier, "Recovering a Lost Response").
   */
  async exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    while (this.#held.has(key)) await this.#held.get(key);
    let done!: () => void;
    this.#held.set(key, new Promise<void>((resolve) => (done = resolve)));
    try {
      return await work();
    } finally {
      this.#held.delete(key);
      done();
    }
  }

  /** The answer kept under `key` and not expired; 503 storage_unavailable when memory misses and the store fails. */
  async get(key: string, now = Date.now()): Promise<KeptAnswer | null> {
    const held = this.#memory.get(key);
    if (held) return held.expires_at > now ? held : null;
    let stored: KeptAnswer | null;
    try {
      stored = await readJson(this.#storage, `${ANSWERS}/${key}.json`, KeptAnswer);
    } catch (error) {
      this.#log("error", "kept_answer_read_failed", { key, error: (error as Error).message });
      // Answering as if nothing were kept could charge a retry twice: refuse, nothing is charged.
      throw unavailable();
    }
    if (!stored || stored.expires_at <= now) return null;
    this.#memory.set(key, stored, stored.body.length);
    return stored;
  }

  /**
   * Claims `key` in the store in one atomic step (create-if-absent): true for the one request, on any replica, that
   * may pay for it; false when another holds or held it. Its expiry is noted first, so no claim outlives pruning.
   */
  async claim(key: string, now = Date.now()): Promise<boolean> {
    const window = windowOf(now + IDEMPOTENCY_WINDOW_MS);
    let claimed: boolean;
    try {
      await this.#storage.setItemRaw(`${EXPIRY}/${window}/${key}`, EMPTY);
      claimed = await createIfAbsent(this.#storage, `${CLAIMS}/${key}`, EMPTY);
    } catch (error) {
      this.#log("error", "payment_claim_failed", { key, error: (error as Error).message });
      // Without the claim, two replicas could both settle: refuse, nothing is charged.
      throw unavailable();
    }
    if (claimed) this.#claimWindows.set(key, window);
    this.#pruneExpired(now);
    return claimed;
  }

  /**
   * Gives up a claim whose payment was not kept (refused, unsettled, empty): the identifier may pay again. Its expiry
   * marker goes too, or pruning that window would remove a later claim of the identifier, and its kept answer, early.
   */
  async release(key: string): Promise<void> {
    const window = this.#claimWindows.get(key);
    this.#claimWindows.delete(key);
    try {
      await this.#storage.removeItem(`${CLAIMS}/${key}`);
    } catch (error) {
      // The identifier stays claimed until pruned: its retries are refused, never charged twice.
      this.#log("error", "payment_claim_release_failed", { key, error: (error as Error).message });
      return;
    }
    if (window !== undefined) await this.#storage.removeItem(`${EXPIRY}/${window}/${key}`).catch(() => {}); // at worst pruned early, as before
  }

  /** Keeps an answer in memory and in the store; a store that fails is logged, memory still serves this replica. */
  async put(key: string, answer: KeptAnswer): Promise<void> {
    this.#claimWindows.delete(key);
    this.#memory.set(key, answer, answer.body.length);
    await writeJson(this.#storage, `${ANSWERS}/${key}.json`, KeptAnswer, answer).catch((error: Error) =>
      this.#log("error", "kept_answer_write_failed", { key, error: error.message }),
    );
  }

  /**
   * Removes, in the background, the answers and claims of every expiry window over for a whole window (so an answer
   * kept a little after its claim is never cut short) that this replica has not pruned yet: bounded work, one window
   * per window of time once running.
   */
  #pruneExpired(now: number): void {
    const newest = windowOf(now) - 2;
    const from = this.#pruned === null ? newest - LOOKBACK_WINDOWS : this.#pruned + 1;
    if (from > newest) return;
    this.#pruned = newest;
    void this.#removeWindows(from, newest).catch((error: Error) => this.#log("warn", "kept_answers_prune_failed", { error: error.message }));
  }

  async #removeWindows(from: number, to: number): Promise<void> {
    for (let window = from; window <= to; window++) {
      const markers = await this.#storage.getKeys(`${EXPIRY}/${window}`);
      if (markers.length === 0) continue;
      for (const marker of markers) {
        const key = marker.split(":").at(-1)!;
        this.#claimWindows.delete(key); // a claim kept until pruned (a settlement that timed out)
        await this.#storage.removeItem(`${ANSWERS}/${key}.json`);
        await this.#storage.removeItem(`${CLAIMS}/${key}`);
      }
      await removePrefix(this.#storage, `${EXPIRY}/${window}`);
    }
  }
}

function windowOf(time: number): number {
  return Math.floor(time / IDEMPOTENCY_WINDOW_MS);
}

function unavailable(): ApiError {
  return new ApiError("storage_unavailable", "Earlier answers for this payment identifier could not be checked right now.", {
    headers: { "retry-after": "5" },
  });
}
