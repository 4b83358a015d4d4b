// The MCP protocol, from the official v2 SDK: a low-level Server per request (the SDK's factory contract) over one
// tool table, served for 2026-07-28 by createMcpHandler and for the 2025 revisions by the SDK's stateless streamable
// HTTP transport with JSON responses. Never reads a body itself: the endpoint (mcp.ts) hands over the parsed one.
import {
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
  type CacheHint,
  type CallToolResult,
  type JSONRPCMessage,
  type ServerCapabilities,
} from "@modelcontextprotocol/server";
import { SERVICE } from "../../schemas/api.ts";
import { printable } from "../http/errors.ts";
import type { PaymentRefusal } from "../payment/core.ts";
import { PAYMENT_EXTENSION, refusalOf } from "../payment/mcp.ts";
import type { Sender } from "../payment/refusal-limit.ts";
import { plainResult, SERVER_INFO } from "./mcp-reply.ts";
import type { McpTools } from "./mcp-tools.ts";

/**
 * The tool list and the server's description change only with a deployment: an hour, and the same for every client
 * (2026-07-28 `ttlMs`/`cacheScope` on cacheable results).
 */
export const CACHE_HINT: CacheHint = { ttlMs: 3_600_000, cacheScope: "public" };

/** What a host tells its model about the server (initialize's and server/discover's `instructions`). */
export const INSTRUCTIONS =
  `${SERVICE.description} Call probe_coverage (free) first: a ticker it does not cover is an error on every paid tool, ` +
  `never charged. Paid tools take the API key in the Authorization header of the MCP request, or an x402 payment in ` +
  `_meta["x402/payment"] (each tool states its price). A list answer says meta.total (rows matched) and ` +
  `meta.next_offset: call again with offset set to it for the next page.`;

/** What a tool call needs from the HTTP request that carried it, and what the endpoint learns back from the call. */
export interface CallContext {
  headers: Headers;
  sender: Sender;
  /** Set when the call's payment was refused: the endpoint answers it in x402's extension binding to a client that speaks it. */
  refusal?: PaymentRefusal;
}

/**
 * What the server offers each generation: x402's MCP extension needs 2026-07-28 (its result type and per-request
 * capabilities), so only server/discover advertises it.
 */
const CAPABILITIES = { modern: { tools: {}, extensions: { [PAYMENT_EXTENSION]: {} } }, legacy: { tools: {} } };

/** The protocol's two generations over one tool table. */
export interface McpProtocol {
  /** Serves a 2026-07-28 message (or answers the SDK's error for one it refuses). */
  modern(request: Request, body: unknown, context: CallContext): Promise<Response>;
  /** Serves 2025-era messages (initialize, tools/list, tools/call, batches of 2025-03-26). */
  legacy(request: Request, body: unknown, context: CallContext): Promise<Response>;
  /** The SDK's answer to a request whose body is not JSON (415 and the like): it reads the body itself. */
  unread(request: Request): Promise<Response>;
}

/** Builds both legs over the tool table; `onerror` hears what the SDK refuses or fails on (never a client's error body). */
export function createMcpProtocol(tools: McpTools, onerror: (error: Error) => void): McpProtocol {
  // The modern leg's factory is called with the Request it serves: its call context rides along with it.
  const contexts = new WeakMap<Request, CallContext>();
  const modern = createMcpHandler(({ requestInfo }) => mcpServer(tools, contexts.get(requestInfo!)!, CAPABILITIES.modern, onerror), { legacy: "reject", onerror });
  return {
    modern: (request, body, context) => {
      contexts.set(request, context);
      return modern.fetch(request, { parsedBody: body });
    },
    legacy: async (request, body, context) => {
      const server = mcpServer(tools, context, CAPABILITIES.legacy, onerror);
      // Stateless with JSON responses, as /mcp always answered (createMcpHandler's own fallback streams SSE).
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      transport.onerror = onerror;
      await server.connect(transport);
      try {
        return await transport.handleRequest(request, { parsedBody: body });
      } finally {
        void server.close();
      }
    },
    unread: (request) => modern.fetch(request),
  };
}

/** One request's Server: tools/list from the table, tools/call through the tool's handler with the request's context. */
function mcpServer(tools: McpTools, context: CallContext, capabilities: ServerCapabilities, onerror: (error: Error) => void): Server {
  const server = new Server(SERVER_INFO, { capabilities, instructions: INSTRUCTIONS, cacheHints: { "tools/list": CACHE_HINT, "server/discover": CACHE_HINT } });
  server.onerror = onerror;
  server.setRequestHandler("tools/list", () => ({ tools: tools.list }));
  server.setRequestHandler("tools/call", async (request): Promise<CallToolResult> => {
    const { name, arguments: args, _meta: meta } = request.params;
    const handler = tools.handler(name);
    if (!handler) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${printable(name)}`);
    const result = await handler({ ...context, args: args ?? {}, meta: meta as Record<string, unknown> | undefined });
    context.refusal = refusalOf(result);
    return plainResult(result);
  });
  return server;
}

/** The JSON-RPC messages of a batch answered by the SDK, as it wrote them (a 2025-03-26 batch's reply). */
export async function answeredMessages(response: Response): Promise<JSONRPCMessage[]> {
  if (response.status !== 200) return [];
  const body = (await response.json()) as JSONRPCMessage | JSONRPCMessage[];
  return Array.isArray(body) ? body : [body];
}
