// The usual tools/call and tools/list answered without a Server of their own: a well-formed call of a listed tool is
// handed to its tool at once and its reply written from stored bytes, the list written once, each framed as the SDK
// frames it (mcp-clients.test.ts compares the two). Through the SDK a call costs a Server, a transport and two zod passes over a
// result we wrote ourselves (~1 ms), and its classifier alone ~70 µs; anything not plainly well-formed goes to the SDK,
// which answers its errors.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  specTypeSchemas,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { ByteLru } from "../http/lru.ts";
import { PAYMENT_META, refusalOf } from "../payment/mcp.ts";
import type { Parts } from "../serve/envelope.ts";
import { answerReplyParts, framed, replyParts, SERVER_INFO, WRITTEN, type Era } from "./mcp-reply.ts";
import { CACHE_HINT, type CallContext } from "./mcp-server.ts";
import type { McpTools } from "./mcp-tools.ts";

/** The revision whose replies this module writes (its `resultType`); another modern revision is the SDK's to serve. */
export const MODERN_REVISION = "2026-07-28";

/** The `_meta` keys a call served here may carry: the 2026-07-28 envelope's three, and x402's payment. */
const FAST_META = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PAYMENT_META]);

/**
 * Which leg serves a body, as the SDK routes it (createMcpHandler, isLegacyRequest): a message claiming a revision in
 * its `_meta`, or a header naming a modern one, is the modern leg's (which also answers what it refuses); the rest is
 * 2025's.
 */
export function eraOf(headers: Headers, body: unknown): Era {
  const header = headers.get("mcp-protocol-version");
  if (header !== null && header >= MODERN_REVISION) return "modern";
  return (Array.isArray(body) ? body : [body]).some((message) => metaOf(message)?.[PROTOCOL_VERSION_META_KEY] !== undefined) ? "modern" : "legacy";
}

/** tools/list's result as written once, for each generation (2026-07-28's with its cache hint and serverInfo). */
export function listBytes(tools: McpTools): Record<Era, Buffer> {
  return {
    legacy: Buffer.from(JSON.stringify({ tools: tools.list })),
    modern: Buffer.from(JSON.stringify({ tools: tools.list, resultType: "complete", ...CACHE_HINT, _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO } })),
  };
}

/**
 * The reply to make for a plainly well-formed tools/list, or tools/call of a listed tool, in `era`; null for the SDK
 * to serve.
 */
export function fastReply(tools: McpTools, list: Record<Era, Buffer>, era: Era, headers: Headers, body: unknown): ((context: CallContext) => Parts | Promise<Parts>) | null {
  if (!plainRequest(body)) return null;
  const id = body.id;
  const params = body.params ?? {};
  if (body.method === "tools/list") {
    if (Object.keys(params).some((key) => key !== "_meta")) return null; // a cursor: the SDK's to answer
    if (!(era === "modern" ? modernHeaders(headers, "tools/list", null, params._meta) : legacyHeaders(headers, params._meta))) return null;
    return () => replyParts(id, { jsonrpc: "2.0", result: { [WRITTEN]: list[era] } });
  }
  if (body.method !== "tools/call" || !plainCall(params)) return null;
  const { name, arguments: args, _meta: meta } = params;
  const handler = tools.handler(name);
  if (!handler || !(era === "modern" ? modernHeaders(headers, "tools/call", name, meta) : legacyHeaders(headers, meta))) return null;
  return (context) => {
    const result = handler({ ...context, args: args ?? {}, meta: meta as Record<string, unknown> | undefined });
    const reply = (r: Awaited<typeof result>) => {
      context.refusal = refusalOf(r);
      return answerReplyParts(id, r, era) ?? replyParts(id, { jsonrpc: "2.0", result: framed(r, era) });
    };
    return result instanceof Promise ? result.then(reply) : reply(result);
  };
}

/**
 * 2026-07-28's envelope, valid by the SDK's schemas and nothing else reserved in it, and its standard headers present
 * and naming what the body names (the SDK answers every other case).
 */
function modernHeaders(headers: Headers, method: string, name: string | null, meta: Record<string, unknown> | undefined): boolean {
  if (!meta || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_REVISION || !Object.keys(meta).every((key) => FAST_META.has(key))) return false;
  const info = meta[CLIENT_INFO_META_KEY];
  return (
    validCached("ClientCapabilities", meta[CLIENT_CAPABILITIES_META_KEY]) &&
    (info === undefined || validCached("Implementation", info)) &&
    headers.get("mcp-protocol-version") === MODERN_REVISION &&
    headers.get("mcp-method") === method &&
    headers.get("mcp-name") === name
  );
}

/**
 * A JSON-RPC request in the plainest form the SDK's schema accepts (JSONRPCRequestSchema: these four members, a
 * string or safe-integer id, params and its `_meta` objects); checked by hand, as zod's pass cost the usual call
 * ~25 µs of its ~210. Whatever is not this plain goes to the SDK (mcp-fast.test.ts holds this to the SDK's schemas).
 */
function plainRequest(body: unknown): body is { jsonrpc: "2.0"; id: string | number; method: string; params?: Params } {
  if (!isObject(body)) return false;
  for (const key in body) if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return false;
  const { jsonrpc, id, method, params } = body;
  return (
    jsonrpc === "2.0" &&
    (typeof id === "string" || Number.isSafeInteger(id)) &&
    typeof method === "string" &&
    (params === undefined || (isObject(params) && (params._meta === undefined || isObject(params._meta))))
  );
}

type Params = Record<string, unknown> & { _meta?: Record<string, unknown> };

/** A tools/call's params as the SDK's CallToolRequest schema accepts them, without its optional `task`. */
function plainCall(params: Params): params is Params & { name: string; arguments?: Record<string, unknown> } {
  for (const key in params) if (key !== "name" && key !== "arguments" && key !== "_meta") return false;
  return typeof params.name === "string" && (params.arguments === undefined || isObject(params.arguments));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The SDK schema's verdict on a value, kept for the values clients send again and again (their capabilities, their name). */
function validCached(schema: "ClientCapabilities" | "Implementation", value: unknown): boolean {
  const key = verdictKey(schema, value);
  const known = key === null ? undefined : verdicts.get(key);
  if (known !== undefined) return known;
  const valid = specTypeSchemas[schema]["~standard"].validate(value).issues === undefined;
  if (key !== null && key.length <= MAX_VERDICT_KEY) verdicts.set(key, valid, key.length);
  return valid;
}

/** The memo's key: the value's JSON; null when it is nested deeper than JSON.stringify goes (JSON.parse goes further). */
function verdictKey(schema: string, value: unknown): string | null {
  try {
    return `${schema}:${JSON.stringify(value)}`;
  } catch {
    return null;
  }
}

/** Verdicts of keys up to 1,024 characters, 64 K characters in all: a client cannot grow the memo beyond that. */
const verdicts = new ByteLru<boolean>(64 * 1024);
const MAX_VERDICT_KEY = 1024;

/** A message's `params._meta`, when it is an object. */
export function metaOf(message: unknown): Record<string, unknown> | undefined {
  const params = (message as { params?: { _meta?: unknown } } | null)?.params;
  return typeof params?._meta === "object" && params._meta !== null ? (params._meta as Record<string, unknown>) : undefined;
}

/** What the SDK's 2025 transport checks of a POST before serving it (Accept, a protocol version it speaks); `_meta` as here. */
function legacyHeaders(headers: Headers, meta: Record<string, unknown> | undefined): boolean {
  const accept = headers.get("accept") ?? "";
  const version = headers.get("mcp-protocol-version");
  return (
    accept.includes("application/json") &&
    accept.includes("text/event-stream") &&
    (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) &&
    (meta === undefined || Object.keys(meta).every((key) => FAST_META.has(key)))
  );
}
