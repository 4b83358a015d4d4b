// The payment step of a paid request: an API key (401 when bad, never a fallback to x402) or x402 v2
// (402 with PAYMENT-REQUIRED, 503 when the facilitator is unavailable); then settlement, only for a 200
// with non-empty data — nobody pays for an error or an empty answer.
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { FacilitatorResponseError, type HTTPProcessResult, type HTTPRequestContext, type x402HTTPResourceServer } from "@x402/core/server";
import type { H3Event } from "h3";
import type { ErrorBody } from "../schemas/errors.ts";
import { withCors } from "./cors.ts";
import { ApiError } from "./errors.ts";
import type { KeyStore } from "./keys.ts";
import { H3Adapter, PAYMENT_REQUIRED_BODY } from "./x402.ts";

/** How a request was paid for. */
export type Ticket =
  | { kind: "key" }
  | { kind: "x402"; context: HTTPRequestContext; verified: Extract<HTTPProcessResult, { type: "payment-verified" }> };

/** The ticket of every call paid by a subscription key (one object: nothing about the key rides on it). */
const KEY_TICKET: Ticket = { kind: "key" };

/** A ready-made response that ends the request instead of serving data (a 402). */
export class PaymentResponse extends Error {
  readonly response: Response;
  constructor(response: Response) {
    super("payment response");
    this.response = response;
  }
}

/** The payment step, shared by the HTTP routes and the MCP tools. */
export class Payments {
  readonly #keys: KeyStore;
  readonly #x402: x402HTTPResourceServer;
  #ready: Promise<void> | null = null;

  constructor(keys: KeyStore, x402: x402HTTPResourceServer) {
    this.#keys = keys;
    this.#x402 = x402;
  }

  /** The underlying x402 server (MCP builds its own requirements from it). */
  get x402(): x402HTTPResourceServer {
    return this.#x402;
  }

  /** The key's ticket when the request's key was verified moments ago (memory only, no await); null otherwise. */
  trusted(event: H3Event, now: number): Ticket | null {
    const auth = event.req.headers.get("authorization");
    // Only the exact `Bearer <key>` form is looked up (a remembered key has no spaces, so a match needs no more
    // parsing); every other form, odd spacing included, is read by presentedKey in the pipeline.
    const key = auth === null ? event.req.headers.get("x-api-key") : auth.startsWith("Bearer ") ? auth.slice(7) : null;
    return key !== null && this.#keys.trusted(key, now) ? KEY_TICKET : null;
  }

  /** Checks the key or the x402 payment; throws ApiError (401, 503) or PaymentResponse (402). */
  async require(event: H3Event): Promise<Ticket> {
    const key = presentedKey(event.req.headers);
    if (key !== null) {
      let ok: boolean;
      try {
        ok = await this.#keys.verify(key);
      } catch {
        throw new ApiError("storage_unavailable", "The API key could not be checked right now.", { headers: { "retry-after": "5" } });
      }
      if (!ok) throw new ApiError("invalid_api_key", "The API key is not valid.", { headers: { "www-authenticate": 'Bearer realm="filing-data"' } });
      return KEY_TICKET;
    }
    await this.ready();
    const signature = event.req.headers.get("payment-signature");
    const context: HTTPRequestContext = {
      adapter: new H3Adapter(event),
      path: event.url.pathname,
      method: event.req.method,
      ...(signature ? { paymentHeader: signature } : {}),
    };
    const result = await this.#facilitated(() => this.#x402.processHTTPRequest(context));
    if (result.type === "payment-verified") return { kind: "x402", context, verified: result };
    if (result.type === "no-payment-required") throw new Error(`route ${context.path} is not in the x402 route table`);
    throw new PaymentResponse(paymentErrorResponse(result.response.status, result.response.headers));
  }

  /** Settles an x402 payment for the bytes about to be sent; returns the headers to add (PAYMENT-RESPONSE). */
  async settle(ticket: Extract<Ticket, { kind: "x402" }>, body: Buffer): Promise<Record<string, string>> {
    const { verified, context } = ticket;
    const settled = await this.#facilitated(() =>
      this.#x402.processSettlement(verified.paymentPayload, verified.paymentRequirements, verified.declaredExtensions, {
        request: context,
        responseBody: body,
      }),
    );
    if (!settled.success) throw new PaymentResponse(paymentErrorResponse(402, settled.headers, settled.errorReason));
    return settled.headers;
  }

  /** Releases a verified payment that will not be settled (an empty answer or a failure after verification). */
  async release(ticket: Ticket, status: number): Promise<void> {
    if (ticket.kind !== "x402") return;
    await ticket.verified.cancellationDispatcher.cancel({ reason: "handler_failed", responseStatus: status }).catch(() => {});
  }

  /** Initialises the x402 server once (it asks the facilitator what it supports); retried after a failure. */
  ready(): Promise<void> {
    this.#ready ??= this.#facilitated(() => this.#x402.initialize()).catch((error: unknown) => {
      this.#ready = null;
      throw error;
    });
    return this.#ready;
  }

  async #facilitated<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof FacilitatorResponseError) {
        throw new ApiError("facilitator_unavailable", "The payment facilitator did not answer in time.", { headers: { "retry-after": "5" } });
      }
      throw error;
    }
  }
}

/** The key a client presents: `Authorization: Bearer <key>` or `X-API-Key: <key>`; null when none. */
export function presentedKey(headers: Headers): string | null {
  const auth = headers.get("authorization");
  if (auth) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return match ? match[1]! : auth;
  }
  const apiKey = headers.get("x-api-key");
  return apiKey ? apiKey.trim() : null;
}

/** A 402 (or 412) with @x402/core's headers and our error body; the requirements stay in the header. */
function paymentErrorResponse(status: number, headers: Record<string, string>, settleFailure?: string): Response {
  const rejected = settleFailure ? null : rejection(headers);
  const message = settleFailure
    ? `The payment could not be settled (${settleFailure}); nothing was charged and no data was sent.`
    : rejected
      ? `The payment was not accepted (${rejected}); nothing was charged. New requirements are in the PAYMENT-REQUIRED header.`
      : PAYMENT_REQUIRED_BODY.error.message;
  const body: ErrorBody = { error: { ...PAYMENT_REQUIRED_BODY.error, message } };
  const out = new Headers(headers);
  out.set("content-type", "application/json; charset=utf-8");
  out.set("cache-control", "no-store");
  return withCors(new Response(JSON.stringify(body), { status, headers: out }));
}

/** The reason @x402/core gives in PAYMENT-REQUIRED when it refused a payment that was sent (replay, bad signature…). */
function rejection(headers: Record<string, string>): string | null {
  const encoded = Object.entries(headers).find(([k]) => k.toLowerCase() === "payment-required")?.[1];
  if (!encoded) return null;
  try {
    const reason = decodePaymentRequiredHeader(encoded).error;
    return reason && reason !== "Payment required" ? reason : null;
  } catch {
    return null;
  }
}
