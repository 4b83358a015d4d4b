// A least-recently-used map with a byte budget: the gateway's in-memory document cache.

/** Keeps entries until their summed size passes the budget, then drops the least recently used. */
export class ByteLru<V> {
  readonly #budget: number;
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(budgetBytes: number) {
    this.#budget = budgetBytes;
  }

  /** The value, marked as just used; undefined when absent. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores a value; one larger than the whole budget is not kept. */
  set(key: string, value: V, bytes: number): void {
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= old.bytes;
    }
    if (bytes > this.#budget) return;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= this.#budget) break;
      this.#entries.delete(k);
      this.#bytes -= e.bytes;
    }
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }
}
