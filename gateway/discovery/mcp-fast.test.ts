// The fast path's own checks (mcp-fast.ts) are never more lenient than the SDK's schemas: whatever it answers itself,
// the SDK would have accepted; anything else goes to the SDK, which answers its errors. Random requests, each part
// either well-formed or any JSON value.
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, isJSONRPCRequest, PROTOCOL_VERSION_META_KEY, specTypeSchemas } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Era } from "./mcp-reply.ts";
import { fastReply, MODERN_REVISION } from "./mcp-fast.ts";
import type { McpTools } from "./mcp-tools.ts";

const TOOL = "get_latest_filings";
const tools: McpTools = { list: [], handler: (name) => (name === TOOL ? () => ({ content: [] }) : undefined), paid: () => false };
const list = { legacy: Buffer.from("{}"), modern: Buffer.from("{}") };

/** A part of a request: well-formed most often, else any JSON value, or left out. */
function part<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 10, arbitrary: valid }, { weight: 1, arbitrary: fc.jsonValue() }, { weight: 1, arbitrary: fc.constant(undefined) });
}

/** A part a plain request leaves out: most often absent, else well-formed or any JSON value. */
function rare<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: valid }, { weight: 1, arbitrary: fc.jsonValue() });
}

const meta = part(
  fc.record(
    {
      [PROTOCOL_VERSION_META_KEY]: part(fc.constant(MODERN_REVISION)),
      [CLIENT_CAPABILITIES_META_KEY]: part(fc.oneof(fc.constant({}), fc.record({ roots: part(fc.record({ listChanged: part(fc.boolean()) })), sampling: part(fc.constant({})) }, { requiredKeys: [] }))),
      [CLIENT_INFO_META_KEY]: rare(fc.record({ name: part(fc.string()), version: part(fc.string()) }, { requiredKeys: [] })),
      "x402/payment": rare(fc.jsonValue()),
      progressToken: rare(fc.oneof(fc.string(), fc.integer())),
    },
  ),
);

const params = part(
  fc.record(
    {
      name: part(fc.constantFrom(TOOL, TOOL, TOOL, "no_such_tool")),
      arguments: part(fc.oneof(fc.constant({ ticker: "AAPL" }), fc.dictionary(fc.string(), fc.jsonValue()))),
      _meta: meta,
      task: rare(fc.record({ ttl: part(fc.integer()) }, { requiredKeys: [] })),
      cursor: rare(fc.string()),
    },
  ),
);

const request = fc
  .record(
    {
      jsonrpc: part(fc.constant("2.0")),
      id: part(fc.oneof({ weight: 6, arbitrary: fc.oneof(fc.integer(), fc.string()) }, { weight: 1, arbitrary: fc.oneof(fc.double(), fc.constant(2 ** 60)) })),
      method: part(fc.constantFrom("tools/call", "tools/call", "tools/list", "tools/other")),
      params,
      extra: rare(fc.jsonValue()),
    },
  )
  .map((body) => JSON.parse(JSON.stringify(body)) as unknown); // as it comes off the wire: no undefined

/** The headers a client of `era` sends with the body (the modern ones naming what the body names, when it can). */
function headersFor(era: Era, body: unknown): Headers {
  const message = body as { method?: unknown; params?: { name?: unknown } } | null;
  if (era === "legacy") return new Headers({ accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" });
  const headers = new Headers({ "mcp-protocol-version": MODERN_REVISION });
  if (typeof message?.method === "string") headers.set("mcp-method", message.method);
  if (typeof message?.params?.name === "string") headers.set("mcp-name", message.params.name);
  return headers;
}

/** Whether the SDK's own schemas accept the request as the fast path would serve it. */
function sdkAccepts(era: Era, body: unknown): boolean {
  if (!isJSONRPCRequest(body)) return false;
  if (body.method === "tools/call" && specTypeSchemas.CallToolRequest["~standard"].validate(body).issues) return false;
  if (era === "legacy") return true;
  const meta = (body.params?._meta ?? {}) as Record<string, unknown>;
  const info = meta[CLIENT_INFO_META_KEY];
  return (
    specTypeSchemas.ClientCapabilities["~standard"].validate(meta[CLIENT_CAPABILITIES_META_KEY]).issues === undefined &&
    (info === undefined || specTypeSchemas.Implementation["~standard"].validate(info).issues === undefined)
  );
}

describe("the fast path's checks, against the SDK's schemas", () => {
  it.each(["modern", "legacy"] as const)("%s: every request it answers itself, the SDK accepts", (era) => {
    let answered = 0;
    fc.assert(
      fc.property(request, (body) => {
        if (fastReply(tools, list, era, headersFor(era, body), body) === null) return;
        answered++;
        expect(sdkAccepts(era, body), JSON.stringify(body)).toBe(true);
      }),
      { numRuns: 5_000, seed: 41 },
    );
    expect(answered).toBeGreaterThan(50); // the property was tested on requests the fast path serves, not only refused
  });

  it("serves the plain call and list of each generation, and leaves the rest to the SDK", () => {
    const envelope = { [PROTOCOL_VERSION_META_KEY]: MODERN_REVISION, [CLIENT_CAPABILITIES_META_KEY]: {} };
    const call = (meta?: object, extra: object = {}) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: TOOL, arguments: { ticker: "AAPL" }, ...(meta ? { _meta: meta } : {}), ...extra } });
    const served = (era: Era, body: unknown) => fastReply(tools, list, era, headersFor(era, body), body) !== null;
    expect(served("modern", call(envelope))).toBe(true);
    expect(served("legacy", call())).toBe(true);
    expect(served("modern", { jsonrpc: "2.0", id: "a", method: "tools/list", params: { _meta: envelope } })).toBe(true);
    // Each of these the SDK answers (an error, or a reply the fast path does not write).
    expect(served("modern", call({ ...envelope, [CLIENT_CAPABILITIES_META_KEY]: { roots: "yes" } }))).toBe(false);
    expect(served("modern", call({ ...envelope, [CLIENT_INFO_META_KEY]: { name: 1 } }))).toBe(false);
    expect(served("legacy", call(undefined, { task: { ttl: 5 } }))).toBe(false);
    expect(served("legacy", { ...call(), id: 1.5 })).toBe(false);
    expect(served("legacy", { ...call(), params: { name: TOOL, arguments: ["AAPL"] } })).toBe(false);
    expect(served("legacy", { jsonrpc: "2.0", id: 1, method: "tools/list", params: { cursor: "x" } })).toBe(false);
  });

  it("capabilities or a client name nested deeper than JSON.stringify goes are the SDK's to refuse, never a throw", () => {
    // Off the wire as JSON.parse reads it (it goes deeper than JSON.stringify, which throws a RangeError).
    const deep = JSON.parse(`${"[".repeat(60_000)}${"]".repeat(60_000)}`) as unknown;
    for (const key of [CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY]) {
      const meta = { [PROTOCOL_VERSION_META_KEY]: MODERN_REVISION, [CLIENT_CAPABILITIES_META_KEY]: {}, [key]: { roots: deep } };
      const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: TOOL, arguments: {}, _meta: meta } };
      expect(fastReply(tools, list, "modern", headersFor("modern", body), body), key).toBeNull();
    }
  });
});
