// The MCP tools: one per route of the table with a `tool`, listed once and called through the same pipelines as HTTP
// (free answers; the paid pipeline and its payment core). Every outcome is a result the official SDK client accepts
// after tools/list: an answer's structuredContent matches the declared outputSchema, as a payment refusal's
// PaymentRequired does (a paid tool's schema admits both); any other error is isError with its body as text only.
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { ROUTES, type FeedRoute, type PaidRoute, type RouteEntry, type TickerRoute } from "../../schemas/api.ts";
import type { ErrorBody } from "../../schemas/errors.ts";
import { paidAnswerParts } from "../serve/answer.ts";
import { isoAt } from "../serve/clock.ts";
import { ApiError, asApiError } from "../http/errors.ts";
import { freeAnswer, type FreeRoute } from "../serve/free.ts";
import { heldDocument, servePaid, type PaidDeps, type PaidQuery } from "../serve/paid.ts";
import { argumentReader } from "../serve/params.ts";
import { PaymentRefusal, type Credentials, type PaidOutcome } from "../payment/core.ts";
import { feedParts, heldFeed, serveFeed, type FeedQuery } from "../serve/feeds.ts";
import { mcpCredentials, paidOutputSchema, receiptMeta, refusalResult } from "../payment/mcp.ts";
import type { Sender } from "../payment/refusal-limit.ts";
import { answerResult } from "./mcp-reply.ts";
import type { EventLog } from "../../logging/log.ts";
import type { CallRecord } from "../payment/call-record.ts";
import { exchangeOf } from "../serve/exchange.ts";
import { toolDefaults, toolInputSchema, toolOutputSchema } from "../../schemas/tool-schema.ts";

/** One tool call as the endpoint hands it over: the MCP request's headers and sender, the call's arguments and `_meta`. */
export interface ToolCall {
  headers: Headers;
  sender: Sender;
  args: Record<string, unknown>;
  meta: Record<string, unknown> | undefined;
}

type ToolRoute = Extract<RouteEntry, { tool: string }>;
/** A tool's answer: at once when it can be (the usual keyed call), else a promise. */
type Handler = (call: ToolCall) => CallToolResult | Promise<CallToolResult>;
/** A tool's own handler, given the call's record (issue 42) when its request is observed. */
type Answering = (call: ToolCall, record: CallRecord | null) => CallToolResult | Promise<CallToolResult>;

/** The tools and how each is answered, built once per gateway. */
export interface McpTools {
  /** tools/list's answer. */
  list: Tool[];
  /** The handler of a tool by name; undefined for an unknown tool. */
  handler(name: string): Handler | undefined;
  /** True for a paid tool (one that reads a payment). */
  paid(name: string): boolean;
}

/** Builds the tool table from the route table. */
export function createTools(deps: PaidDeps & { log: EventLog }): McpTools {
  const routes = ROUTES.filter((r): r is ToolRoute => r.tool !== null);
  const handlers = new Map<string, Handler>(
    routes.map((route) => [route.tool, guarded(isPaid(route) ? (route.feed ? feedHandler(deps, route) : paidHandler(deps, route)) : freeHandler(deps, route), route, deps.log)]),
  );
  const list = routes.map(
    (route): Tool => ({
      name: route.tool,
      title: route.summary,
      description: isPaid(route)
        ? `${route.description} Size: ${route.agent.sizes} Price: ${route.price} per call with x402 (USDC on Base), or free with a subscription API key.`
        : `${route.description} Size: ${route.agent.sizes}`,
      inputSchema: toolInputSchema(route) as Tool["inputSchema"],
      outputSchema: (isPaid(route) ? paidOutputSchema(toolOutputSchema(route)) : toolOutputSchema(route)) as Tool["outputSchema"],
      annotations: { title: route.summary, readOnlyHint: true, openWorldHint: false },
    }),
  );
  const paid = new Set<string>(routes.filter(isPaid).map((route) => route.tool));
  return { list, handler: (name) => handlers.get(name), paid: (name) => paid.has(name) };
}

/** An error as a tool result: isError, the error body as text; a result has no headers, so Retry-After is said. */
export function errorResult(error: unknown): CallToolResult {
  return bodyResult(toolErrorBody(error));
}

/** Any failure's error body as a tool reads it: no Retry-After header there, so the wait is in the message. */
export function toolErrorBody(error: unknown): ErrorBody {
  const api = asApiError(error);
  const wait = api.headers["retry-after"];
  return { error: { code: api.code, message: wait ? `${api.message} Retry after ${wait} s.` : api.message, hint: api.hint } };
}

/** An error body as a tool result. */
export function bodyResult(body: ErrorBody): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
}

/** The usual keyed call is answered at once from the document in memory, as over HTTP; any other takes the pipeline. */
function paidHandler(deps: PaidDeps, route: TickerRoute): Answering {
  const readArguments = argumentReader(route.query, toolDefaults(route));
  return (call, record) => {
    const query = readArguments(call.args) as PaidQuery;
    const now = Date.now(); // one clock reading for the key's verdict and the answer's time
    const held = heldDocument(deps, route, query, call.headers, now, record);
    if (!held) return pipeline(call, record, (credentials) => servePaid(deps, route, query, "mcp", credentials));
    const { json, literal } = paidAnswerParts(held.doc, held.snapshot, route, query, isoAt(now));
    return answerResult(json, literal);
  };
}

/** A tool across companies (issue 40): the same question asked again with a key is answered at once, as over HTTP. */
function feedHandler(deps: PaidDeps, route: FeedRoute): Answering {
  const readArguments = argumentReader(route.query, toolDefaults(route));
  return (call, record) => {
    const query = readArguments(call.args) as FeedQuery;
    const now = Date.now();
    const held = heldFeed(deps, route, query, call.headers, now, record);
    if (!held) return pipeline(call, record, (credentials) => serveFeed(deps, route, query, "mcp", credentials));
    const { json, literal } = feedParts(held, now);
    return answerResult(json, literal);
  };
}

/**
 * A paid call through a paid pipeline (a payment, or a key to check first). Its envelope is escaped whole here:
 * a call that pays waits on the facilitator, which costs far more.
 */
async function pipeline(
  { headers, meta, sender }: ToolCall,
  record: CallRecord | null,
  serve: (credentials: Credentials) => Promise<PaidOutcome>,
): Promise<CallToolResult> {
  const outcome = await serve(mcpCredentials(headers, meta, sender, record));
  const result = answerResult([outcome.body], [JSON.stringify(outcome.body.toString("utf8"))]);
  const receipt = receiptMeta(outcome);
  return receipt ? { ...result, _meta: receipt } : result;
}

function freeHandler(deps: PaidDeps, route: FreeRoute & ToolRoute): Answering {
  const readArguments = argumentReader(route.query, toolDefaults(route));
  return async ({ args }) => {
    const text = await freeAnswer(route, readArguments(args), deps);
    return answerResult([text], [JSON.stringify(text)]);
  };
}

/**
 * Turns refusals and errors into tool results, never into JSON-RPC failures; the unexpected is logged once. Each call
 * of an observed request gets its record (how it was paid, its result), for that request's log line and the metrics.
 */
function guarded(handler: Answering, route: ToolRoute, log: EventLog): Handler {
  const recover = (error: unknown, record: CallRecord | null): CallToolResult => {
    const refused = error instanceof PaymentRefusal;
    record?.toolDone(refused ? "payment_required" : "error", error);
    if (refused) return refusalResult(error);
    if (!(error instanceof ApiError)) log("error", "unhandled", { tool: route.tool, error: String((error as Error)?.stack ?? error) });
    return errorResult(error);
  };
  const answered = (result: CallToolResult, record: CallRecord | null): CallToolResult => (record?.toolDone("ok"), result);
  return (call) => {
    const record = exchangeOf(call.sender.event)?.call(route.path, "mcp", route.tool, isPaid(route) ? "none" : "free") ?? null;
    try {
      const result = handler(call, record);
      return result instanceof Promise ? result.then((done) => answered(done, record), (error: unknown) => recover(error, record)) : answered(result, record);
    } catch (error) {
      return recover(error, record);
    }
  };
}

function isPaid(route: RouteEntry): route is PaidRoute {
  return route.price !== null;
}
