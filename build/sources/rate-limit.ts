// A token bucket that spaces request starts so no one-second window holds more than `perSecond` of them.
// SEC fair access: "no more than 10 requests per second, regardless of the number of machines used".

/** Waits for a token before each request; shared by every HTTP source of the process. */
export class TokenBucket {
  readonly #marginMs: number;
  #intervalMs = 0;
  #nextAt = 0;
  #lastStart = -Infinity;

  /**
   * @param perSecond the ceiling; tokens come one at a time (capacity 1), spaced a little wider than
   *   1000/perSecond so that network jitter on arrival cannot put perSecond + 1 requests in one second.
   */
  constructor(perSecond: number, marginMs = 5) {
    this.#marginMs = marginMs;
    this.setRate(perSecond);
  }

  /** Changes the ceiling from the next token on (a process's share of a budget others now use too). */
  setRate(perSecond: number): void {
    if (!(perSecond > 0)) throw new Error("rate must be positive");
    this.#intervalMs = 1000 / perSecond + this.#marginMs;
  }

  /** The ceiling now, in requests a second. */
  get rate(): number {
    return 1000 / (this.#intervalMs - this.#marginMs);
  }

  /** Resolves when the caller may start its request. */
  async take(): Promise<void> {
    const now = performance.now();
    const at = Math.max(now, this.#nextAt);
    this.#nextAt = at + this.#intervalMs;
    if (at > now) await sleep(at - now);
    // Timers that come due during a busy event loop fire together: space the actual starts as well.
    for (let wait = this.#lastStart + this.#intervalMs - performance.now(); wait > 0; wait = this.#lastStart + this.#intervalMs - performance.now()) {
      await sleep(wait);
    }
    this.#lastStart = performance.now();
  }

  /** Holds every caller back until `ms` from now (after a 429 or a Traffic Limit page). */
  pause(ms: number): void {
    this.#nextAt = Math.max(this.#nextAt, performance.now() + ms);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Our pace against SEC: 9 a second, under its 10 (edgartools defaults to 9 too), so that a request delayed on its
 * way (network jitter, a busy event loop) cannot put an eleventh arrival in one second (pitfall 43).
 */
export const SEC_REQUESTS_PER_SECOND = 9;

/** The process-wide bucket at our SEC pace. */
export const SEC_BUCKET = new TokenBucket(SEC_REQUESTS_PER_SECOND);
