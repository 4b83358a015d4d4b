// Refused payments cost their sender what an unauthenticated request costs (issue 17): each draws a token from the
// per-address bucket, and none left is 429. A sender found without one takes a token before its next payments are
// verified, until its bucket has refilled: a flood of bad payments never becomes a flood of facilitator calls, while
// genuine payments draw nothing.
import { getRequestIP, type H3Event } from "h3";
import { rateLimited, type ClientRateLimit } from "../http/rate-limit.ts";

/** Who sent a paid request: the per-address limit and the request it reads the address from. */
export interface Sender {
  limiter: ClientRateLimit;
  event: H3Event;
  /** Set when this limit refused the sender's calls for want of a token: how many, and the seconds to wait. */
  limited?: { calls: number; wait: number };
}

/** Peers remembered at once; the oldest are forgotten first (they only lose the check before verification). */
const MAX_SUSPECTS = 50_000;

/** The refused-payment policy of one gateway, shared by its transports. */
export class RefusalLimit {
  /**
   * Socket peers whose refused payment found the bucket empty, until when. The peer, not the limiter's address: it
   * cannot be forged (X-Forwarded-For is the limiter's to trust). Behind a proxy every client shares it, so while
   * one is a suspect all take a token before verification — and only a client whose own bucket is empty is refused.
   */
  readonly #suspects = new Map<string, number>();

  /** Before a payment is verified: a suspect sender takes a token first (429 thrown when it has none). */
  beforeVerify(sender: Sender | null, now = Date.now()): void {
    if (!sender) return;
    const peer = peerOf(sender.event);
    const until = this.#suspects.get(peer);
    if (until === undefined) return;
    if (until <= now) this.#suspects.delete(peer);
    else this.#take(sender, peer, now);
  }

  /** A payment was refused: it draws a token; with none left, 429 is thrown instead and the sender is a suspect. */
  refused(sender: Sender | null, now = Date.now()): void {
    if (sender) this.#take(sender, peerOf(sender.event), now);
  }

  #take(sender: Sender, peer: string, now: number): void {
    const wait = sender.limiter.admit(sender.event);
    if (wait === null) return;
    sender.limited = { calls: (sender.limited?.calls ?? 0) + 1, wait };
    this.#suspect(peer, now + wait * 1000);
    throw rateLimited(wait);
  }

  #suspect(peer: string, until: number): void {
    this.#suspects.delete(peer);
    this.#suspects.set(peer, until);
    if (this.#suspects.size > MAX_SUSPECTS) this.#suspects.delete(this.#suspects.keys().next().value!);
  }
}

function peerOf(event: H3Event): string {
  return getRequestIP(event) ?? "unknown";
}
