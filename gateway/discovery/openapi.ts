// /openapi.json: generated from the zod schemas and the route table, never written by hand (OpenAPI 3.1.0).
import { createDocument, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from "zod-openapi";
import { z } from "zod";
import {
  DISCOVERY_ROUTES,
  NETWORK,
  ROUTES,
  SERVICE,
  SUBSCRIPTION,
  SUBSCRIPTION_ROUTES,
  USDC_BASE,
  usdToAtomic,
  type Route,
  type RouteEntry,
  type RouteResponse,
  type SubscriptionRoute,
} from "../../schemas/api.ts";
import { envelope } from "../../schemas/envelope.ts";
import { ErrorBody } from "../../schemas/errors.ts";
import packageJson from "../../package.json" with { type: "json" };

const JSON_MEDIA = "application/json";

/** The OpenAPI document for a deployment at `publicBaseUrl`. */
export function buildOpenApi(publicBaseUrl: string): object {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of ROUTES) {
    paths[route.path] = {
      get: {
        operationId: operationId(route.path),
        summary: route.summary,
        description: route.price ? `${briefOf(route)} Price: ${route.price} per call (x402 v2), or free with an API key.` : briefOf(route),
        tags: [route.price ? "paid" : "free"],
        requestParams: { query: route.query },
        responses: responses(route),
        security: route.price ? [{}, { bearerAuth: [] }, { apiKeyHeader: [] }] : [],
        ...(route.price
          ? { "x-price": { usd: route.price, amount: usdToAtomic(route.price), asset: USDC_BASE, network: NETWORK, scheme: "exact", x402Version: 2 } }
          : {}),
      },
    };
  }
  for (const route of DISCOVERY_ROUTES) {
    const method = route.method === "POST" ? "post" : "get";
    paths[route.path] = {
      [method]: {
        operationId: operationId(route.path),
        summary: route.summary,
        tags: ["discovery"],
        security: [],
        ...(method === "post"
          ? { requestBody: { required: true, content: { [JSON_MEDIA]: { schema: z.looseObject({ jsonrpc: z.literal("2.0"), method: z.string() }) } } } }
          : {}),
        responses: {
          "200": { description: route.summary, content: { [route.contentType]: { schema: route.contentType === "text/plain" ? z.string() : z.looseObject({}) } } },
          ...(method === "post" ? { "400": errorResponse("The body is not a JSON-RPC request.") } : {}),
          "405": errorResponse("Another method than the one documented."),
        },
      },
    };
  }
  for (const route of SUBSCRIPTION_ROUTES as readonly SubscriptionRoute[]) {
    paths[route.path] = {
      [route.method === "POST" ? "post" : "get"]: {
        operationId: operationId(route.path, route.method.toLowerCase()),
        summary: route.summary,
        description: route.description,
        tags: ["subscription"],
        requestParams: { query: route.query, ...(route.header ? { header: route.header } : {}) },
        ...(route.auth === "stripe-signature"
          ? { requestBody: { required: true, content: { [JSON_MEDIA]: { schema: z.looseObject({ id: z.string(), type: z.string(), data: z.looseObject({}) }) } } } }
          : {}),
        security: route.auth === "key" ? [{ bearerAuth: [] }, { apiKeyHeader: [] }] : [],
        responses: Object.fromEntries(Object.entries(route.responses).map(([status, response]) => [status, documented(response)])),
      },
    };
  }
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Filing Data Service",
      // The package's version, as the MCP server states it: one version for every description of the service.
      version: packageJson.version,
      description:
        `${SERVICE.description} Call /probe (free) first. Paid endpoints take x402 v2 (USDC on Base, scheme exact) per call, ` +
        `or a subscription API key (USD ${SUBSCRIPTION.usd_per_month} a month, unlimited). Errors are {error: {code, message, hint}}.`,
    },
    servers: [{ url: publicBaseUrl }],
    externalDocs: { description: "The guide for agents, every endpoint in full", url: `${publicBaseUrl}/llms.txt` },
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "Subscription API key as `Authorization: Bearer <key>`." },
        apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key", description: "Subscription API key." },
      },
    },
  });
}

function responses(route: RouteEntry): ZodOpenApiResponsesObject {
  const out: ZodOpenApiResponsesObject = {
    "200": {
      description: "The payload in the envelope.",
      content: { [JSON_MEDIA]: { schema: envelope(route.payload).meta({ id: `${operationId(route.path)}Response` }) } },
      ...(route.path === "/tickers" ? { headers: { ETag: { description: "Weak validator of the list; it changes when a new snapshot is published.", schema: { type: "string" as const } } } } : {}),
    },
    "400": errorResponse("A parameter is missing or invalid (`invalid_parameter`)."),
    "405": errorResponse("Another method than GET (`method_not_allowed`); `Allow` names GET."),
  };
  if (route.path === "/probe" || route.path === "/tickers") out["503"] = errorResponse("No snapshot can be read (`storage_unavailable`).");
  if (route.path === "/tickers") out["304"] = { description: "Not modified: the If-None-Match ETag is the current list's." };
  if (!route.price) return out;
  return {
    ...out,
    "401": errorResponse("The API key is unknown or revoked (`invalid_api_key`); never falls back to x402."),
    "402": {
      description: "Payment required (`payment_required`): the x402 v2 requirements are in the PAYMENT-REQUIRED header, not the body.",
      headers: {
        "PAYMENT-REQUIRED": { description: "base64 of the x402 v2 PaymentRequired JSON (scheme exact, network eip155:8453, USDC).", schema: { type: "string" } },
        "PAYMENT-RESPONSE": { description: "base64 SettleResponse, when a sent payment could not be settled.", schema: { type: "string" } },
      },
      content: { [JSON_MEDIA]: { schema: ErrorBody } },
    },
    ...(route.document ? { "404": errorResponse("The ticker is unknown or not covered (`ticker_not_covered`); nothing is charged.") } : {}),
    "409": errorResponse("The x402 payment identifier was used for another request within 15 minutes (`idempotency_conflict`); nothing is charged."),
    "503": errorResponse("Storage or the payment facilitator is unavailable (`storage_unavailable`, `facilitator_unavailable`); nothing is charged."),
  };
}

/** A subscription route's response: its JSON body (or the error body), an HTML alternative, its headers. */
function documented(response: RouteResponse) {
  const content: Record<string, { schema: z.ZodType }> = {};
  if (response.json) content[JSON_MEDIA] = { schema: response.json === "error" ? ErrorBody : response.json };
  if (response.html) content["text/html"] = { schema: z.string() };
  const headers = Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, description]) => [name, { description, schema: { type: "string" as const } }]));
  return { description: response.description, ...(Object.keys(content).length ? { content } : {}), ...(response.headers ? { headers } : {}) };
}

function errorResponse(description: string) {
  return { description, content: { [JSON_MEDIA]: { schema: ErrorBody } } };
}

/** "/earnings/summary" → "getEarningsSummary"; ("/billing/portal", "post") → "postBillingPortal". */
function operationId(path: string, verb = "get"): string {
  const words = path.split(/[^a-zA-Z0-9]+/).filter(Boolean);
  return [verb, ...words].map((w, i) => (i ? w[0]!.toUpperCase() + w.slice(1) : w)).join("");
}

/** A route as OpenAPI describes it: GPT Actions refuse an operation description over 300 characters (the whole is in llms.txt and MCP). */
function briefOf(route: Route): string {
  return route.brief ?? route.description;
}
