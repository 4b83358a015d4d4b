// POST /mcp: MCP over streamable HTTP, stateless, JSON responses. One SDK Server, built once, answers every request
// through a transport that multiplexes them (the SDK's stateless transport serves one request and costs a server
// each: ~300 µs). Batches are capped; unauthenticated traffic is rate-limited per address; keyed and paid calls are not.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { readRequestBody } from "@modelcontextprotocol/sdk/server/requestBody.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { H3Event } from "h3";
import { ALLOW_ORIGIN } from "./cors.ts";
import { ApiError, errorBody } from "./errors.ts";
import { createTools, errorResult, type ToolCall } from "./mcp-tools.ts";
import type { PaidDeps } from "./paid.ts";
import { trustedKey } from "./payment/http.ts";
import { PAYMENT_META } from "./payment/mcp.ts";
import type { ClientRateLimit } from "./rate-limit.ts";
import type { EventLog } from "./snapshot.ts";

/** Messages in one batch: a client sends one at a time (batching left MCP in 2025-06-18); 20 covers older clients. */
export const MAX_BATCH = 20;
/** A tools/call with a payment is about 1.5 KB; a full batch of them fits with room to spare. */
const MAX_BODY_BYTES = 128 * 1024;
/** JSON-RPC's implementation-defined server error, as the SDK's transport uses it for HTTP-level refusals. */
const SERVER_ERROR = -32000;
/** A request refused by the per-address limit (in the implementation-defined range). */
const RATE_LIMITED = -32029;
const JSON_HEADERS = { "content-type": "application/json", "cache-control": "no-store", ...ALLOW_ORIGIN };

/** What the MCP endpoint needs from the gateway. */
export interface McpDeps extends PaidDeps {
  /** The per-address limit of the free endpoints, shared by unauthenticated MCP traffic. */
  limiter: ClientRateLimit;
  log: EventLog;
}

/** Builds the server once; returns the handler of POST /mcp. */
export function createMcpEndpoint(deps: McpDeps): (event: H3Event) => Promise<Response> {
  const tools = createTools(deps);
  const mux = new Multiplexer();
  const server = new Server({ name: "filing-data-service", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.onerror = (error) => deps.log("warn", "mcp_error", { error: error.message });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const handler = tools.handler(request.params.name);
    if (!handler) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name.slice(0, 64)}`);
    const call: ToolCall = { headers: mux.headersOf(extra.requestId), args: request.params.arguments ?? {}, meta: request.params._meta };
    return handler(call);
  });
  void server.connect(mux);

  return async (event) => {
    if (event.req.method !== "POST") {
      throw new ApiError("method_not_allowed", `${event.req.method.slice(0, 16)} is not allowed on /mcp; MCP here is stateless POST only.`, {
        headers: { allow: "POST" },
      });
    }
    const headers = event.req.headers;
    const accept = headers.get("accept") ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return rpcError(406, SERVER_ERROR, "Not Acceptable: Client must accept both application/json and text/event-stream");
    }
    if (!/^application\/json\s*(;|$)/i.test(headers.get("content-type") ?? "")) {
      return rpcError(415, SERVER_ERROR, "Unsupported Media Type: Content-Type must be application/json");
    }
    const parsed = await readMessages(event);
    if (parsed instanceof Response) return parsed;
    const { messages, batch } = parsed;
    const version = headers.get("mcp-protocol-version");
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version) && !messages.some(isInitialize)) {
      return rpcError(400, SERVER_ERROR, `Bad Request: Unsupported protocol version (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`);
    }
    const requests = messages.filter(isJSONRPCRequest);
    // Notifications and responses alone: accepted, nothing to answer (a stateless server keeps no state for them).
    if (requests.length === 0) return new Response(null, { status: 202, headers: ALLOW_ORIGIN });
    const limited = rateLimited(deps, event, requests);
    const replies = await Promise.all(
      requests.map((request) => (limited.has(request) ? limitedReply(request, limited.get(request)!) : mux.exchange(request, headers))),
    );
    const refused = limited.values().next().value;
    const out: Record<string, string> = refused ? { ...JSON_HEADERS, "retry-after": refused.headers["retry-after"] ?? "1" } : JSON_HEADERS;
    return new Response(JSON.stringify(batch ? replies : replies[0]), { status: 200, headers: out });
  };
}

/**
 * The SDK's Protocol on one side; requests of many HTTP requests on the other. Each request gets an id of its own
 * while in flight (clients all count from 1), its reply is routed back by it and given the client's id again.
 */
class Multiplexer implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #waiting = new Map<number, { resolve: (reply: JSONRPCMessage) => void; headers: Headers }>();
  #next = 0;

  async start(): Promise<void> {}
  async close(): Promise<void> {}

  /** Routes the server's reply to the request waiting for it; anything else (server-to-client messages) is dropped. */
  async send(message: JSONRPCMessage): Promise<void> {
    const id = "id" in message && typeof message.id === "number" ? message.id : null;
    const waiting = id === null ? undefined : this.#waiting.get(id);
    if (!waiting) return;
    this.#waiting.delete(id!);
    waiting.resolve(message);
  }

  /** Hands a request to the server and resolves with its reply, under the client's id. */
  exchange(request: JSONRPCRequest, headers: Headers): Promise<JSONRPCMessage> {
    const id = ++this.#next;
    return new Promise((resolve) => {
      this.#waiting.set(id, { resolve: (reply) => resolve({ ...reply, id: request.id } as JSONRPCMessage), headers });
      this.onmessage?.({ ...request, id });
    });
  }

  /** The HTTP headers of the request in flight under `id`. */
  headersOf(id: string | number): Headers {
    const waiting = typeof id === "number" ? this.#waiting.get(id) : undefined;
    if (!waiting) throw new Error(`no MCP request in flight under id ${String(id)}`);
    return waiting.headers;
  }
}

/** The body's JSON-RPC messages, or the error response the SDK's transport would give. */
async function readMessages(event: H3Event): Promise<{ messages: JSONRPCMessage[]; batch: boolean } | Response> {
  const declared = event.req.headers.get("content-length");
  let text: string;
  if (declared !== null) {
    if (Number(declared) > MAX_BODY_BYTES) return tooLarge();
    text = await event.req.text();
  } else {
    const body = await readRequestBody(event.req as Request, MAX_BODY_BYTES);
    if (body.tooLarge) return tooLarge();
    text = body.text;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return rpcError(400, ErrorCode.ParseError, "Parse error: Invalid JSON");
  }
  const batch = Array.isArray(raw);
  const items: unknown[] = batch ? (raw as unknown[]) : [raw];
  if (items.length === 0 || items.length > MAX_BATCH) {
    return rpcError(400, ErrorCode.InvalidRequest, `Invalid Request: a batch holds 1 to ${MAX_BATCH} messages`);
  }
  const messages: JSONRPCMessage[] = [];
  for (const item of items) {
    const message = JSONRPCMessageSchema.safeParse(item);
    if (!message.success) return rpcError(400, ErrorCode.ParseError, "Parse error: Invalid JSON-RPC message");
    messages.push(message.data);
  }
  if (messages.length > 1 && messages.some(isInitialize)) {
    return rpcError(400, ErrorCode.InvalidRequest, "Invalid Request: Only one initialization request is allowed");
  }
  return { messages, batch };
}

/**
 * Which requests the per-address limit refuses: none for a key verified moments ago, none for a tools/call that
 * carries a payment (paid traffic is checked by the facilitator); one token per request otherwise.
 */
function rateLimited(deps: McpDeps, event: H3Event, requests: JSONRPCRequest[]): Map<JSONRPCRequest, ApiError> {
  const limited = new Map<JSONRPCRequest, ApiError>();
  if (trustedKey(deps.payments, event.req.headers, Date.now())) return limited;
  for (const request of requests) {
    if (request.method === "tools/call" && (request.params?._meta as Record<string, unknown> | undefined)?.[PAYMENT_META] !== undefined) continue;
    try {
      deps.limiter.take(event);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      limited.set(request, error);
    }
  }
  return limited;
}

/** A rate-limited request's reply: a tool error result for a call (what an agent reads), a JSON-RPC error otherwise. */
function limitedReply(request: JSONRPCRequest, error: ApiError): JSONRPCMessage {
  if (request.method === "tools/call") return { jsonrpc: "2.0", id: request.id, result: errorResult(error) };
  return { jsonrpc: "2.0", id: request.id, error: { code: RATE_LIMITED, message: `${error.message} Retry after ${error.headers["retry-after"]} s.`, data: errorBody(error.code, error.message) } };
}

function isInitialize(message: JSONRPCMessage): boolean {
  return "method" in message && message.method === "initialize";
}

function tooLarge(): Response {
  return rpcError(413, SERVER_ERROR, `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`);
}

/** A transport-level JSON-RPC error, as the SDK's streamable HTTP transport writes it. */
function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: JSON_HEADERS });
}
