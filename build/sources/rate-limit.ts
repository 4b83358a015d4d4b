// A token bucket that spaces request starts so no one-second window holds more than `perSecond` of them.
// SEC fair access: "no more than 10 requests per second, regardless of the number of machines used".

/** Waits for a token before each request; shared by every HTTP source of the process. */
export class TokenBucket {
  readonly #intervalMs: number;
  #nextAt = 0;

  /**
   * @param perSecond the ceiling; tokens come one at a time (capacity 1), spaced a little wider than
   *   1000/perSecond so that network jitter on arrival cannot put perSecond + 1 requests in one second.
   */
  constructor(perSecond: number, marginMs = 5) {
    if (!(perSecond > 0)) throw new Error("rate must be positive");
    this.#intervalMs = 1000 / perSecond + marginMs;
  }

  /** Resolves when the caller may start its request. */
  async take(): Promise<void> {
    const now = performance.now();
    const at = Math.max(now, this.#nextAt);
    this.#nextAt = at + this.#intervalMs;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }

  /** Holds every caller back until `ms` from now (after a 429 or a Traffic Limit page). */
  pause(ms: number): void {
    this.#nextAt = Math.max(this.#nextAt, performance.now() + ms);
  }
}

/** The process-wide bucket at SEC's limit. */
export const SEC_BUCKET = new TokenBucket(10);
