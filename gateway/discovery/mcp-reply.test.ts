// An answer's reply written from a frame made once per generation is replyParts's own, byte for byte, whatever its id;
// a result with more in it (a receipt, an error) is not framed so.
import type { CallToolResult } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { Parts } from "../serve/envelope.ts";
import { answerReplyParts, answerResult, framed, replyParts, type Era } from "./mcp-reply.ts";

const ENVELOPE = '{"data":[{"name":"Café \\"Ltd\\"","value":1}],"meta":{"retrieved_at":"2026-11-30T02:00:00.000Z"}}';
// As envelopeParts gives them: the rows' bytes between the envelope's text, and the whole as a JSON string.
const META = ENVELOPE.indexOf('],"meta"');
const ANSWER = answerResult(['{"data":[', Buffer.from(ENVELOPE.slice(9, META)), ENVELOPE.slice(META)], [JSON.stringify(ENVELOPE)]);

function text(parts: Parts): string {
  return Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part))).toString();
}

describe("answerReplyParts", () => {
  it("writes an answer's reply as replyParts does, on both generations and for any id", () => {
    for (const era of ["legacy", "modern"] as Era[]) {
      for (const id of [7, 0, 'call "1"']) {
        const reply = text(answerReplyParts(id, ANSWER, era)!);
        expect(reply).toBe(text(replyParts(id, { jsonrpc: "2.0", result: framed(ANSWER, era) })));
        const { result, id: echoed } = JSON.parse(reply) as { result: CallToolResult; id: unknown };
        expect([echoed, result.structuredContent, result.content]).toEqual([id, JSON.parse(ENVELOPE), [{ type: "text", text: ENVELOPE }]]);
        expect(result.resultType).toBe(era === "modern" ? "complete" : undefined);
      }
    }
  });

  it("leaves a result with a receipt or an error to replyParts", () => {
    expect(answerReplyParts(1, { ...ANSWER, _meta: { "x402/payment-response": { success: true } } }, "modern")).toBeNull();
    expect(answerReplyParts(1, { isError: true, content: [{ type: "text", text: "{}" }] }, "legacy")).toBeNull();
  });
});
