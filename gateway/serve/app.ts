// The HTTP app: routes from the table, each request through one pipeline, read top to bottom —
// method → parameters → coverage → payment → document → filter → envelope → settle (DESIGN "Gateway").
import { H3, HTTPResponse, type H3Event, type HTTPError } from "h3";
import { DISCOVERY_ROUTES, ROUTES, SUBSCRIPTION_ROUTES } from "../../schemas/api.ts";
import { billingHandlers, billingHeads } from "../subscriptions/routes.ts";
import { ALLOW_ORIGIN, withCors } from "../http/cors.ts";
import { ApiError, clientAborted, errorResponse } from "../http/errors.ts";
import { noteRoute } from "./exchange.ts";
import { withoutBody } from "./head.ts";
import { buildLlmsTxt } from "../discovery/llms.ts";
import { createMcpEndpoint } from "../discovery/mcp.ts";
import { buildOpenApi } from "../discovery/openapi.ts";
import type { PaidQuery } from "./paid.ts";
import { queryReader } from "./params.ts";
import { PaymentRefusal } from "../payment/core.ts";
import { refusalResponse } from "../payment/http.ts";
import { feedStep, freeStep, JSON_TYPE, otherMethod, paidStep, type AppDeps, type RouteMethod } from "./steps.ts";
import type { FeedQuery } from "./feeds.ts";

type Handler = (event: H3Event) => Response | HTTPResponse | Promise<Response>;

/** Longer paths with their query are refused before routing (no parameter of this API comes near it). */
const MAX_URL_LENGTH = 4096;

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

  /**
   * Registers `route`: its own method to `handler` (HEAD to `head` if given), any other through the one prelude
   * (steps.ts). The request's record notes the route, and whether it is free (issue 42).
   */
  const register = (route: RouteMethod, handler: Handler, head?: Handler, free = true) =>
    app.all(route.path, (event) => {
      noteRoute(event, route.path, free);
      if (event.req.method === route.method) return handler(event);
      return head && event.req.method === "HEAD" ? head(event) : otherMethod(app, event, route);
    });

  for (const route of ROUTES) {
    const readQuery = queryReader(route.query);
    // Not async: the usual paid call is answered synchronously, and any other goes to h3 as its own promise.
    register(route, route.document
      ? (event) => paidStep(deps, event, route, readQuery(event) as PaidQuery)
      : route.feed
        ? (event) => feedStep(deps, event, route, readQuery(event) as FeedQuery)
        : (event) => freeStep(deps, event, route, readQuery as (event: H3Event) => { ticker?: string }),
      undefined,
      route.price === null);
  }
  const [openapiRoute, llmsRoute, mcpRoute] = DISCOVERY_ROUTES;
  const discovery = (body: string, type: Record<string, string>) => (event: H3Event) => {
    deps.limiter.take(event);
    return new HTTPResponse(body, { headers: { ...type, "cache-control": "public, max-age=300" } });
  };
  register(openapiRoute, discovery(openapi, JSON_TYPE));
  register(llmsRoute, discovery(llms, { "content-type": "text/plain; charset=utf-8", ...ALLOW_ORIGIN }));
  const billing = billingHandlers(deps);
  // The subscription pages answer HEAD themselves: a GET there creates a Checkout Session or shows a key once.
  const billingHead = billingHeads(deps.billing);
  for (const route of SUBSCRIPTION_ROUTES) {
    const head = billingHead[route.path as keyof typeof billingHead];
    register(route, async (event) => withCors(await billing[route.path](event)), head && (async (event) => withCors(await head(event))));
  }
  register(mcpRoute, createMcpEndpoint({ snapshots: deps.snapshots, payments: deps.payments, cross: deps.cross, limiter: deps.limiter, log: deps.log }));
  return app;

  function errorAnswer(error: HTTPError, event: H3Event): Response {
    const cause = error.cause ?? error;
    if (cause instanceof PaymentRefusal) return refusalResponse(cause);
    if (cause instanceof ApiError) return errorResponse(cause);
    if (error.status === 404) return errorResponse(new ApiError("not_found", `No endpoint at ${event.url.pathname.slice(0, 80)}.`));
    if (error.status === 400) return errorResponse(new ApiError("invalid_parameter", "The request URL is malformed."));
    if (clientAborted(cause)) {
      // Nobody reads this answer; a client's abort is its own business, not the service's error (issue 39).
      deps.log("info", "client_aborted", { path: event.url.pathname.slice(0, 80) });
      return errorResponse(new ApiError("invalid_parameter", "The request was aborted before its body was read."));
    }
    deps.log("error", "unhandled", { path: event.url.pathname, error: String((cause as Error)?.stack ?? cause) });
    return errorResponse(cause);
  }
}
