// A least-recently-used map with a byte budget: the gateway's in-memory document cache.
// A hit only stamps its entry (one map lookup on the per-request path); the order is looked at when evicting.

/** Keeps entries until their summed size passes the budget, then drops the least recently used. */
export class ByteLru<V> {
  readonly #budget: number;
  readonly #entries = new Map<string, { value: V; bytes: number; used: number }>();
  #bytes = 0;
  #clock = 0;

  constructor(budgetBytes: number) {
    this.#budget = budgetBytes;
  }

  /** The value, marked as just used; undefined when absent. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    entry.used = ++this.#clock;
    return entry.value;
  }

  /** Stores a value; one larger than the whole budget is not kept. Evicting scans the entries (a miss, not a hit). */
  set(key: string, value: V, bytes: number): void {
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= old.bytes;
    }
    if (bytes > this.#budget) return;
    this.#entries.set(key, { value, bytes, used: ++this.#clock });
    this.#bytes += bytes;
    while (this.#bytes > this.#budget) {
      let oldest: string | undefined;
      let oldestUsed = Infinity;
      for (const [k, e] of this.#entries) {
        if (e.used < oldestUsed) {
          oldest = k;
          oldestUsed = e.used;
        }
      }
      this.#bytes -= this.#entries.get(oldest!)!.bytes;
      this.#entries.delete(oldest!);
    }
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }
}
