// A token bucket that spaces request starts so that no one-second window holds more than its slots of arrivals,
// even when some arrive late. SEC fair access: "no more than 10 requests per second, regardless of the number of
// machines used".

/** SEC's ceiling: requests arriving in any one second, from all our processes together. */
export const SEC_REQUESTS_PER_SECOND = 10;

/**
 * How much later than its start a request may arrive, relative to the others, and still be counted where we meant:
 * network jitter, a busy event loop or a descheduled process on a loaded machine (pitfall 43). A bucket of n slots
 * spaces starts (1000 + this) / n ms apart, so n + 1 arrivals in one second need one delayed by more than this.
 */
export const ARRIVAL_JITTER_MS = 200;

/** Waits for a token before each request; shared by every HTTP source of the process. */
export class TokenBucket {
  #slots = 0;
  #intervalMs = 0;
  #nextAt = 0;
  #lastStart = -Infinity;
  #heldUntil = 0;

  /**
   * @param slots at most this many arrivals in any one second, even each up to ARRIVAL_JITTER_MS late (tokens come
   *   one at a time, capacity 1)
   */
  constructor(slots: number) {
    this.setSlots(slots);
  }

  /** Changes the ceiling from the next token on (a process's share of a budget others now use too). */
  setSlots(slots: number): void {
    if (!(slots > 0)) throw new Error("slots must be positive");
    this.#slots = slots;
    this.#intervalMs = (1000 + ARRIVAL_JITTER_MS) / slots;
  }

  /** The most arrivals in any one second. */
  get slots(): number {
    return this.#slots;
  }

  /** The steady pace, requests a second (below the slots by the jitter allowance). */
  get rate(): number {
    return 1000 / this.#intervalMs;
  }

  /** Resolves when the caller may start its request. */
  async take(): Promise<void> {
    const now = performance.now();
    const at = Math.max(now, this.#nextAt);
    this.#nextAt = at + this.#intervalMs;
    if (at > now) await sleep(at - now);
    // Timers that come due during a busy event loop fire together: space the actual starts as well. A hold set
    // while this caller slept holds it too.
    for (let wait = this.#startsAfter() - performance.now(); wait > 0; wait = this.#startsAfter() - performance.now()) {
      await sleep(wait);
    }
    this.#lastStart = performance.now();
  }

  #startsAfter(): number {
    return Math.max(this.#heldUntil, this.#lastStart + this.#intervalMs);
  }

  /** Holds every caller back until `ms` from now (after a 429 or a Traffic Limit page, or with no slot to use). */
  pause(ms: number): void {
    this.#heldUntil = Math.max(this.#heldUntil, performance.now() + ms);
    this.#nextAt = Math.max(this.#nextAt, this.#heldUntil);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The process-wide bucket: all of SEC's ceiling, for a process that shares it with no other. */
export const SEC_BUCKET = new TokenBucket(SEC_REQUESTS_PER_SECOND);
