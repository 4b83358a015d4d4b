// The usual tools/call answered without a Server of its own: a well-formed call of a listed tool, classified by the
// SDK's own classifier, is handed to its tool at once and its reply written from stored bytes, framed as the SDK frames
// it (mcp.test.ts compares the two). Through the SDK a call costs a Server, a transport and two zod passes over a
// result we wrote ourselves (~1 ms); anything not plainly well-formed goes to the SDK, which answers its errors.
import { classifyInboundRequest, isJSONRPCRequest, PROTOCOL_VERSION_META_KEY, specTypeSchemas, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCRequest } from "@modelcontextprotocol/server";
import type { Parts } from "../serve/envelope.ts";
import { framed, replyParts } from "./mcp-reply.ts";
import type { CallContext } from "./mcp-server.ts";
import type { McpTools } from "./mcp-tools.ts";

/** The protocol generation of a body: 2026-07-28's per-request envelope, or the 2025 revisions' initialize era. */
export type Era = "modern" | "legacy";
/** The revision whose replies this module writes (its `resultType`); another modern revision is the SDK's to serve. */
export const MODERN_REVISION = "2026-07-28";

/** Which leg serves a body, by the SDK's own classification (what it refuses is the modern leg's to answer). */
export function eraOf(headers: Headers, body: unknown): Era {
  if (Array.isArray(body)) return "legacy";
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: headers.get("mcp-protocol-version") ?? undefined,
    mcpMethodHeader: headers.get("mcp-method") ?? undefined,
    mcpNameHeader: headers.get("mcp-name") ?? undefined,
    body,
  });
  return outcome.kind === "legacy" ? "legacy" : "modern";
}

/** The call to make for a plainly well-formed tools/call of a listed tool in `era`; null for the SDK to serve. */
export function fastCall(tools: McpTools, era: Era, headers: Headers, body: unknown): ((context: CallContext) => Parts | Promise<Parts>) | null {
  if (!isJSONRPCRequest(body) || body.method !== "tools/call") return null;
  const parsed = specTypeSchemas.CallToolRequest["~standard"].validate(body);
  if (parsed.issues) return null;
  const { name, arguments: args, _meta: meta } = parsed.value.params;
  const handler = tools.handler(name);
  if (!handler || !(era === "modern" ? modernHeaders(headers, name, meta) : legacyHeaders(headers))) return null;
  const id = (body as JSONRPCRequest).id;
  return (context) => {
    const result = handler({ ...context, args: args ?? {}, meta: meta as Record<string, unknown> | undefined });
    const reply = (r: Awaited<typeof result>) => replyParts(id, { jsonrpc: "2.0", result: framed(r, era) });
    return result instanceof Promise ? result.then(reply) : reply(result);
  };
}

/** 2026-07-28's standard headers, present and naming what the body names (the SDK answers any other case). */
function modernHeaders(headers: Headers, name: string, meta: Record<string, unknown> | undefined): boolean {
  return (
    meta?.[PROTOCOL_VERSION_META_KEY] === MODERN_REVISION &&
    headers.get("mcp-protocol-version") === MODERN_REVISION &&
    headers.get("mcp-method") === "tools/call" &&
    headers.get("mcp-name") === name
  );
}

/** What the SDK's 2025 transport checks of a POST before serving it: Accept, and a protocol version it speaks. */
function legacyHeaders(headers: Headers): boolean {
  const accept = headers.get("accept") ?? "";
  const version = headers.get("mcp-protocol-version");
  return accept.includes("application/json") && accept.includes("text/event-stream") && (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version));
}
