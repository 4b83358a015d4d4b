// POST /mcp: MCP over streamable HTTP, stateless, JSON responses. One SDK Server, built once, answers the protocol
// through a transport that multiplexes requests (the SDK's stateless transport serves one request and costs a server
// each: ~300 µs); tools/call goes straight to its tool. Batches are capped; unauthenticated traffic is rate-limited
// per address; keyed and paid calls are not.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { readRequestBody } from "@modelcontextprotocol/sdk/server/requestBody.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  JSONRPCMessageSchema,
  JSONRPCRequestSchema,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { H3Event } from "h3";
import packageJson from "../../package.json" with { type: "json" };
import type { z } from "zod";
import { ALLOW_ORIGIN, CORS_HEADERS } from "../http/cors.ts";
import { printable } from "../http/errors.ts";
import type { Parts } from "../serve/envelope.ts";
import { batchParts, replyParts, replyResponse, WRITTEN, type OpenReply } from "./mcp-reply.ts";
import { bodyResult, createTools, toolErrorBody, type McpTools, type ToolCall } from "./mcp-tools.ts";
import type { PaidDeps } from "../serve/paid.ts";
import type { Sender } from "../payment/refusal-limit.ts";
import { presentedKey, trustedKey } from "../payment/http.ts";
import { PAYMENT_META } from "../payment/mcp.ts";
import { rateLimited, type ClientRateLimit } from "../http/rate-limit.ts";
import type { EventLog } from "../../logging/log.ts";

/** Messages in one batch: a client sends one at a time (batching left MCP in 2025-06-18); 20 covers older clients. */
export const MAX_BATCH = 20;
/** A tools/call with a payment is about 1.5 KB; a full batch of them fits with room to spare. */
const MAX_BODY_BYTES = 128 * 1024;
/**
 * How long a reply that only refuses (every request over the limit) is held back. A flooding client waits for its
 * replies, so holding them slows it to (connections ÷ this) requests a second, at no cost here; Retry-After asks more.
 */
const REFUSAL_HOLD_MS = 1000;
/** JSON-RPC's implementation-defined server error, as the SDK's transport uses it for HTTP-level refusals. */
const SERVER_ERROR = -32000;
/** A request refused by the per-address limit (in the implementation-defined range). */
const RATE_LIMITED = -32029;
// CORS rides in the response headers themselves (a Headers rewrite afterwards would cost a fetch Headers per reply).
const JSON_HEADERS = { "content-type": "application/json", "cache-control": "no-store", ...CORS_HEADERS };
/**
 * A tools/call request whole: the JSON-RPC request the SDK's transport validates and the params its Server validates
 * (CallToolRequestSchema), in one pass instead of two. Any other message is validated as the transport does.
 */
const ToolCallMessageSchema = JSONRPCRequestSchema.extend(CallToolRequestSchema.shape);
type ToolCallMessage = z.infer<typeof ToolCallMessageSchema>;

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
  const server = new Server({ name: packageJson.name, version: packageJson.version }, { capabilities: { tools: {} } });
  server.onerror = (error) => deps.log("warn", "mcp_error", { error: error.message });
  // tools/list never changes: its result is written once and spliced into every reply.
  const list = { [WRITTEN]: Buffer.from(JSON.stringify({ tools: tools.list })) };
  server.setRequestHandler(ListToolsRequestSchema, () => list as never);
  void server.connect(mux);

  /**
   * tools/call, the one hot method, validated with the SDK's own schemas (by readMessages) and handed to its tool at
   * once: through the Server it would also cost an AbortController, four promise hops and a zod pass over a result we
   * wrote ourselves.
   */
  function callTool(request: ToolCallMessage, headers: Headers, sender: Sender): Parts | Promise<Parts> {
    const { name, arguments: args, _meta: meta } = request.params;
    const handler = tools.handler(name);
    if (!handler) return errorReply(request.id, ErrorCode.InvalidParams, `Unknown tool: ${printable(name)}`);
    const call: ToolCall = { headers, sender, args: args ?? {}, meta };
    const reply = (result: CallToolResult) => replyParts(request.id, { jsonrpc: "2.0", result });
    const result = handler(call);
    return result instanceof Promise ? result.then(reply) : reply(result);
  }

  return async (event) => {
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
    const { messages, batch, badCalls } = parsed;
    const version = headers.get("mcp-protocol-version");
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version) && !messages.some(isInitialize)) {
      return rpcError(400, SERVER_ERROR, `Bad Request: Unsupported protocol version (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`);
    }
    const requests = messages.filter((m): m is JSONRPCRequest => "method" in m && "id" in m); // validated above
    // Notifications and responses alone: accepted, nothing to answer (a stateless server keeps no state for them).
    if (requests.length === 0) return new Response(null, { status: 202, headers: ALLOW_ORIGIN });
    const limited = limitedRequests(deps, tools, event, requests);
    const sender: Sender = { limiter: deps.limiter, event };
    const answers = requests.map((request) =>
      limited.has(request)
        ? limitedReply(request, limited.get(request)!)
        : request.method !== "tools/call"
          ? mux.exchange(request)
          : badCalls?.has(request)
            ? errorReply(request.id, ErrorCode.InvalidParams, "Invalid tools/call request")
            : callTool(request as ToolCallMessage, headers, sender),
    );
    // The usual keyed call is answered at once: no trip through the microtask queue for it.
    const replies = answers.some((answer) => answer instanceof Promise) ? await Promise.all(answers) : (answers as Parts[]);
    // Refused by the per-address limit before the call, or by the refused-payment limit within it (a payment in _meta
    // skips the first): a reply that only refuses is held either way (issue 39).
    const wait = limited.values().next().value ?? sender.limited?.wait;
    const out: Record<string, string> = wait === undefined ? JSON_HEADERS : { ...JSON_HEADERS, "retry-after": String(wait) };
    if (limited.size + (sender.limited?.calls ?? 0) === requests.length) await hold(REFUSAL_HOLD_MS);
    return replyResponse(batch ? batchParts(replies) : replies[0]!, out);
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
  readonly #waiting = new Map<number, (reply: JSONRPCMessage) => void>();
  #next = 0;

  async start(): Promise<void> {}
  async close(): Promise<void> {}

  /** Routes the server's reply to the request waiting for it; anything else (server-to-client messages) is dropped. */
  async send(message: JSONRPCMessage): Promise<void> {
    const id = "id" in message && typeof message.id === "number" ? message.id : null;
    const resolve = id === null ? undefined : this.#waiting.get(id);
    if (!resolve) return;
    this.#waiting.delete(id!);
    resolve(message);
  }

  /** Hands a request to the server and resolves with its reply, under the client's id. */
  exchange(request: JSONRPCRequest): Promise<Parts> {
    const id = ++this.#next;
    return new Promise((resolve) => {
      this.#waiting.set(id, (reply) => {
        const { id: _ours, ...open } = reply as JSONRPCMessage & { id: number };
        resolve(replyParts(request.id, open as OpenReply));
      });
      this.onmessage?.({ ...request, id });
    });
  }
}

function errorReply(id: JSONRPCRequest["id"], code: number, message: string): Parts {
  return replyParts(id, { jsonrpc: "2.0", error: { code, message } });
}

/** A body's JSON-RPC messages, each validated. */
interface Messages {
  messages: JSONRPCMessage[];
  batch: boolean;
  /** The tools/call requests that are valid JSON-RPC but not valid tools/calls (answered InvalidParams); null for none. */
  badCalls: Set<JSONRPCMessage> | null;
}

/** The body's JSON-RPC messages, or the error response the SDK's transport would give. */
async function readMessages(event: H3Event): Promise<Messages | Response> {
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
  let badCalls: Set<JSONRPCMessage> | null = null;
  for (const item of items) {
    const isCall = (item as { method?: unknown } | null)?.method === "tools/call";
    const call = isCall ? ToolCallMessageSchema.safeParse(item) : null;
    if (call?.success) {
      messages.push(call.data);
      continue;
    }
    const message = JSONRPCMessageSchema.safeParse(item);
    if (!message.success) return rpcError(400, ErrorCode.ParseError, "Parse error: Invalid JSON-RPC message");
    messages.push(message.data);
    if (isCall) (badCalls ??= new Set()).add(message.data);
  }
  if (messages.length > 1 && messages.some(isInitialize)) {
    return rpcError(400, ErrorCode.InvalidRequest, "Invalid Request: Only one initialization request is allowed");
  }
  return { messages, batch, badCalls };
}

/**
 * Which requests the per-address limit refuses, with the seconds to wait: none for a key verified moments ago; none
 * for a call of a paid tool that carries a payment and no key (the payment core charges it a token if the payment is
 * refused, so only genuine payments go free); one token per request otherwise — a payment sent to a free tool too.
 */
function limitedRequests(deps: McpDeps, tools: McpTools, event: H3Event, requests: JSONRPCRequest[]): Map<JSONRPCRequest, number> {
  const limited = new Map<JSONRPCRequest, number>();
  const headers = event.req.headers;
  if (trustedKey(deps.payments, headers, Date.now())) return limited;
  const keyed = presentedKey(headers) !== null; // a key rules the payment out: its call is charged as any other
  for (const request of requests) {
    if (!keyed && request.method === "tools/call" && paying(tools, request)) continue;
    const wait = deps.limiter.admit(event);
    if (wait !== null) limited.set(request, wait);
  }
  return limited;
}

/** A call of a paid tool with a payment in `_meta` (of any shape: a malformed one is refused, and charged, later). */
function paying(tools: McpTools, request: JSONRPCRequest): boolean {
  const params = request.params as { name?: unknown; _meta?: Record<string, unknown> } | undefined;
  return typeof params?.name === "string" && tools.paid(params.name) && params._meta?.[PAYMENT_META] !== undefined;
}

/** A rate-limited request's reply: a tool error result for a call (what an agent reads), a JSON-RPC error otherwise. */
function limitedReply(request: JSONRPCRequest, wait: number): Parts {
  const body = toolErrorBody(rateLimited(wait));
  if (request.method === "tools/call") return replyParts(request.id, { jsonrpc: "2.0", result: bodyResult(body) });
  return replyParts(request.id, { jsonrpc: "2.0", error: { code: RATE_LIMITED, message: body.error.message, data: body } });
}

function hold(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
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
