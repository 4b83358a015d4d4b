// Every tool, for every outcome an agent meets, through each client agents really use (issue 41.3): the official v2
// client on 2026-07-28, the v1 SDK client on 2025-11-25 and mcp-remote over stdio — each lists the tools before
// calling, so every result passes its SDK's output-schema check, and none of them throws.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePaymentRequired } from "@x402/core/schemas";
import { serve } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAID_ROUTES, ROUTES } from "../../schemas/api.ts";
import { envelope } from "../../schemas/envelope.ts";
import { TOOL_STRING_FORMATS, toolDefaults } from "../../schemas/tool-schema.ts";
import { ErrorBody } from "../../schemas/errors.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, testGateway } from "../../test/_gateway.ts";
import { agentBridged, agentV1, agentV2, GOOD_ARGS, type Agent } from "../../test/_mcp.ts";
import { removeDir } from "../../test/_s3.ts";
import { strictRefusal } from "../../test/_strict-schema.ts";
import { addressOf, ANVIL_KEYS, callPaying, payerClient, paymentRequiredOf, receiptOf } from "../../test/_x402.ts";
import { createLocalFacilitator } from "../payment/dev-chain/facilitator.ts";
import { createUsdcLedger } from "../payment/dev-chain/ledger.ts";
import { INSTRUCTIONS } from "./mcp-server.ts";

const PAYER = addressOf(ANVIL_KEYS.payer);
const TOOLS = ROUTES.filter((r) => r.tool !== null);
const PAID = new Set<string>(PAID_ROUTES.map((r) => r.tool));
/** The paid tools over one ticker's document (the tools across companies take no ticker). */
const TICKER_TOOLS = new Set<string>(PAID_ROUTES.filter((r) => r.document !== null).map((r) => r.tool));

/** A tool error's body: after the PaymentRequired for a payment refusal, else alone in content[0].text. */
function errorOf(result: Awaited<ReturnType<Agent["call"]>>): ErrorBody["error"] {
  expect(result.isError).toBe(true);
  const texts = result.content.map((c) => (c.type === "text" ? c.text : ""));
  if (result.structuredContent !== undefined) expect(parsePaymentRequired(result.structuredContent).success).toBe(true);
  return ErrorBody.parse(JSON.parse(texts.at(-1)!)).error;
}

describeEdgar("every tool through the clients agents use", () => {
  let data: { dataDir: string; mirror: string };
  let gw: ReturnType<typeof testGateway>;
  let server: ReturnType<typeof serve>;
  let base: string;
  let home: string;
  let key: string;
  const ledger = createUsdcLedger();

  beforeAll(async () => {
    data = await buildTestData();
    ledger.fund(PAYER, 10_000_000n);
    gw = testGateway(data.dataDir, { facilitator: createLocalFacilitator(ledger) });
    server = serve(gw.app, { port: 0, hostname: "127.0.0.1", silent: true });
    await server.ready();
    base = server.url!.replace(/\/$/, "");
    home = mkdtempSync(join(tmpdir(), "mcp-clients-home-")); // mcp-remote keeps its state under ~/.mcp-auth
    key = (await gw.keys.create("clients")).key;
    writeFileSync(join(home, "key.headers"), `Authorization: Bearer ${key}\n`);
  }, 120_000);
  afterAll(async () => {
    gw?.close();
    await server?.close(true);
    if (home) rmSync(home, { recursive: true, force: true });
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  const clients: { name: string; protocol: string; connect(keyed: boolean): Promise<Agent> }[] = [
    { name: "the v2 client", protocol: "2026-07-28", connect: (keyed) => agentV2(base, keyed ? { authorization: `Bearer ${key}` } : {}) },
    { name: "the v1 client", protocol: "2025-11-25", connect: (keyed) => agentV1(base, keyed ? { authorization: `Bearer ${key}` } : {}) },
    { name: "mcp-remote over stdio", protocol: "stdio", connect: (keyed) => agentBridged(base, home, keyed ? ["--header-file", join(home, "key.headers")] : []) },
  ];

  describe.each(clients)("$name", ({ protocol, connect }) => {
    let keyed: Agent;
    let anonymous: Agent;
    beforeAll(async () => {
      [keyed, anonymous] = await Promise.all([connect(true), connect(false)]);
    }, 60_000);
    afterAll(async () => Promise.all([keyed?.close(), anonymous?.close()]));

    it("connects on its protocol, given the server's instructions, and lists every tool, each annotated, the paid ones with their price", () => {
      expect(keyed.protocol).toBe(protocol);
      expect(keyed.instructions).toBe(INSTRUCTIONS);
      expect(keyed.tools.map((t) => t.name).sort()).toEqual(TOOLS.map((r) => r.tool).sort());
      for (const tool of keyed.tools) {
        expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, openWorldHint: false, title: expect.any(String) });
        if (PAID.has(tool.name)) expect(tool.description, tool.name).toMatch(/\$0\.0\d per call/);
        // OpenAI's API refuses a function description over 1,024 characters; hosts that bridge MCP tools to it pass it on.
        expect(tool.description!.length, tool.name).toBeLessThanOrEqual(1024);
        // A tool's own default limit is its schema's default, and its description says it (HTTP's may differ).
        const limit = toolDefaults(ROUTES.find((r) => r.tool === tool.name)!)?.limit;
        if (limit !== undefined) expect(tool.inputSchema.properties!.limit, tool.name).toMatchObject({ default: limit, description: expect.stringMatching(new RegExp(`The tool's default: ${limit}\\.$`)) });
        // A client that validates with a strict validator (unknown keywords refused) can read every schema it is given.
        expect([strictRefusal(tool.inputSchema), strictRefusal(tool.outputSchema!)], tool.name).toEqual([null, null]);
        // Gemini refuses a declaration with another string format (a date keeps its pattern).
        const formats = Object.values(tool.inputSchema.properties as Record<string, { format?: string }>).flatMap((p) => (p.format ? [p.format] : []));
        expect(formats.filter((f) => !TOOL_STRING_FORMATS.has(f)), tool.name).toEqual([]);
      }
    });

    it("with a key: every tool answers its route's envelope", async () => {
      for (const route of TOOLS) {
        const result = await keyed.call(route.tool, GOOD_ARGS[route.tool]!);
        expect(result.isError, route.tool).toBeFalsy();
        envelope(route.payload).parse(result.structuredContent);
        expect(JSON.parse((result.content[0] as { text: string }).text), route.tool).toEqual(result.structuredContent);
      }
    });

    it("without payment: a paid tool's PaymentRequired is a result the client accepts; a free tool answers", async () => {
      for (const route of TOOLS) {
        const result = await anonymous.call(route.tool, GOOD_ARGS[route.tool]!);
        if (!PAID.has(route.tool)) expect(result.isError, route.tool).toBeFalsy();
        else {
          expect([errorOf(result).code, paymentRequiredOf(result)?.error], route.tool).toEqual(["payment_required", "Payment required"]);
          const bazaar = (paymentRequiredOf(result)!.extensions as { bazaar: { info: { input: unknown }; schema: Record<string, unknown> } }).bazaar;
          expect([bazaar.info.input, strictRefusal(bazaar.schema)], route.tool).toEqual([expect.objectContaining({ type: "mcp", toolName: route.tool }), null]);
        }
      }
    });

    it("with an x402 payment: the answer and its receipt; the same payment again is refused, charged once", async () => {
      for (const route of PAID_ROUTES) {
        // An empty answer is never charged (the market's Form 4 feed has no row this week on the fixtures' snapshot).
        const keyedAnswer = await keyed.call(route.tool, GOOD_ARGS[route.tool]!);
        if ((keyedAnswer.structuredContent as { data: unknown[] }).data.length === 0) continue;
        const before = ledger.balanceOf(PAYER);
        const { paid, payload } = await callPaying(anonymous.client, payerClient(ANVIL_KEYS.payer), route.tool, GOOD_ARGS[route.tool]!);
        expect(paid.isError, route.tool).toBeFalsy();
        envelope(route.payload).parse(paid.structuredContent);
        expect(receiptOf(paid), route.tool).toMatchObject({ success: true, payer: PAYER });
        const replay = await anonymous.call(route.tool, GOOD_ARGS[route.tool]!, { "x402/payment": payload });
        expect(paymentRequiredOf(replay)?.error, route.tool).toMatch(/nonce_already_used/);
        expect(ledger.balanceOf(PAYER), route.tool).toBe(before - BigInt(paymentRequiredOf(await anonymous.call(route.tool, GOOD_ARGS[route.tool]!))!.accepts[0]!.amount));
      }
    });

    it("bad arguments: a tool error naming the argument, for every tool", async () => {
      for (const route of TOOLS) {
        const error = errorOf(await keyed.call(route.tool, { ...GOOD_ARGS[route.tool], sort: "asc" }));
        expect([error.code, error.message], route.tool).toEqual(["invalid_parameter", expect.stringContaining('"sort"')]);
      }
      const error = errorOf(await keyed.call("get_latest_filings", { ticker: "AAPL", limit: "many" }));
      expect([error.code, error.message]).toEqual(["invalid_parameter", expect.stringContaining("limit")]);
    });

    it("an uncovered ticker: an error, no payment asked", async () => {
      for (const tool of TICKER_TOOLS) {
        const result = await anonymous.call(tool, { ticker: "MSFT" });
        expect([errorOf(result).code, paymentRequiredOf(result)], tool).toEqual(["ticker_not_covered", null]);
      }
    });
  });
});
