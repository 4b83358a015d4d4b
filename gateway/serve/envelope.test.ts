import { describe, expect, it } from "vitest";
import type { Answer } from "./document.ts";
import { envelopeBytes, envelopeChunks } from "./envelope.ts";

// A large answer is written from its own bytes, not copied per response (issue 39: a client asking for 1.7 MB answers
// again and again made the gateway allocate and free them, and the allocator kept the memory).

const TAIL = Buffer.from('","cache":"hit","snapshot":"s1"}}'); // closes retrieved_at, meta and the envelope (metaTail)
const answerOf = (bytes: number): Answer => ({ bytes: Buffer.from(`{"x":"${"a".repeat(bytes - 8)}"}`), rows: 1 });

describe("the envelope of an answer", () => {
  it("a large answer's chunks hold the answer's own bytes and make the very envelope envelopeBytes writes", () => {
    const answer = answerOf(200_000);
    const chunks = envelopeChunks(answer, TAIL, "2026-11-29T10:00:00.000Z");
    expect(Array.isArray(chunks)).toBe(true);
    expect((chunks as Buffer[])[1]).toBe(answer.bytes);
    const whole = Buffer.concat(chunks as Buffer[]).toString();
    expect(JSON.parse(whole)).toEqual({ data: [{ x: "a".repeat(199_992) }], meta: { retrieved_at: "2026-11-29T10:00:00.000Z", cache: "hit", snapshot: "s1" } });
    expect(envelopeBytes(answer, TAIL, "2026-11-29T10:00:00.000Z").toString()).toBe(whole);
  });

  it("a small answer is one buffer, shared by the responses of one millisecond", () => {
    const answer = answerOf(1_000);
    const first = envelopeChunks(answer, TAIL, "2026-11-29T10:00:00.000Z");
    expect(Buffer.isBuffer(first)).toBe(true);
    expect(envelopeChunks(answer, TAIL, "2026-11-29T10:00:00.000Z")).toBe(first);
    expect(JSON.parse((first as Buffer).toString()).meta.retrieved_at).toBe("2026-11-29T10:00:00.000Z");
  });
});
