// The HTTP app: routes from the table, each request through one pipeline, read top to bottom —
// method → parameters → coverage → payment → document → filter → envelope → settle (DESIGN "Gateway").
import { H3, HTTPResponse, type H3Event } from "h3";
import { FastResponse } from "srvx";
import { DISCOVERY_ROUTES, ROUTES, SUBSCRIPTION_ROUTES, type PaidRoute, type RouteEntry } from "../schemas/api.ts";
import type { Meta } from "../schemas/envelope.ts";
import type { Billing } from "./billing.ts";
import { billingHandlers } from "./billing-routes.ts";
import { CORS_HEADERS, preflight, withCors } from "./cors.ts";
import { requireCoverage } from "./coverage.ts";
import { paidAnswer, type PaidAnswer } from "./answer.ts";
import { envelopeOf } from "./envelope.ts";
import { ApiError, errorResponse } from "./errors.ts";
import { buildLlmsTxt } from "./llms.ts";
import { handleMcp } from "./mcp.ts";
import type { ToolPayments } from "./mcp-payment.ts";
import { buildOpenApi } from "./openapi.ts";
import { requireQuery } from "./params.ts";
import { PaymentResponse, type Payments } from "./payment.ts";
import type { ClientRateLimit } from "./rate-limit.ts";
import { healthPayload, serviceProbe, tickerProbe } from "./probe.ts";
import type { EventLog, SnapshotStore } from "./snapshot.ts";

/** What the app needs; tests build it with real parts and no port. */
export interface AppDeps {
  snapshots: SnapshotStore;
  payments: Payments;
  tools: ToolPayments;
  publicBaseUrl: string;
  /** Per-client limit on the free endpoints. */
  limiter: ClientRateLimit;
  log: EventLog;
  /** Stripe subscriptions; null when not configured (the subscription routes then answer 503). */
  billing: Billing | null;
  now?: () => Date;
}

// CORS headers ride in every response's own headers: cheaper on the hot path than an onResponse rewrite.
/** Longer URLs are refused before routing (no parameter of this API comes near it). */
const MAX_URL_LENGTH = 4096;

const JSON_TYPE = { "content-type": "application/json; charset=utf-8", ...CORS_HEADERS };
// srvx's FastResponse with plain header objects: written to the socket as they are, where h3's HTTPResponse
// would first build a fetch Headers object per response (a tenth of the hot path's time under load).
const PAID_HEADERS = { ...JSON_TYPE, "cache-control": "private, no-store" };
const FREE_HEADERS = { ...JSON_TYPE, "cache-control": "no-store" };

/** Creates the gateway app (no port: `app.fetch(request)` answers; `serve(app)` listens). */
export function createApp(deps: AppDeps): H3 {
  const now = deps.now ?? (() => new Date());
  // The responses of one millisecond share its timestamp text (and so, in envelope.ts, their bytes).
  let lastMs = Number.NaN;
  let lastIso = "";
  const isoNow = () => {
    const date = now();
    if (date.getTime() !== lastMs) {
      lastMs = date.getTime();
      lastIso = date.toISOString();
    }
    return lastIso;
  };
  const openapi = JSON.stringify(buildOpenApi(deps.publicBaseUrl));
  const llms = buildLlmsTxt(deps.publicBaseUrl);
  const app = new H3({
    silent: true, // unexpected errors are logged below, once, as structured lines
    onRequest: (event) => {
      if (event.req.url.length > MAX_URL_LENGTH) throw new ApiError("uri_too_long", `The URL is ${event.req.url.length} characters long.`);
    },
    onError: (error, event) => {
      const cause = error.cause ?? error;
      if (cause instanceof PaymentResponse) return cause.response;
      if (cause instanceof ApiError) return errorResponse(cause);
      if (error.status === 404) return errorResponse(new ApiError("not_found", `No endpoint at ${event.url.pathname.slice(0, 80)}.`));
      if (error.status === 400) return errorResponse(new ApiError("invalid_parameter", "The request URL is malformed."));
      deps.log("error", "unhandled", { path: event.url.pathname, error: String((cause as Error)?.stack ?? cause) });
      return errorResponse(cause);
    },
  });

  for (const route of ROUTES) {
    app.all(route.path, async (event) => {
      if (event.req.method === "OPTIONS") return preflight();
      requireMethod(event, route);
      return route.document ? paid(event, route) : free(event, route);
    });
  }
  const [openapiRoute, llmsRoute] = DISCOVERY_ROUTES;
  app.all(openapiRoute.path, (event) => {
    if (event.req.method === "OPTIONS") return preflight();
    requireMethod(event, openapiRoute);
    deps.limiter.take(event);
    return new HTTPResponse(openapi, { headers: { ...JSON_TYPE, "cache-control": "public, max-age=300" } });
  });
  app.all(llmsRoute.path, (event) => {
    if (event.req.method === "OPTIONS") return preflight();
    requireMethod(event, llmsRoute);
    deps.limiter.take(event);
    return new HTTPResponse(llms, { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=300", ...CORS_HEADERS } });
  });
  const billing = billingHandlers(deps.billing);
  for (const route of SUBSCRIPTION_ROUTES) {
    app.all(route.path, async (event) => {
      if (event.req.method === "OPTIONS") return preflight();
      requireMethod(event, route);
      return withCors(await billing[route.path](event));
    });
  }
  app.all("/mcp", async (event) =>
    event.req.method === "OPTIONS" ? preflight() : withCors(await handleMcp(event, { snapshots: deps.snapshots, tools: deps.tools, now })),
  );
  return app;

  async function free(event: H3Event, route: RouteEntry): Promise<Response> {
    deps.limiter.take(event);
    const query = requireQuery(event, route.query) as { ticker?: string };
    const meta: Meta = { retrieved_at: isoNow(), cache: "hit" };
    if (route.path === "/health") return json(envelopeOf(healthPayload(deps.snapshots.held), meta));
    const snapshot = await deps.snapshots.current();
    const data = query.ticker ? tickerProbe(snapshot, query.ticker) : serviceProbe(snapshot);
    return json(envelopeOf(data, { ...meta, built_at: snapshot.pointer.built_at, snapshot: snapshot.pointer.build_id }));
  }

  async function paid(event: H3Event, route: PaidRoute): Promise<Response> {
    const query = requireQuery(event, route.query) as { ticker: string; form?: string; limit?: number; period?: string; since?: string };
    const snapshot = await deps.snapshots.current();
    requireCoverage(deps.snapshots.ticker(snapshot, query.ticker), query.ticker);
    const ticket = await deps.payments.require(event);
    let answer: PaidAnswer;
    try {
      answer = await paidAnswer(deps.snapshots, snapshot, route, query, isoNow());
    } catch (error) {
      await deps.payments.release(ticket, 503);
      throw error;
    }
    const { body, rows } = answer;
    // Settle only for a 200 with data: an empty answer is never charged (DESIGN "Gateway"; pitfall 44).
    if (rows === 0) {
      await deps.payments.release(ticket, 200);
      return new FastResponse(body as Uint8Array<ArrayBuffer>, { status: 200, headers: PAID_HEADERS });
    }
    const paidHeaders = await deps.payments.settle(ticket, body);
    return new FastResponse(body as Uint8Array<ArrayBuffer>, { status: 200, headers: { ...PAID_HEADERS, ...paidHeaders } });
  }
}

/** 405 with Allow for any other method (spec 4: every data endpoint is GET). */
function requireMethod(event: H3Event, route: { method: string; path: string }): void {
  const method = event.req.method;
  if (method === route.method) return;
  throw new ApiError("method_not_allowed", `${method.slice(0, 16)} is not allowed on ${route.path}.`, { headers: { allow: route.method } });
}

function json(body: string): Response {
  return new FastResponse(body, { status: 200, headers: FREE_HEADERS });
}
