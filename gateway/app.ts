// The HTTP app: routes from the table, each request through one pipeline, read top to bottom —
// method → parameters → coverage → payment → document → filter → envelope → settle (DESIGN "Gateway").
import { getRequestIP, H3, HTTPResponse, type H3Event, type HTTPError } from "h3";
import { FastResponse } from "srvx";
import { DISCOVERY_ROUTES, ROUTES, SUBSCRIPTION_ROUTES, type PaidRoute } from "../schemas/api.ts";
import type { Billing } from "./billing.ts";
import { billingHandlers, billingHeads } from "./billing-routes.ts";
import { ALLOW_ORIGIN, preflight, withCors } from "./cors.ts";
import { requireCoverage } from "./coverage.ts";
import { paidAnswer } from "./answer.ts";
import { isoAt } from "./clock.ts";
import { ApiError, errorResponse } from "./errors.ts";
import { freeAnswer, type FreeRoute } from "./free.ts";
import { withoutBody } from "./head.ts";
import { buildLlmsTxt } from "./llms.ts";
import { createMcpEndpoint } from "./mcp.ts";
import { buildOpenApi } from "./openapi.ts";
import { servePaid, type PaidQuery } from "./paid.ts";
import { queryReader } from "./params.ts";
import { PaymentRefusal, type PaymentCore } from "./payment/core.ts";
import { httpCredentials, receiptHeaders, refusalResponse, trustedKey } from "./payment/http.ts";
import type { ClientRateLimit } from "./rate-limit.ts";
import type { EventLog, SnapshotStore } from "./snapshot.ts";
import { tickersResponse } from "./tickers.ts";

/** What the app needs; tests build it with real parts and no port. */
export interface AppDeps {
  snapshots: SnapshotStore;
  /** The payment core (keys and x402), shared with the MCP tools. */
  payments: PaymentCore;
  publicBaseUrl: string;
  /** Per-client limit on the free endpoints. */
  limiter: ClientRateLimit;
  log: EventLog;
  /** Stripe subscriptions; null when not configured (the subscription routes then answer 503). */
  billing: Billing | null;
}

/** Longer paths with their query are refused before routing (no parameter of this API comes near it). */
const MAX_URL_LENGTH = 4096;

// CORS headers ride in every response's own headers: cheaper on the hot path than an onResponse rewrite. A 200
// carries no header to expose unless an x402 payment was settled (PAYMENT-RESPONSE).
const JSON_TYPE = { "content-type": "application/json; charset=utf-8", ...ALLOW_ORIGIN };
// srvx's FastResponse with plain header objects: written to the socket as they are, where h3's HTTPResponse
// would first build a fetch Headers object per response (a tenth of the hot path's time under load).
const PAID_HEADERS = { ...JSON_TYPE, "cache-control": "private, no-store" };
const FREE_HEADERS = { ...JSON_TYPE, "cache-control": "no-store" };

/** Creates the gateway app (no port: `app.fetch(request)` answers; `serve(app)` listens). */
export function createApp(deps: AppDeps): H3 {
  const openapi = JSON.stringify(buildOpenApi(deps.publicBaseUrl));
  const llms = buildLlmsTxt(deps.publicBaseUrl);
  const app = new H3({
    silent: true, // unexpected errors are logged below, once, as structured lines
    onRequest: (event) => {
      // The path and query as sent (the full URL would be a new string per request, origin included).
      const length = event.url.pathname.length + event.url.search.length;
      if (length > MAX_URL_LENGTH) throw new ApiError("uri_too_long", `The URL's path and query are ${length} characters long.`);
    },
    onError: (error, event) => {
      const response = errorAnswer(error, event);
      return event.req.method === "HEAD" ? withoutBody(response) : response;
    },
  });

  for (const route of ROUTES) {
    const readQuery = queryReader(route.query);
    // Not async: the usual paid call is answered synchronously, and any other goes to h3 as its own promise.
    app.all(route.path, (event) => {
      if (event.req.method !== route.method) return otherMethod(event, route);
      return route.document ? paid(event, route, readQuery(event) as PaidQuery) : free(event, route as FreeRoute, readQuery);
    });
  }
  const [openapiRoute, llmsRoute] = DISCOVERY_ROUTES;
  app.all(openapiRoute.path, (event) => {
    if (event.req.method !== openapiRoute.method) return otherMethod(event, openapiRoute);
    deps.limiter.take(event);
    return new HTTPResponse(openapi, { headers: { ...JSON_TYPE, "cache-control": "public, max-age=300" } });
  });
  app.all(llmsRoute.path, (event) => {
    if (event.req.method !== llmsRoute.method) return otherMethod(event, llmsRoute);
    deps.limiter.take(event);
    return new HTTPResponse(llms, { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=300", ...ALLOW_ORIGIN } });
  });
  const billing = billingHandlers(deps.billing);
  // The subscription pages answer HEAD themselves: a GET there creates a Checkout Session or shows a key once.
  const billingHead = billingHeads(deps.billing);
  for (const route of SUBSCRIPTION_ROUTES) {
    app.all(route.path, async (event) => {
      const head = event.req.method === "HEAD" && billingHead[route.path as keyof typeof billingHead];
      if (head) return withCors(await head(event));
      if (event.req.method !== route.method) return otherMethod(event, route);
      return withCors(await billing[route.path](event));
    });
  }
  const mcp = createMcpEndpoint({ snapshots: deps.snapshots, payments: deps.payments, limiter: deps.limiter, log: deps.log });
  app.all("/mcp", (event) => (event.req.method === "OPTIONS" ? preflight() : mcp(event)));
  return app;

  function errorAnswer(error: HTTPError, event: H3Event): Response {
    const cause = error.cause ?? error;
    if (cause instanceof PaymentRefusal) return refusalResponse(cause);
    if (cause instanceof ApiError) return errorResponse(cause);
    if (error.status === 404) return errorResponse(new ApiError("not_found", `No endpoint at ${event.url.pathname.slice(0, 80)}.`));
    if (error.status === 400) return errorResponse(new ApiError("invalid_parameter", "The request URL is malformed."));
    deps.log("error", "unhandled", { path: event.url.pathname, error: String((cause as Error)?.stack ?? cause) });
    return errorResponse(cause);
  }

  /** A method other than the route's own: the preflight, HEAD where GET is allowed, else 405 with Allow. */
  function otherMethod(event: H3Event, route: { method: string; path: string }): Response | Promise<Response> {
    const method = event.req.method;
    if (method === "OPTIONS") return preflight();
    if (method === "HEAD" && route.method === "GET") return head(event);
    const allow = route.method === "GET" ? "GET, HEAD" : route.method;
    throw new ApiError("method_not_allowed", `${method.slice(0, 16)} is not allowed on ${route.path}.`, { headers: { allow } });
  }

  /**
   * HEAD is the GET it names, answered without the body (RFC 9110 §9.3.2): same status and headers, Content-Length
   * included. The GET is made without any PAYMENT-SIGNATURE, so a HEAD is never charged and never settles: a key
   * gets its 200, an x402 payer the 402 an unpaid GET gets, its signature left unspent.
   */
  async function head(event: H3Event): Promise<Response> {
    const headers = new Headers(event.req.headers);
    headers.delete("payment-signature");
    const get = new Request(event.req.url, { method: "GET", headers });
    return withoutBody(await app.request(get, undefined, { clientAddress: getRequestIP(event) }));
  }

  async function free(event: H3Event, route: FreeRoute, readQuery: (event: H3Event) => { ticker?: string }): Promise<Response> {
    deps.limiter.take(event); // before the parameters: a client over its limit is told so whatever it sends
    const query = readQuery(event);
    // /tickers over HTTP is revalidated and compressed (ETag, gzip); its data is freeAnswer's, as over MCP.
    if (route.path === "/tickers") return tickersResponse(event.req.headers, await deps.snapshots.current());
    return json(await freeAnswer(route, query, deps.snapshots));
  }

  /**
   * The usual call (a key verified moments ago, its document in memory) is answered at once, without a promise:
   * every await is a trip through the microtask queue, per request. Anything else takes the whole pipeline.
   */
  function paid(event: H3Event, route: PaidRoute, query: PaidQuery): Response | Promise<Response> {
    const snapshot = deps.snapshots.held;
    if (snapshot) {
      requireCoverage(deps.snapshots.ticker(snapshot, query.ticker), query.ticker);
      const now = Date.now(); // one clock reading for the key's verdict and the answer's time
      const doc = trustedKey(deps.payments, event.req.headers, now) && deps.snapshots.cached(snapshot, query.ticker, route.document);
      if (doc) return paidResponse(paidAnswer(doc, "hit", snapshot, route, query, isoAt(now)).body, PAID_HEADERS);
    }
    return pipeline(event, route, query);
  }

  /** Every other paid call: the shared paid pipeline (gateway/paid.ts), its outcome as the response. */
  async function pipeline(event: H3Event, route: PaidRoute, query: PaidQuery): Promise<Response> {
    const outcome = await servePaid(deps, route, query, "http", httpCredentials(event.req.headers));
    return paidResponse(outcome.body, outcome.receipt ? { ...PAID_HEADERS, ...receiptHeaders(outcome.receipt) } : PAID_HEADERS);
  }
}

function paidResponse(body: Buffer, headers: Record<string, string>): Response {
  return new FastResponse(body as Uint8Array<ArrayBuffer>, { status: 200, headers });
}

function json(body: string): Response {
  return new FastResponse(body, { status: 200, headers: FREE_HEADERS });
}
