// The JSON-RPC replies /mcp writes itself, as the parts of their bytes. JSON already written — an answer's envelope and
// the same envelope as a JSON string for content[0].text — goes in as the buffers it already is: never parsed, never
// re-serialised, never copied per call; the response writes the parts one after another.
import { SERVER_INFO_META_KEY, type CallToolResult, type JSONRPCRequest } from "@modelcontextprotocol/server";
import { FastResponse } from "srvx";
import packageJson from "../../package.json" with { type: "json" };
import type { Parts } from "../serve/envelope.ts";

/** The protocol generation of a body: 2026-07-28's per-request envelope, or the 2025 revisions' initialize era. */
export type Era = "modern" | "legacy";

/** How the server names itself (initialize's serverInfo, 2026-07-28's `_meta` serverInfo on every result). */
export const SERVER_INFO = { name: packageJson.name, version: packageJson.version } as const;

/**
 * Marks JSON already written: `{[WRITTEN]: bytes}` as a result stands for those bytes; as a result's
 * structuredContent, `{[WRITTEN]: parts, [WRITTEN_LITERAL]: parts}` stands for the envelope, with the envelope as a
 * JSON string literal under WRITTEN_LITERAL (as envelopeParts gives them).
 */
export const WRITTEN = "\u0000written";
export const WRITTEN_LITERAL = "\u0000literal";

/** A reply without its id: a result or an error. */
export interface OpenReply {
  jsonrpc: "2.0";
  result?: unknown;
  error?: unknown;
}

// Stand-ins serialised in place of the written parts, then cut out (control characters: never in a real value).
const STRUCTURED = "\u0001structured\u0001";
const TEXT = "\u0001text\u0001";
const STRUCTURED_JSON = JSON.stringify(STRUCTURED);
const TEXT_JSON = JSON.stringify(TEXT);
const RESULT_HEAD = '{"jsonrpc":"2.0","result":';

/** The reply to the request `id`. */
export function replyParts(id: JSONRPCRequest["id"], reply: OpenReply): Parts {
  const tail = idTail(id);
  const result = reply.result as Record<string, unknown> | undefined;
  const whole = result?.[WRITTEN];
  if (Buffer.isBuffer(whole)) return [RESULT_HEAD, whole, tail];
  const written = result && writtenParts(result as CallToolResult);
  if (!written) return [`${JSON.stringify(reply).slice(0, -1)}${tail}`];
  const { envelope, literal } = written;
  const text = JSON.stringify({ ...reply, result: { ...result, structuredContent: STRUCTURED, content: [{ type: "text", text: TEXT }] } });
  const [before, middle] = cut(text, STRUCTURED_JSON);
  const [between, after] = cut(middle, TEXT_JSON);
  return [before, ...envelope, between, ...literal, `${after.slice(0, -1)}${tail}`];
}

/** An answer: the envelope as structuredContent, and as text for clients that read only text (both written as is). */
export function answerResult(envelope: Parts, literal: Parts): CallToolResult {
  return { structuredContent: { [WRITTEN]: envelope, [WRITTEN_LITERAL]: literal }, content: [{ type: "text", text: "" }] };
}

/**
 * The reply to an answer as answerResult made it (nothing added: no receipt), or null for any other result. The JSON
 * around the answer's parts is replyParts's own, made once per generation: a call writes only its id (serialising the
 * frame per call cost 5–20 µs of a keyed call's ~200).
 */
export function answerReplyParts(id: JSONRPCRequest["id"], result: CallToolResult, era: Era): Parts | null {
  const written = writtenParts(result);
  if (!written || Object.keys(result).length !== 2) return null;
  const [before, between, end] = (ANSWER_FRAMES[era] ??= answerFrame(era));
  return [before, ...written.envelope, between, ...written.literal, `${end}${idTail(id)}`];
}

/** A result's envelope and its JSON string literal when its structuredContent stands for them (answerResult); else null. */
function writtenParts(result: CallToolResult): { envelope: Parts; literal: Parts } | null {
  const written = result.structuredContent as Record<string, unknown> | undefined;
  const envelope = written?.[WRITTEN] as Parts | undefined;
  const literal = written?.[WRITTEN_LITERAL] as Parts | undefined;
  return envelope && literal ? { envelope, literal } : null;
}

const ANSWER_FRAMES: Partial<Record<Era, [string, string, string]>> = {};

/** replyParts's frame of an answer in `era`, cut around its (empty) parts, without its id. */
function answerFrame(era: Era): [string, string, string] {
  const [before, between, last] = replyParts(0, { jsonrpc: "2.0", result: framed(answerResult([], []), era) }) as [string, string, string];
  return [before, between, last.slice(0, -idTail(0).length)];
}

/** A reply's last bytes: its id, and the reply's closing brace. */
function idTail(id: JSONRPCRequest["id"]): string {
  return `,"id":${JSON.stringify(id)}}`;
}

/**
 * A result as the SDK frames it in `era`: on 2026-07-28 with `resultType` (`complete` unless it has its own) and the
 * server's identity in `_meta`.
 */
export function framed<R extends { resultType?: string; _meta?: Record<string, unknown> }>(result: R, era: Era): R {
  if (era === "legacy") return result;
  return { ...result, resultType: result.resultType ?? "complete", _meta: { ...result._meta, [SERVER_INFO_META_KEY]: SERVER_INFO } };
}

/** A tool result with its written parts made plain values, for the SDK to validate and serialise. */
export function plainResult(result: CallToolResult): CallToolResult {
  const written = writtenParts(result);
  if (!written) return result;
  const text = Buffer.concat(written.envelope.map((part) => (typeof part === "string" ? Buffer.from(part) : part))).toString();
  return { ...result, structuredContent: JSON.parse(text) as Record<string, unknown>, content: [{ type: "text", text }] };
}

/** A batch's replies as one JSON array. */
export function batchParts(replies: Parts[]): Parts {
  return ["[", ...replies.flatMap((reply, i) => (i ? [",", ...reply] : reply)), "]"];
}

/**
 * A 200 whose body is the parts. Adjacent text is joined; a body of one part is sent as it is, any other through
 * `pipe`, which srvx calls with the response (or a stream, outside Node) to write the parts into: the buffers go to
 * the socket as they are, in one writev. Copying them into one buffer per reply instead cost a 24 KB allocation per
 * tool call, and under load V8 answers that much memory outside its heap with a major GC every half second.
 */
export function replyResponse(parts: Parts, headers: Record<string, string>): Response {
  const joined: Parts = [];
  let length = 0;
  for (const part of parts) {
    const last = joined.length - 1;
    if (typeof part === "string" && typeof joined[last] === "string") joined[last] += part;
    else joined.push(part);
    length += typeof part === "string" ? Buffer.byteLength(part) : part.length;
  }
  if (joined.length === 1) return new FastResponse(joined[0] as string, { status: 200, headers });
  const body = { pipe: <T extends NodeJS.WritableStream>(destination: T): T => (joined.forEach((part) => destination.write(part)), destination.end(), destination) };
  return new FastResponse(body as unknown as BodyInit, { status: 200, headers: { ...headers, "content-length": String(length) } });
}

function cut(text: string, standIn: string): [string, string] {
  const at = text.indexOf(standIn);
  return [text.slice(0, at), text.slice(at + standIn.length)];
}
