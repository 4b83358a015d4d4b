// The MCP tools: one per route of the table with a `tool`, listed once and called through the same pipelines as HTTP
// (free answers; the paid pipeline and its payment core). Every outcome is a result the official SDK client accepts
// after tools/list: an answer's structuredContent matches the declared outputSchema; a refusal or an error is
// isError with its body as text and no structuredContent.
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ROUTES, type PaidRoute, type RouteEntry } from "../schemas/api.ts";
import type { ErrorBody } from "../schemas/errors.ts";
import type { DocumentKind } from "../schemas/snapshot.ts";
import { ApiError, asApiError } from "./errors.ts";
import { freeAnswer, type FreeRoute } from "./free.ts";
import { servePaid, type PaidDeps, type PaidQuery } from "./paid.ts";
import { argumentReader } from "./params.ts";
import { PaymentRefusal } from "./payment/core.ts";
import { mcpCredentials, receiptMeta, refusalResult } from "./payment/mcp.ts";
import { WRITTEN, WRITTEN_LITERAL } from "./mcp-reply.ts";
import type { EventLog } from "./snapshot.ts";
import { toolInputSchema, toolOutputSchema } from "./tool-schema.ts";

/** An answer's envelope as a JSON string literal (content[0].text), made once per envelope buffer (one per second). */
const LITERALS = new WeakMap<Buffer, Buffer>();

/** One tool call as the endpoint hands it over: the MCP request's headers, the call's arguments and `_meta`. */
export interface ToolCall {
  headers: Headers;
  args: Record<string, unknown>;
  meta: Record<string, unknown> | undefined;
}

type ToolRoute = Extract<RouteEntry, { tool: string }>;
type Handler = (call: ToolCall) => Promise<CallToolResult>;

/** The tools and how each is answered, built once per gateway. */
export interface McpTools {
  /** tools/list's answer. */
  list: Tool[];
  /** The handler of a tool by name; undefined for an unknown tool. */
  handler(name: string): Handler | undefined;
}

/** Builds the tool table from the route table. */
export function createTools(deps: PaidDeps & { log: EventLog }): McpTools {
  const routes = ROUTES.filter((r): r is ToolRoute => r.tool !== null);
  const handlers = new Map<string, Handler>(
    routes.map((route) => [route.tool, guarded(isPaid(route) ? paidHandler(deps, route) : freeHandler(deps, route), route, deps.log)]),
  );
  const list = routes.map(
    (route): Tool => ({
      name: route.tool,
      title: route.summary,
      description: isPaid(route)
        ? `${route.description} Price: ${route.price} per call with x402 (USDC on Base), or free with a subscription API key.`
        : route.description,
      inputSchema: toolInputSchema(route) as Tool["inputSchema"],
      outputSchema: toolOutputSchema(route) as Tool["outputSchema"],
      annotations: { title: route.summary, readOnlyHint: true, openWorldHint: false },
    }),
  );
  return { list, handler: (name) => handlers.get(name) };
}

/** An error as a tool result: isError, the error body as text (code, message, hint). */
export function errorResult(error: unknown): CallToolResult {
  const api = asApiError(error);
  return bodyResult({ error: { code: api.code, message: api.message, hint: api.hint } });
}

/** An error body as a tool result. */
export function bodyResult(body: ErrorBody): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
}

function paidHandler(deps: PaidDeps, route: PaidRoute): Handler {
  const readArguments = argumentReader(route.query);
  return async ({ headers, args, meta }) => {
    const query = readArguments(args) as PaidQuery;
    const outcome = await servePaid(deps, route, query, "mcp", mcpCredentials(headers, meta));
    let literal = LITERALS.get(outcome.body);
    if (!literal) LITERALS.set(outcome.body, (literal = Buffer.from(JSON.stringify(outcome.body.toString("utf8")))));
    const result = answerResult(outcome.body, literal);
    const receipt = receiptMeta(outcome.receipt);
    return receipt ? { ...result, _meta: receipt } : result;
  };
}

function freeHandler(deps: PaidDeps, route: FreeRoute & ToolRoute): Handler {
  const readArguments = argumentReader(route.query);
  return async ({ args }) => {
    const text = await freeAnswer(route, readArguments(args), deps.snapshots);
    return answerResult(Buffer.from(text), Buffer.from(JSON.stringify(text)));
  };
}

/** An answer: the envelope as structuredContent, and as text for clients that read only text (both written as is). */
function answerResult(envelope: Buffer, literal: Buffer): CallToolResult {
  return { structuredContent: { [WRITTEN]: envelope, [WRITTEN_LITERAL]: literal }, content: [{ type: "text", text: "" }] };
}

/** Turns refusals and errors into tool results, never into JSON-RPC failures; the unexpected is logged once. */
function guarded(handler: Handler, route: ToolRoute, log: EventLog): Handler {
  return async (call) => {
    try {
      return await handler(call);
    } catch (error) {
      if (error instanceof PaymentRefusal) return refusalResult(error);
      if (!(error instanceof ApiError)) log("error", "unhandled", { tool: route.tool, error: String((error as Error)?.stack ?? error) });
      return errorResult(error);
    }
  };
}

function isPaid(route: RouteEntry): route is PaidRoute {
  return (route as { document: DocumentKind | null }).document !== null;
}
