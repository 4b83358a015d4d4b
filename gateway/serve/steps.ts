// The HTTP steps of app.ts as plain functions over explicit dependencies: the method prelude every route shares
// (OPTIONS, HEAD as the GET it names, 405 with Allow), the free routes, and the paid routes — the usual keyed call
// answered at once, any other through the paid pipeline shared with MCP (paid.ts).
import { getRequestIP, type H3, type H3Event } from "h3";
import { FastResponse } from "srvx";
import type { FeedRoute, TickerRoute } from "../../schemas/api.ts";
import type { CrossView } from "./cross.ts";
import { envelopeChunks } from "./envelope.ts";
import { heldFeed, serveFeed, type FeedQuery } from "./feeds.ts";
import type { CallRecord } from "../payment/call-record.ts";
import type { Credentials, PaidOutcome } from "../payment/core.ts";
import { exchangeOf } from "./exchange.ts";
import type { Billing } from "../subscriptions/billing.ts";
import { paidAnswerChunks } from "./answer.ts";
import { isoAt } from "./clock.ts";
import { ALLOW_ORIGIN, preflight } from "../http/cors.ts";
import { ApiError } from "../http/errors.ts";
import { freeAnswer, readSnapshot, type FreeQuery, type FreeRoute } from "./free.ts";
import { withoutBody } from "./head.ts";
import { heldDocument, servePaid, type PaidQuery } from "./paid.ts";
import type { PaymentCore } from "../payment/core.ts";
import { httpCredentials, receiptHeaders } from "../payment/http.ts";
import type { ClientRateLimit } from "../http/rate-limit.ts";
import type { SnapshotStore } from "./snapshot.ts";
import type { EventLog } from "../../logging/log.ts";
import { tickersResponse } from "./tickers.ts";

/** What the app needs; tests build it with real parts and no port. */
export interface AppDeps {
  snapshots: SnapshotStore;
  /** The cross-company answers' data (issue 40). */
  cross: CrossView;
  /** The payment core (keys and x402), shared with the MCP tools. */
  payments: PaymentCore;
  publicBaseUrl: string;
  /** Per-client limit on the free endpoints. */
  limiter: ClientRateLimit;
  log: EventLog;
  /** Stripe subscriptions; null when not configured (the subscription routes then answer 503). */
  billing: Billing | null;
}

/** A route as the prelude sees it: its one method and its path. */
export interface RouteMethod {
  method: string;
  path: string;
}

// CORS headers ride in every response's own headers: cheaper on the hot path than an onResponse rewrite. A 200
// carries no header to expose unless an x402 payment was settled (PAYMENT-RESPONSE).
export const JSON_TYPE = { "content-type": "application/json; charset=utf-8", ...ALLOW_ORIGIN };
// srvx's FastResponse with plain header objects: written to the socket as they are, where h3's HTTPResponse
// would first build a fetch Headers object per response (a tenth of the hot path's time under load).
const PAID_HEADERS = { ...JSON_TYPE, "cache-control": "private, no-store" };
const FREE_HEADERS = { ...JSON_TYPE, "cache-control": "no-store" };

/**
 * A method other than the route's own: the preflight, HEAD where GET is allowed (through `app` itself), else 405
 * with Allow. The one prelude of every route.
 */
export function otherMethod(app: H3, event: H3Event, route: RouteMethod): Response | Promise<Response> {
  const method = event.req.method;
  if (method === "OPTIONS") return preflight();
  if (method === "HEAD" && route.method === "GET") return headOf(app, event);
  const allow = route.method === "GET" ? "GET, HEAD" : route.method;
  throw new ApiError("method_not_allowed", `${method.slice(0, 16)} is not allowed on ${route.path}.`, { headers: { allow } });
}

/**
 * HEAD is the GET it names, answered without the body (RFC 9110 §9.3.2): same status and headers, Content-Length
 * included. The GET is made without any PAYMENT-SIGNATURE, so a HEAD is never charged and never settles: a key
 * gets its 200, an x402 payer the 402 an unpaid GET gets, its signature left unspent.
 */
async function headOf(app: H3, event: H3Event): Promise<Response> {
  const headers = new Headers(event.req.headers);
  headers.delete("payment-signature");
  const get = new Request(event.req.url, { method: "GET", headers });
  return withoutBody(await app.request(get, undefined, { clientAddress: getRequestIP(event) }));
}

/** A free route: the per-address limit first (whatever the client sends), then the answer. */
export async function freeStep(deps: AppDeps, event: H3Event, route: FreeRoute, readQuery: (event: H3Event) => FreeQuery): Promise<Response> {
  deps.limiter.take(event);
  const query = readQuery(event);
  // /tickers over HTTP is revalidated and compressed (ETag, gzip); its data is freeAnswer's, as over MCP.
  if (route.path === "/tickers") {
    const { snapshot, cache } = await readSnapshot(deps.snapshots);
    return tickersResponse(event.req.headers, snapshot, cache, query);
  }
  return new FastResponse(await freeAnswer(route, query, deps), { status: 200, headers: FREE_HEADERS });
}

/**
 * A paid route. The usual call (a key verified moments ago, its document in memory) is answered at once, without a
 * promise: every await is a trip through the microtask queue, per request. Anything else takes the whole pipeline.
 */
export function paidStep(deps: AppDeps, event: H3Event, route: TickerRoute, query: PaidQuery): Response | Promise<Response> {
  const now = Date.now(); // one clock reading for the key's verdict and the answer's time
  const record = exchangeOf(event)?.call(route.path, "http", null, "none") ?? null;
  const held = heldDocument(deps, route, query, event.req.headers, now, record);
  if (held) return paidResponse(paidAnswerChunks(held.doc, held.snapshot, route, query, isoAt(now)), PAID_HEADERS);
  return pipeline(deps, event, record, (credentials) => servePaid(deps, route, query, "http", credentials));
}

/** A paid route across companies (issue 40): its usual keyed call (the same question again) at once, as above. */
export function feedStep(deps: AppDeps, event: H3Event, route: FeedRoute, query: FeedQuery): Response | Promise<Response> {
  const now = Date.now();
  const record = exchangeOf(event)?.call(route.path, "http", null, "none") ?? null;
  const held = heldFeed(deps, route, query, event.req.headers, now, record);
  if (held) return paidResponse(envelopeChunks(held.answer, held.tail, isoAt(now)), PAID_HEADERS);
  return pipeline(deps, event, record, (credentials) => serveFeed(deps, route, query, "http", credentials));
}

/** Every other paid call: a paid pipeline (paid.ts, feeds.ts) given the request's credentials, its outcome as the response. */
async function pipeline(deps: AppDeps, event: H3Event, record: CallRecord | null, serve: (credentials: Credentials) => Promise<PaidOutcome>): Promise<Response> {
  const outcome = await serve(httpCredentials(event.req.headers, { limiter: deps.limiter, event }, record));
  return paidResponse(outcome.body, outcome.receipt ? { ...PAID_HEADERS, ...receiptHeaders(outcome) } : PAID_HEADERS);
}

/** A 200 with the answer's bytes, or its chunks streamed one after another (a large answer's data is shared, envelope.ts). */
function paidResponse(body: Buffer | Buffer[], headers: Record<string, string>): Response {
  if (!Array.isArray(body)) return new FastResponse(body as Uint8Array<ArrayBuffer>, { status: 200, headers });
  const length = body.reduce((n, chunk) => n + chunk.length, 0);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of body) controller.enqueue(chunk);
      controller.close();
    },
  });
  return new FastResponse(stream, { status: 200, headers: { ...headers, "content-length": String(length) } });
}
