// Paid answers kept for idempotent retries (x402 payment-identifier): in a bounded memory LRU and in the store, so a
// retry that reaches another replica is not charged twice either. Nothing here decides; the core does.
import { createHash } from "node:crypto";
import type { Storage } from "unstorage";
import { KeptAnswer } from "../../schemas/payment.ts";
import { readJson, writeJson } from "../../storage/json.ts";
import { ApiError } from "../serve/errors.ts";
import { ByteLru } from "../serve/lru.ts";
import type { EventLog } from "../serve/snapshot.ts";

/** How long a paid answer can be fetched again with its payment identifier. */
export const IDEMPOTENCY_WINDOW_MS = 15 * 60_000;
/** Memory held for kept answers on one replica; older answers are still read back from the store. */
const MEMORY_BYTES = 32 * 1024 * 1024;
const PREFIX = "payments/answers";

/** Kept answers by payer and payment identifier, with one holder at a time per identifier. */
export class IdempotentAnswers {
  readonly #storage: Storage;
  readonly #log: EventLog;
  readonly #memory = new ByteLru<KeptAnswer>(MEMORY_BYTES);
  readonly #held = new Map<string, Promise<void>>();

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
      stored = await readJson(this.#storage, `${PREFIX}/${key}.json`, KeptAnswer);
    } catch (error) {
      this.#log("error", "kept_answer_read_failed", { key, error: (error as Error).message });
      // Answering as if nothing were kept could charge a retry twice: refuse, nothing is charged.
      throw new ApiError("storage_unavailable", "Earlier answers for this payment identifier could not be checked right now.", {
        headers: { "retry-after": "5" },
      });
    }
    if (!stored || stored.expires_at <= now) return null;
    this.#memory.set(key, stored, stored.body.length);
    return stored;
  }

  /** Keeps an answer in memory and in the store; a store that fails is logged, memory still serves this replica. */
  async put(key: string, answer: KeptAnswer): Promise<void> {
    this.#memory.set(key, answer, answer.body.length);
    await writeJson(this.#storage, `${PREFIX}/${key}.json`, KeptAnswer, answer).catch((error: Error) =>
      this.#log("error", "kept_answer_write_failed", { key, error: error.message }),
    );
  }
}
