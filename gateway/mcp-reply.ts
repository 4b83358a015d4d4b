// The JSON-RPC replies of /mcp, as bytes. JSON already written — the tools list, an answer's envelope and the same
// envelope as a JSON string for content[0].text — goes in as the buffers it already is: never parsed, never
// re-serialised, never encoded again per call. Everything else goes through JSON.stringify.
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";

/**
 * Marks JSON already written: `{[WRITTEN]: bytes}` as a result stands for those bytes; as a result's
 * structuredContent it stands for the envelope, with the envelope as a JSON string literal under WRITTEN_LITERAL.
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
const RESULT_HEAD = Buffer.from('{"jsonrpc":"2.0","result":');

/** The reply to the request `id`, as the bytes sent. */
export function replyBytes(id: JSONRPCRequest["id"], reply: OpenReply): Buffer {
  const tail = `,"id":${JSON.stringify(id)}}`;
  const result = reply.result as Record<string, unknown> | undefined;
  const whole = result?.[WRITTEN];
  if (Buffer.isBuffer(whole)) return Buffer.concat([RESULT_HEAD, whole, Buffer.from(tail)]);
  const written = result?.structuredContent as Record<string, unknown> | undefined;
  const envelope = written?.[WRITTEN];
  const literal = written?.[WRITTEN_LITERAL];
  if (!Buffer.isBuffer(envelope) || !Buffer.isBuffer(literal)) return Buffer.from(`${JSON.stringify(reply).slice(0, -1)}${tail}`);
  const text = JSON.stringify({ ...reply, result: { ...result, structuredContent: STRUCTURED, content: [{ type: "text", text: TEXT }] } });
  const [before, middle] = cut(text, STRUCTURED_JSON);
  const [between, after] = cut(middle, TEXT_JSON);
  return Buffer.concat([Buffer.from(before), envelope, Buffer.from(between), literal, Buffer.from(`${after.slice(0, -1)}${tail}`)]);
}

/** A batch's replies as one JSON array. */
export function batchBytes(replies: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from("[")];
  replies.forEach((reply, i) => parts.push(...(i ? [Buffer.from(","), reply] : [reply])));
  parts.push(Buffer.from("]"));
  return Buffer.concat(parts);
}

function cut(text: string, standIn: string): [string, string] {
  const at = text.indexOf(standIn);
  return [text.slice(0, at), text.slice(at + standIn.length)];
}
