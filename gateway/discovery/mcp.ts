// POST /mcp: MCP over streamable HTTP, stateless, on the official v2 SDK (mcp-server.ts): 2026-07-28 and, for clients
// that still initialize, the 2025 revisions. What the SDK does not do stays here: the body and batch caps, the
// per-address limit on unauthenticated traffic and the hold on replies that only refuse (issue 39), and the usual
// tools/call and tools/list answered at once from stored bytes, as the SDK would answer them (mcp-fast.ts; issue 41's
// speed and flood goals), and a refused payment answered in x402's MCP extension binding to a client that speaks it.
import { isJsonContentType, readRequestBody, type JSONRPCMessage, type JSONRPCRequest } from "@modelcontextprotocol/server";
import type { H3Event } from "h3";
import { CORS_HEADERS } from "../http/cors.ts";
import { rateLimited, type ClientRateLimit } from "../http/rate-limit.ts";
import type { PaidDeps } from "../serve/paid.ts";
import { presentedKey, trustedKey } from "../payment/http.ts";
import { extensionRefusal, PAYMENT_META, speaksPaymentExtension } from "../payment/mcp.ts";
import type { EventLog } from "../../logging/log.ts";
import type { Parts } from "../serve/envelope.ts";
import { eraOf, fastReply, listBytes, metaOf } from "./mcp-fast.ts";
import { batchParts, framed, replyParts, replyResponse, type Era } from "./mcp-reply.ts";
import { answeredMessages, createMcpProtocol, type CallContext } from "./mcp-server.ts";
import { bodyResult, createTools, toolErrorBody, type McpTools } from "./mcp-tools.ts";

/** Messages in one batch: a client sends one at a time (batching left MCP in 2025-06-18); 20 covers older clients. */
export const MAX_BATCH = 20;
/** A tools/call with a payment is about 1.5 KB; a full batch of them fits with room to spare. */
const MAX_BODY_BYTES = 128 * 1024;
/**
 * How long a reply that only refuses (every request over the limit) is held back. A flooding client waits for its
 * replies, so holding them slows it to (connections ÷ this) requests a second, at no cost here; Retry-After asks more.
 */
const REFUSAL_HOLD_MS = 1000;
/** JSON-RPC's parse error and invalid request, and the implementation-defined server error the SDK uses for HTTP refusals. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const SERVER_ERROR = -32000;
/** A request refused by the per-address limit (in the implementation-defined range). */
const RATE_LIMITED = -32029;
// CORS rides in the response headers themselves (a Headers rewrite afterwards would cost a fetch Headers per reply).
const JSON_HEADERS = { "content-type": "application/json", "cache-control": "no-store", ...CORS_HEADERS };

/** What the MCP endpoint needs from the gateway. */
export interface McpDeps extends PaidDeps {
  /** The per-address limit of the free endpoints, shared by unauthenticated MCP traffic. */
  limiter: ClientRateLimit;
  log: EventLog;
}

/** Builds the tools and both protocol legs once; returns the handler of POST /mcp. */
export function createMcpEndpoint(deps: McpDeps): (event: H3Event) => Promise<Response> {
  const tools = createTools(deps);
  const protocol = createMcpProtocol(tools, (error) => deps.log("warn", "mcp_error", { error: error.message }));
  const list = listBytes(tools);

  return async (event) => {
    const request = event.req as Request;
    if (!isJsonContentType(request.headers.get("content-type"))) return withHeaders(await protocol.unread(request), undefined);
    const body = await readBody(event, request);
    if (body instanceof Response) return body;
    const batch = Array.isArray(body);
    const messages: unknown[] = batch ? body : [body];
    if (messages.length === 0 || messages.length > MAX_BATCH) {
      return rpcError(400, INVALID_REQUEST, `Invalid Request: a batch holds 1 to ${MAX_BATCH} messages`);
    }
    const era = eraOf(request.headers, body);
    const requests = messages.filter(isRequest);
    const limited = limitedRequests(deps, tools, event, requests);
    const context: CallContext = { headers: request.headers, sender: { limiter: deps.limiter, event }, refusal: undefined };
    let response: Response | Parts;
    if (requests.length > 0 && limited.size === requests.length) {
      const replies = requests.map((r) => limitedReply(r, limited.get(r)!, era));
      response = batch ? batchParts(replies) : replies[0]!;
    } else if (limited.size > 0) {
      response = await partlyLimited(protocol.legacy(request, messages.filter((m) => !limited.has(m as JSONRPCRequest)), context), requests, limited);
    } else {
      const fast = batch ? null : fastReply(tools, list, era, request.headers, body)?.(context);
      response = fast
        ? fast instanceof Promise ? await fast : fast // the usual keyed call: no trip through the microtask queue
        : era === "legacy"
          ? await protocol.legacy(request, body, context)
          : await protocol.modern(request, body, context);
      // A refused payment, to a 2026-07-28 client that speaks x402's MCP extension: the extension's own result type.
      if (context.refusal && era === "modern" && !batch && speaksPaymentExtension(metaOf(body))) {
        response = replyParts((body as JSONRPCRequest).id, { jsonrpc: "2.0", result: framed(extensionRefusal(context.refusal), era) });
      }
    }
    // Refused by the per-address limit before the call, or by the refused-payment limit within it (a payment in _meta
    // skips the first): a reply that only refuses is held either way (issue 39).
    const wait = limited.values().next().value ?? context.sender.limited?.wait;
    if (requests.length > 0 && limited.size + (context.sender.limited?.calls ?? 0) === requests.length) await hold(REFUSAL_HOLD_MS);
    if (response instanceof Response) return withHeaders(response, wait);
    return replyResponse(response, wait === undefined ? JSON_HEADERS : { ...JSON_HEADERS, "retry-after": String(wait) });
  };
}

/** A JSON-RPC request (a message with a method and an id), read loosely: the SDK validates what it serves. */
function isRequest(message: unknown): message is JSONRPCRequest {
  return typeof message === "object" && message !== null && "method" in message && "id" in message;
}

/**
 * The body as JSON, or the error response the SDK's transport would give (413, 400). A body Node has already
 * received whole is read at once (arrivedBody); a declared length within the cap is read whole (srvx's text() is
 * ~180 µs cheaper than the SDK's stream reader); a chunked body through the reader.
 */
async function readBody(event: H3Event, request: Request): Promise<unknown> {
  await undefined; // Node hands the request over at its headers: the bytes after them in the same read arrive meanwhile
  const arrived = arrivedBody(event);
  if (arrived !== null) return parsed(arrived);
  const declared = request.headers.get("content-length");
  const read = declared !== null && Number(declared) <= MAX_BODY_BYTES ? { tooLarge: false, text: await request.text() } : await readRequestBody(request, MAX_BODY_BYTES);
  if (read.tooLarge) return rpcError(413, SERVER_ERROR, `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`);
  return parsed(read.text!);
}

/**
 * On Node, a body within the cap whose declared length has all arrived (the usual call: one packet), read from the
 * request's buffer without a stream's events or a promise (they cost a keyed call ~12 µs of its ~190); null otherwise.
 */
function arrivedBody(event: H3Event): string | null {
  const req = event.runtime?.node?.req;
  const declared = req?.headers["content-length"];
  if (!req || declared === undefined || req.readableDidRead || req.readableFlowing !== null) return null;
  if (req.readableLength !== Number(declared) || req.readableLength > MAX_BODY_BYTES) return null;
  return req.readableLength === 0 ? "" : (req.read() as Buffer).toString();
}

/** The body's text as JSON, or JSON-RPC's parse error as the SDK's transport writes it. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return rpcError(400, PARSE_ERROR, "Parse error: Invalid JSON");
  }
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
function limitedReply(request: JSONRPCRequest, wait: number, era: Era): Parts {
  const body = toolErrorBody(rateLimited(wait));
  if (request.method === "tools/call") return replyParts(request.id, { jsonrpc: "2.0", result: framed(bodyResult(body), era) });
  return replyParts(request.id, { jsonrpc: "2.0", error: { code: RATE_LIMITED, message: body.error.message, data: body } });
}

/** A 2025-03-26 batch of which some requests were refused: the SDK's replies to the rest, and the refusals. */
async function partlyLimited(answered: Promise<Response>, requests: JSONRPCRequest[], limited: Map<JSONRPCRequest, number>): Promise<Parts> {
  const replies: Parts[] = (await answeredMessages(await answered)).map((message: JSONRPCMessage) => [JSON.stringify(message)]);
  for (const request of requests) if (limited.has(request)) replies.push(limitedReply(request, limited.get(request)!, "legacy"));
  return batchParts(replies);
}

/** The SDK's response with what every /mcp response carries: CORS, no caching, and Retry-After when refused. */
function withHeaders(response: Response, wait: number | undefined): Response {
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
  if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
  if (wait !== undefined) response.headers.set("retry-after", String(wait));
  return response;
}

function hold(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A transport-level JSON-RPC error, as the SDK's streamable HTTP transport writes it. */
function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: JSON_HEADERS });
}
