// The cookie that ties a browser to its open Checkout Session (issue 39): GET /subscribe sends a browser that has one
// back to it instead of asking Stripe for a new one per visit. Sealed (seal.ts): a client can neither read nor forge it.
import { CheckoutCookie } from "../../schemas/subscription.ts";
import type { Sealer } from "./seal.ts";

/** The cookie's name. */
export const CHECKOUT_COOKIE = "fds_checkout";
/** A session this close to its expiry is not offered again: the subscriber needs the time to enter a card. */
const MIN_LEFT_S = 15 * 60;
/** What the seal is bound to, so that no other sealed box (a key waiting for its display) opens as a cookie. */
const CONTEXT = "checkout-cookie/v1";

/**
 * The Set-Cookie header naming `session` until shortly before Stripe expires it; null when it expires too soon to be
 * offered again. Only for /subscribe (its path), never to scripts (HttpOnly), and sent on the top-level navigation
 * that brings a subscriber back from Stripe or from another site (SameSite=Lax).
 */
export function checkoutCookie(sealer: Sealer, session: CheckoutCookie, now: Date, secure: boolean): string | null {
  const maxAge = session.expires_at - MIN_LEFT_S - Math.floor(now.getTime() / 1000);
  if (maxAge <= 0) return null;
  const value = sealer.seal(JSON.stringify(CheckoutCookie.parse(session)), CONTEXT);
  return `${CHECKOUT_COOKIE}=${value}; Max-Age=${maxAge}; Path=/subscribe; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** The session a cookie names, if it opens under this deployment's secret and is not about to expire; else null. */
export function openCheckoutCookie(sealer: Sealer, value: string, now: Date): CheckoutCookie | null {
  const plaintext = sealer.open(value, CONTEXT);
  if (plaintext === null) return null;
  const session = CheckoutCookie.safeParse(JSON.parse(plaintext));
  if (!session.success || session.data.expires_at - MIN_LEFT_S <= now.getTime() / 1000) return null;
  return session.data;
}
