// The address a request comes from, as the limits count it (issue 39): the socket's peer, or behind N trusted proxies
// the address the outermost of them saw — never what the client itself wrote into X-Forwarded-For.
import { getRequestIP, type H3Event } from "h3";

/**
 * The client's address with `trustedHops` proxies in front of the gateway (TRUST_PROXY). Each proxy appends the
 * address it received the request from to X-Forwarded-For, so the entries a client cannot forge are the last
 * `trustedHops`; the client is the Nth from the right, or the leftmost when the header has fewer (as Express's
 * `trust proxy` N and proxy-addr read it). Several X-Forwarded-For fields are one list, in order (RFC 9110 §5.3).
 */
export function clientAddress(event: H3Event, trustedHops: number): string {
  const peer = getRequestIP(event) ?? "unknown";
  if (trustedHops === 0) return peer;
  const forwarded = event.req.headers.get("x-forwarded-for");
  if (!forwarded) return peer;
  const hops = forwarded.split(",");
  const entry = hops[Math.max(0, hops.length - trustedHops)]!.trim();
  return entry === "" ? peer : entry;
}
