// Per-client rate limit for the free endpoints and unauthenticated MCP requests: a token bucket per address (429 with
// Retry-After when empty). Paid requests draw from it only when their payment is refused (payment/refusal-limit.ts):
// every answer is paid for, and an unpaid request stops at a cached 402.
import type { H3Event } from "h3";
import { clientAddress } from "./client-address.ts";
import { ApiError } from "./errors.ts";

/** Addresses remembered at once; the least recently seen are forgotten first (a forgotten address starts full). */
const MAX_CLIENTS = 50_000;

/** A token bucket per key (a client's address), refilled at `perMinute` up to `burst`. */
export class TokenBuckets {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(options: { perMinute: number; burst: number }) {
    this.#perMs = options.perMinute / 60_000;
    this.#burst = options.burst;
  }

  /** Takes one token of `key`'s: null when it had one, else the seconds to wait (nothing thrown: a flood is cheap). */
  take(key: string, now = performance.now()): number | null {
    const bucket = this.#refilled(key, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return null;
    }
    return Math.ceil((1 - bucket.tokens) / this.#perMs / 1000);
  }

  /** Whether `key` has a token now (none is taken). */
  has(key: string, now = performance.now()): boolean {
    const held = this.#buckets.get(key);
    return !held || this.#tokens(held, now) >= 1;
  }

  #refilled(key: string, now: number): { tokens: number; at: number } {
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    bucket.tokens = this.#tokens(bucket, now);
    bucket.at = now;
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > MAX_CLIENTS) this.#buckets.delete(this.#buckets.keys().next().value!);
    return bucket;
  }

  /** A bucket's tokens at `now`: refilled since it was last seen, up to the burst. */
  #tokens(bucket: { tokens: number; at: number }, now: number): number {
    return Math.min(this.#burst, bucket.tokens + (now - bucket.at) * this.#perMs);
  }
}

/** The free endpoints' buckets, keyed by the request's client address. */
export class ClientRateLimit {
  readonly #off: boolean;
  readonly #trustedHops: number;
  readonly #buckets: TokenBuckets;

  constructor(options: { perMinute: number; burst: number; trustedHops: number }) {
    this.#off = options.perMinute === 0;
    this.#trustedHops = options.trustedHops;
    this.#buckets = new TokenBuckets(options);
  }

  /** Takes one token for the request's client, or throws 429 rate_limited with Retry-After. */
  take(event: H3Event, now = performance.now()): void {
    const wait = this.admit(event, now);
    if (wait !== null) throw rateLimited(wait);
  }

  /** Takes one token for the request's client: null when it had one, else the seconds to wait (nothing thrown: a flood is cheap). */
  admit(event: H3Event, now = performance.now()): number | null {
    return this.#off ? null : this.#buckets.take(clientAddress(event, this.#trustedHops), now);
  }
}

/** What a refused client is told. */
const RATE_LIMITED_MESSAGE = "Too many requests to the free endpoints from this address.";

/** The 429 of a client that must wait `seconds`. */
export function rateLimited(seconds: number): ApiError {
  return new ApiError("rate_limited", RATE_LIMITED_MESSAGE, { headers: { "retry-after": String(seconds) } });
}
