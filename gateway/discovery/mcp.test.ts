// Agents on /mcp with the clients they really use: the official SDK Client, which lists the tools first and then
// validates every result against the tool's output schema, calls every tool for every outcome; an x402 MCP client
// written from the spec's client rules pays, reads the receipt and retries without paying twice; floods are limited.
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { extractDiscoveryInfo, validateDiscoveryExtension } from "@x402/extensions/bazaar";
import { generatePaymentId } from "@x402/extensions/payment-identifier";
import { parsePaymentRequired } from "@x402/core/schemas";
import { serve } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAID_ROUTES, ROUTES, SERVICE } from "../../schemas/api.ts";
import { envelope } from "../../schemas/envelope.ts";
import { toolDefaults } from "../../schemas/tool-schema.ts";
import { ErrorBody } from "../../schemas/errors.ts";
import { PaymentRequiredExtensionResult } from "../../schemas/payment.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { extensionAgent, GOOD_ARGS, type RawResult } from "../../test/_mcp.ts";
import { buildTestData, testGateway } from "../../test/_gateway.ts";
import { rawInPieces } from "../../test/_raw-http.ts";
import { removeDir } from "../../test/_s3.ts";
import { addressOf, ANVIL_KEYS, callPaying, counting, malformedPayments, payerClient, paymentRequiredOf, quietConsole, receiptOf, startLoopbackFacilitator, withFailingSettlement } from "../../test/_x402.ts";
import { MAX_BATCH } from "./mcp.ts";
import { createUsdcLedger } from "../payment/dev-chain/ledger.ts";
import { createLocalFacilitator } from "../payment/dev-chain/facilitator.ts";
import { DEV_PAY_TO } from "../serve/server.ts";

const PAYER = addressOf(ANVIL_KEYS.payer);
const TOOLS = ROUTES.filter((r) => r.tool !== null);
const FEED_TOOLS = new Set<string>(ROUTES.filter((r) => r.feed !== null).map((r) => r.tool!));
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

type Served = { gw: ReturnType<typeof testGateway>; base: string; close(): Promise<void> };

/** A gateway served on a loopback port (the SDK client speaks HTTP). */
async function served(dataDir: string, options: Parameters<typeof testGateway>[1]): Promise<Served> {
  const gw = testGateway(dataDir, options);
  const server = serve(gw.app, { port: 0, hostname: "127.0.0.1", silent: true });
  await server.ready();
  return { gw, base: server.url!.replace(/\/$/, ""), close: async () => (gw.close(), await server.close(true)) };
}

/** An agent: the SDK's Client, connected, with the tools listed first (so every result is validated). */
async function agent(base: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  const { tools } = await client.listTools();
  const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;
  return { client, tools, call };
}

/**
 * The error body of a tool error, where docs/api.md ("MCP") puts it: a payment refusal has the PaymentRequired as
 * structuredContent and, exactly, as content[0].text (x402's MCP transport), then the body in content[1].text; any
 * other error has no structuredContent and the body in content[0].text.
 */
function errorOf(result: CallToolResult): ErrorBody["error"] {
  expect(result.isError).toBe(true);
  const texts = result.content.map((c) => (c.type === "text" ? c.text : ""));
  if (result.structuredContent === undefined) {
    expect(texts).toHaveLength(1);
    return ErrorBody.parse(JSON.parse(texts[0]!)).error;
  }
  expect(parsePaymentRequired(result.structuredContent).success).toBe(true);
  expect(texts).toHaveLength(2);
  expect(texts[0]).toBe(JSON.stringify(result.structuredContent));
  const body = ErrorBody.parse(JSON.parse(texts[1]!)).error;
  expect(body.code).toBe("payment_required");
  return body;
}

/** A reply with its answer's retrieved_at (in structuredContent and in content[0].text) made one fixed time. */
function sameTime(reply: { result?: { structuredContent?: { meta?: { retrieved_at?: string } }; content?: { text?: string }[] } }) {
  const fixed = (text: string) => text.replace(/"retrieved_at":"[^"]+"/g, '"retrieved_at":"T"');
  const result = reply.result;
  if (result?.structuredContent?.meta?.retrieved_at) result.structuredContent.meta.retrieved_at = "T";
  for (const content of result?.content ?? []) if (content.text) content.text = fixed(content.text);
  return reply;
}

/** A raw JSON-RPC POST to /mcp (for batches and limits the SDK client never sends). */
async function rpc(base: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
}

describeEdgar("MCP at /mcp, as agents use it", () => {
  let data: { dataDir: string; mirror: string };
  let main: Served;
  let ledger: ReturnType<typeof withFailingSettlement>;
  let facilitator: ReturnType<typeof counting>;
  let key: string;

  beforeAll(async () => {
    data = await buildTestData();
    ledger = withFailingSettlement(createUsdcLedger());
    ledger.fund(PAYER, 10_000_000n);
    facilitator = counting(createLocalFacilitator(ledger));
    main = await served(data.dataDir, { facilitator });
    key = (await main.gw.keys.create("mcp")).key;
  });
  afterAll(async () => {
    await main?.close();
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  it("lists one tool per route with a tool, each with the input and output schema of its route", async () => {
    const { client, tools } = await agent(main.base);
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((r) => r.tool).sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      // A paid tool's result is its answer or, refused, x402's PaymentRequired: the schema admits either.
      const paid = PAID_ROUTES.some((r) => r.tool === tool.name);
      const answer = (paid ? (tool.outputSchema?.anyOf as Record<string, unknown>[])[0] : tool.outputSchema) as { properties?: unknown };
      expect(answer.properties, tool.name).toHaveProperty("data");
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
    }
    expect(tools.find((t) => t.name === "get_latest_filings")!.inputSchema.required).toEqual(["ticker"]);
    await client.close();
  });

  it("introduces itself with the package's name and version", async () => {
    const { client } = await agent(main.base);
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { name: string; version: string };
    expect(client.getServerVersion()).toMatchObject({ name: pkg.name, version: pkg.version });
    await client.close();
  });

  it("answers every tool: structuredContent matches its output schema and holds the HTTP endpoint's data", async () => {
    const { client, call } = await agent(main.base, { authorization: `Bearer ${key}` });
    for (const route of TOOLS) {
      const result = await call(route.tool, GOOD_ARGS[route.tool]!);
      expect(result.isError, route.tool).toBeFalsy();
      const structured = envelope(route.payload).parse(result.structuredContent);
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
      // A tool's own default limit (issue 41) is the HTTP route's explicit one.
      const query = new URLSearchParams(Object.entries({ ...toolDefaults(route), ...GOOD_ARGS[route.tool]! }).map(([k, v]) => [k, String(v)]));
      const http = await (await fetch(`${main.base}${route.path}?${query}`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(structured.data, route.tool).toEqual(http.data);
    }
    await client.close();
  });

  describe("every tool, listed from the server, for every outcome: results the SDK client accepts after tools/list", () => {
    /** A gateway with the per-address limit at 1 a minute and a burst of 2: an agent's initialize and tools/list. */
    let limited: Served;
    /** A gateway over an empty store: no snapshot can be read. */
    let storeless: Served & { dir: string };
    /** A gateway whose facilitator is down once asked for its supported kinds. */
    let outage: Served;
    let loopback: Awaited<ReturnType<typeof startLoopbackFacilitator>>;
    let listed: string[];
    beforeAll(async () => {
      limited = await served(data.dataDir, { env: { FREE_RATE_PER_MINUTE: "1", FREE_BURST: "2" } });
      const dir = mkdtempSync(join(tmpdir(), "mcp-storeless-"));
      storeless = { ...(await served(dir, {})), dir };
      loopback = await startLoopbackFacilitator(ledger);
      outage = await served(data.dataDir, { facilitator: loopback.client });
      const { client, tools } = await agent(main.base);
      listed = tools.map((t) => t.name);
      await client.close();
    });
    afterAll(async () => {
      await Promise.all([limited?.close(), storeless?.close(), outage?.close()]);
      await loopback?.close();
      if (storeless) rmSync(storeless.dir, { recursive: true, force: true });
    });
    const routeOf = (name: string) => TOOLS.find((r) => r.tool === name)!;
    const isPaid = (name: string) => PAID_ROUTES.some((r) => r.tool === name);

    it("lists every tool of the route table", () => expect([...listed].sort()).toEqual(TOOLS.map((r) => r.tool).sort()));

    it("success: an answer whose structuredContent is its route's envelope (a key for the paid tools)", async () => {
      const keyed = await agent(main.base, { authorization: `Bearer ${key}` });
      for (const name of listed) {
        const result = await keyed.call(name, GOOD_ARGS[name]!);
        expect(result.isError, name).toBeFalsy();
        envelope(routeOf(name).payload).parse(result.structuredContent);
      }
      await keyed.client.close();
    });

    it("400: an unknown argument or a bad value is invalid_parameter", async () => {
      const anonymous = await agent(main.base);
      for (const name of listed) {
        expect(errorOf(await anonymous.call(name, { ...GOOD_ARGS[name], sort: "asc" })).message, name).toMatch(/unknown parameter "sort"/);
        if (name !== "list_tickers") expect(errorOf(await anonymous.call(name, { ticker: "../etc" })).code, name).toBe("invalid_parameter");
      }
      await anonymous.client.close();
    });

    it("401: a bad key is invalid_api_key on a paid tool, never a fall back to x402; a free tool takes no key and answers", async () => {
      const badKey = await agent(main.base, { authorization: "Bearer fds_not-a-key" });
      for (const name of listed) {
        const result = await badKey.call(name, GOOD_ARGS[name]!);
        if (isPaid(name)) expect(errorOf(result).code, name).toBe("invalid_api_key");
        else expect(result.isError, name).toBeFalsy();
      }
      await badKey.client.close();
    });

    it("402: a paid tool without payment asks for it (x402 PaymentRequired); a free tool answers", async () => {
      const anonymous = await agent(main.base);
      for (const name of listed) {
        const result = await anonymous.call(name, GOOD_ARGS[name]!);
        if (!isPaid(name)) {
          expect(result.isError, name).toBeFalsy();
          continue;
        }
        expect(errorOf(result).code, name).toBe("payment_required");
        expect(result.structuredContent, name).toMatchObject({ x402Version: 2, error: "Payment required", accepts: [{ scheme: "exact", network: "eip155:8453", payTo: DEV_PAY_TO }] });
      }
      await anonymous.client.close();
    });

    it("404: an uncovered ticker is ticker_not_covered before any payment; the free tools answer every ticker", async () => {
      const anonymous = await agent(main.base);
      // The tools across companies take no ticker (issue 40).
      for (const name of listed.filter((n) => !FEED_TOOLS.has(n))) {
        const result = await anonymous.call(name, name === "list_tickers" ? {} : { ticker: "MSFT" });
        if (isPaid(name)) expect(errorOf(result).code, name).toBe("ticker_not_covered");
        else expect(result.isError, name).toBeFalsy();
      }
      await anonymous.client.close();
    });

    it("429: once an address has spent its allowance, every tool is rate_limited, saying when to retry", async () => {
      const anonymous = await agent(limited.base); // initialize and tools/list spend the burst of 2
      for (const name of listed) {
        const error = errorOf(await anonymous.call(name, GOOD_ARGS[name]!));
        expect([error.code, error.message], name).toEqual(["rate_limited", expect.stringMatching(/Retry after \d+ s\./)]);
      }
      await anonymous.client.close();
    });

    it("503: a store that cannot be read is storage_unavailable for every tool, before any payment", async () => {
      const anonymous = await agent(storeless.base);
      for (const name of listed) expect(errorOf(await anonymous.call(name, GOOD_ARGS[name]!)).code, name).toBe("storage_unavailable");
      await anonymous.client.close();
    });

    it("503: a facilitator down is facilitator_unavailable for every paid tool, nothing charged", async () => {
      const anonymous = await agent(outage.base);
      const paid = listed.filter(isPaid);
      const payloads = [];
      for (const name of paid) payloads.push(await payerClient(ANVIL_KEYS.payer).createPaymentPayload(paymentRequiredOf(await anonymous.call(name, GOOD_ARGS[name]!))!));
      const balance = ledger.balanceOf(PAYER);
      loopback.setMode("down");
      try {
        for (const [i, name] of paid.entries()) {
          expect(errorOf(await anonymous.call(name, GOOD_ARGS[name]!, { "x402/payment": payloads[i] })).code, name).toBe("facilitator_unavailable");
        }
      } finally {
        loopback.setMode("ok");
      }
      expect(ledger.balanceOf(PAYER)).toBe(balance);
      await anonymous.client.close();
    });
  });

  it("429 as a tool error once an address spends its allowance; keyed and paid calls go on", async () => {
    // One a minute: the allowance must not refill while a loaded machine signs the payment (at 60 it did, in 2.7 s).
    const limited = await served(data.dataDir, { env: { FREE_RATE_PER_MINUTE: "1", FREE_BURST: "10" }, facilitator: createLocalFacilitator(ledger) });
    try {
      const { key: limitedKey } = await limited.gw.keys.create("limited");
      const keyed = await agent(limited.base, { authorization: `Bearer ${limitedKey}` });
      await keyed.call("get_latest_filings", GOOD_ARGS.get_latest_filings!); // the key is now verified and trusted
      const payer = await agent(limited.base); // an agent that was asked to pay before the allowance ran out
      const required = paymentRequiredOf(await payer.call("get_insider_transactions", { ticker: "JNJ" }))!;
      const payload = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required);
      const anonymous = await agent(limited.base);
      const outcomes = [];
      for (let i = 0; i < 4; i++) outcomes.push(await anonymous.call("probe_coverage", { ticker: "AAPL" }));
      const refused = outcomes.filter((r) => r.isError);
      expect(refused.length).toBeGreaterThan(0);
      for (const result of refused) expect(errorOf(result).code).toBe("rate_limited");
      await expect(anonymous.client.listTools()).rejects.toThrow(/Too many requests/);
      for (const route of TOOLS) expect((await keyed.call(route.tool, GOOD_ARGS[route.tool]!)).isError, route.tool).toBeFalsy();
      const paid = await payer.call("get_insider_transactions", { ticker: "JNJ" }, { "x402/payment": payload });
      expect(receiptOf(paid)).toMatchObject({ success: true });
      await Promise.all([keyed.client.close(), payer.client.close(), anonymous.client.close()]);
    } finally {
      await limited.close();
    }
  });

  it("under a flood: refused payments and payments sent to free tools cost their address; genuine paid and keyed calls go on", async () => {
    // Behind a proxy (TRUST_PROXY=1) the address is X-Forwarded-For's: four clients, each with a burst of 4.
    const counted = counting(createLocalFacilitator(ledger));
    const flood = await served(data.dataDir, { env: { FREE_RATE_PER_MINUTE: "1", FREE_BURST: "4", TRUST_PROXY: "1" }, facilitator: counted });
    const from = (address: string) => ({ "x-forwarded-for": address });
    try {
      const { key: floodKey } = await flood.gw.keys.create("flood");
      const payer = await agent(flood.base, from("203.0.113.3")); // initialize and tools/list: 2 of its 4 tokens
      const required = paymentRequiredOf(await payer.call("get_insider_transactions", { ticker: "JNJ" }))!; // the 3rd

      // Ten list_tickers calls with a "payment" attached: a free tool, so each is an unauthenticated request.
      const sprayer = await agent(flood.base, from("203.0.113.1"));
      const batch = Array.from({ length: 10 }, (_, id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "list_tickers", arguments: {}, _meta: { "x402/payment": 0 } } }));
      const replies = (await (await rpc(flood.base, batch, from("203.0.113.1"))).json()) as { result: CallToolResult }[];
      expect(replies.filter((r) => !r.result.isError)).toHaveLength(2); // the two tokens tools/list left
      for (const reply of replies.filter((r) => r.result.isError)) expect(errorOf(reply.result).code).toBe("rate_limited");

      // Ten calls with a well-formed payment the facilitator refuses (an unfunded payer): each refusal draws a token,
      // and once none is left the sender is 429 before its payment is verified — the facilitator is asked 3 times.
      const unfunded = await payerClient(ANVIL_KEYS.secondPayer).createPaymentPayload(required);
      const flooder = await agent(flood.base, from("203.0.113.2"));
      const verifies = counted.verifies;
      const outcomes = [];
      for (let i = 0; i < 10; i++) outcomes.push(await flooder.call("get_insider_transactions", { ticker: "JNJ" }, { "x402/payment": unfunded }));
      expect(outcomes.map((r) => errorOf(r).code)).toEqual([...Array(2).fill("payment_required"), ...Array(8).fill("rate_limited")]);
      expect(paymentRequiredOf(outcomes[0]!)?.error).toMatch(/insufficient/);
      expect(counted.verifies - verifies).toBe(3);

      // Meanwhile a genuine payment from another address pays, and a key answers every tool.
      const paid = await payer.call("get_insider_transactions", { ticker: "JNJ" }, { "x402/payment": await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required) });
      expect(receiptOf(paid)).toMatchObject({ success: true });
      const keyed = await agent(flood.base, { ...from("203.0.113.4"), authorization: `Bearer ${floodKey}` });
      // Paid tools first: a paid call verifies the key, which is then trusted (a free tool never looks at it).
      for (const route of [...PAID_ROUTES, ...TOOLS.filter((r) => !r.price)]) expect((await keyed.call(route.tool, GOOD_ARGS[route.tool]!)).isError, route.tool).toBeFalsy();
      await Promise.all([payer, sprayer, flooder, keyed].map((a) => a.client.close()));
    } finally {
      await flood.close();
    }
  });

  it("503 when the store cannot check a key or give the document (a verified payment released), or the facilitator is down", async () => {
    const { key: fresh, hash } = await main.gw.keys.create("unreadable");
    const record = join(data.dataDir, "keys", `${hash}.json`);
    rmSync(record);
    mkdirSync(record); // reading the key's record now fails (EISDIR): the store cannot answer
    const keyed = await agent(main.base, { authorization: `Bearer ${fresh}` });
    expect(errorOf(await keyed.call("get_latest_filings", GOOD_ARGS.get_latest_filings!)).code).toBe("storage_unavailable");
    await keyed.client.close();
    rmSync(record, { recursive: true });

    const snapshot = main.gw.snapshots.held!.pointer.build_id;
    const doc = join(data.dataDir, "snapshots", snapshot, "tickers", "HD", "insiders.json");
    renameSync(doc, `${doc}.away`);
    try {
      const before = ledger.balanceOf(PAYER);
      const settles = facilitator.settles;
      const { paid } = await callPayingDirect(main.base, "get_insider_transactions", { ticker: "HD" });
      expect(errorOf(paid).code).toBe("storage_unavailable");
      expect([ledger.balanceOf(PAYER), facilitator.settles]).toEqual([before, settles]);
    } finally {
      renameSync(`${doc}.away`, doc);
    }

    const loopback = await startLoopbackFacilitator(ledger);
    const outage = await served(data.dataDir, { facilitator: loopback.client });
    try {
      const anonymous = await agent(outage.base);
      const required = paymentRequiredOf(await anonymous.call("get_latest_filings", { ticker: "WMT" }))!;
      const payload = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required);
      loopback.setMode("down");
      expect(errorOf(await anonymous.call("get_latest_filings", { ticker: "WMT" }, { "x402/payment": payload })).code).toBe("facilitator_unavailable");
      loopback.setMode("reject"); // a 400 without a verdict judges the payment: refused, not an outage
      const rejected = await anonymous.call("get_latest_filings", { ticker: "WMT" }, { "x402/payment": payload });
      expect(errorOf(rejected).code).toBe("payment_required");
      expect(paymentRequiredOf(rejected)?.error).toMatch(/facilitator_rejected_payment/);
      await anonymous.client.close();
    } finally {
      await outage.close();
      await loopback.close();
    }
  });

  describe("x402 over MCP (specs/transports-v2/mcp.md)", () => {
    it("a client written from the spec's rules pays, reads the receipt; a replay is refused, nothing charged twice", async () => {
      const { client } = await agent(main.base);
      const before = [ledger.balanceOf(PAYER), ledger.balanceOf(DEV_PAY_TO)];
      const { unpaid, paid, payload } = await callPaying(client, payerClient(ANVIL_KEYS.payer), "get_insider_transactions", { ticker: "JNJ" });
      // Payment required: structuredContent is the PaymentRequired, content[0].text exactly its JSON (the spec's two places).
      expect(unpaid.structuredContent).toMatchObject({ x402Version: 2, error: "Payment required" });
      expect((unpaid.content[0] as { text: string }).text).toBe(JSON.stringify(unpaid.structuredContent));
      expect(paid.isError).toBeFalsy();
      expect((paid.structuredContent as { data: unknown[] }).data).toHaveLength(3);
      expect(receiptOf(paid)).toMatchObject({ success: true, network: "eip155:8453", payer: PAYER, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect([ledger.balanceOf(PAYER), ledger.balanceOf(DEV_PAY_TO)]).toEqual([before[0]! - 10_000n, before[1]! + 10_000n]);
      const replay = (await client.callTool({ name: "get_insider_transactions", arguments: { ticker: "JNJ" }, _meta: { "x402/payment": payload } })) as CallToolResult;
      expect(paymentRequiredOf(replay)?.error).toMatch(/nonce_already_used/);
      expect(ledger.balanceOf(PAYER)).toBe(before[0]! - 10_000n);
      await client.close();
    });

    it("a refused payment says why: another price, an unfunded payer", async () => {
      const { client, call } = await agent(main.base);
      const cheap = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(paymentRequiredOf(await call("get_latest_filings", { ticker: "AAPL" }))!);
      const mismatch = await call("get_earnings_summary", { ticker: "AAPL" }, { "x402/payment": cheap }); // $0.01 offered for $0.02
      expect(paymentRequiredOf(mismatch)?.error).toMatch(/^payment_mismatch/);
      expect(errorOf(mismatch).message).toMatch(/not accepted \(payment_mismatch/);
      const { paid: unfunded } = await callPaying(client, payerClient(ANVIL_KEYS.secondPayer), "get_latest_filings", { ticker: "AAPL" });
      expect(paymentRequiredOf(unfunded)?.error).toMatch(/insufficient/);
      await client.close();
    });

    it("a failed settlement withholds the answer: the PaymentRequired again, the failed receipt in _meta", async () => {
      const { client } = await agent(main.base);
      const before = ledger.balanceOf(PAYER);
      ledger.failNextSettlement();
      const { paid } = await callPaying(client, payerClient(ANVIL_KEYS.payer), "get_earnings_summary", { ticker: "DIS" });
      expect(JSON.stringify(paid)).not.toContain("fiscal_year");
      expect(receiptOf(paid)).toMatchObject({ success: false, errorReason: expect.any(String) });
      expect(paid.structuredContent).toMatchObject({ x402Version: 2, error: expect.stringMatching(/^settlement_failed/) });
      expect(errorOf(paid).message).toMatch(/could not be settled/);
      expect(ledger.balanceOf(PAYER)).toBe(before);
      await client.close();
    });

    describe("x402's MCP extension binding (org.x402/payment, 2026-07-28)", () => {
      /** A refusal as the extension writes it: its own result type, the PaymentRequired in it, the server named. */
      const refusedInExtension = (result: RawResult) => {
        expect(result).not.toHaveProperty("isError");
        expect(result._meta?.["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "filing-data-service" });
        return PaymentRequiredExtensionResult.parse(result);
      };
      /** The payer signs what a refusal asks, read as x402's client reads untrusted input (its own schema). */
      const signed = async (refusal: PaymentRequiredExtensionResult) => {
        const parsed = parsePaymentRequired(refusal.paymentRequired);
        expect(parsed.success).toBe(true);
        return payerClient(ANVIL_KEYS.payer).createPaymentPayload(parsed.data as PaymentRequired);
      };

      it("is advertised on server/discover only, and a client that speaks it gets refusals as payment_required: paid, receipted, a replay refused", async () => {
        const x402 = extensionAgent(main.base);
        const discovered = await x402.discover();
        expect(discovered).toMatchObject({ resultType: "complete", capabilities: { tools: {}, extensions: { "org.x402/payment": {} } } });
        const legacy = await agent(main.base); // 2025-11-25's initialize: the extension needs 2026-07-28's result types
        expect(legacy.client.getServerCapabilities()).not.toHaveProperty("extensions");
        await legacy.client.close();

        const before = ledger.balanceOf(PAYER);
        const refused = refusedInExtension(await x402.call("get_insider_transactions", { ticker: "JNJ" }));
        expect(refused.paymentRequired).toMatchObject({ x402Version: 2, error: "Payment required", accepts: [{ amount: "10000", network: "eip155:8453" }] });
        const payload = await signed(refused);
        const paid = await x402.call("get_insider_transactions", { ticker: "JNJ" }, { "x402/payment": payload });
        expect(paid.resultType).toBe("complete");
        expect((paid.structuredContent as { data: unknown[] }).data).toHaveLength(3);
        expect(paid._meta?.["x402/payment-response"]).toMatchObject({ success: true, payer: PAYER });
        expect(ledger.balanceOf(PAYER)).toBe(before - 10_000n);
        const replay = refusedInExtension(await x402.call("get_insider_transactions", { ticker: "JNJ" }, { "x402/payment": payload }));
        expect(replay.paymentRequired.error).toMatch(/nonce_already_used/);
        expect(ledger.balanceOf(PAYER)).toBe(before - 10_000n);
      });

      it("one payment sent ten times at once is charged once: one answer, nine payment_required", async () => {
        const x402 = extensionAgent(main.base);
        const payload = await signed(refusedInExtension(await x402.call("get_latest_filings", { ticker: "HD" })));
        const before = ledger.balanceOf(PAYER);
        const results = await Promise.all(Array.from({ length: 10 }, () => x402.call("get_latest_filings", { ticker: "HD" }, { "x402/payment": payload })));
        const answered = results.filter((r) => r.resultType === "complete");
        expect(answered).toHaveLength(1);
        expect(answered[0]!._meta?.["x402/payment-response"]).toMatchObject({ success: true });
        for (const refused of results.filter((r) => r.resultType !== "complete")) expect(refusedInExtension(refused).paymentRequired.error).toMatch(/nonce_already_used|payment_in_flight/);
        expect(ledger.balanceOf(PAYER)).toBe(before - 10_000n);
      });

      it("a failed settlement withholds the answer: payment_required with the failed receipt in _meta", async () => {
        const x402 = extensionAgent(main.base);
        const payload = await signed(refusedInExtension(await x402.call("get_earnings_summary", { ticker: "DIS" })));
        const before = ledger.balanceOf(PAYER);
        ledger.failNextSettlement();
        const failed = await x402.call("get_earnings_summary", { ticker: "DIS" }, { "x402/payment": payload });
        expect(JSON.stringify(failed)).not.toContain("fiscal_year");
        const refusal = refusedInExtension(failed);
        expect(refusal.paymentRequired.error).toMatch(/^settlement_failed/);
        expect(refusal._meta?.["x402/payment-response"]).toMatchObject({ success: false, errorReason: expect.any(String) });
        expect(ledger.balanceOf(PAYER)).toBe(before);
      });

      it("only payment refusals take the extension's type: a key's answer, an uncovered ticker, and clients that do not speak it are as before", async () => {
        const keyed = await extensionAgent(main.base, { authorization: `Bearer ${key}` }).call("get_latest_filings", { ticker: "AAPL", limit: 2 });
        expect(keyed).toMatchObject({ resultType: "complete", structuredContent: { data: [{}, {}] } });
        // An error payment cannot resolve is a tool error, never a request for payment (nor a charge).
        const uncovered = await extensionAgent(main.base).call("get_latest_filings", { ticker: "ZZZZ" });
        expect(uncovered).toMatchObject({ resultType: "complete", isError: true });
        expect(JSON.parse((uncovered.content as { text: string }[])[0]!.text)).toMatchObject({ error: { code: "ticker_not_covered" } });
        // The extension's type goes only to a 2026-07-28 client that advertises it: without it, the tool-result binding.
        const silent = await extensionAgent(main.base, {}, false).call("get_latest_filings", { ticker: "AAPL" });
        expect(silent).toMatchObject({ resultType: "complete", isError: true, structuredContent: { x402Version: 2 } });
        const v1 = await agent(main.base); // a 2025 client claiming the capability in _meta: 2025 has no such result type
        const legacy = await v1.call("get_latest_filings", { ticker: "AAPL" }, { "io.modelcontextprotocol/clientCapabilities": { extensions: { "org.x402/payment": {} } } });
        expect(paymentRequiredOf(legacy)).toMatchObject({ x402Version: 2 });
        await v1.client.close();
      });

      it("a call the SDK serves itself (a progress token in _meta) is answered in the extension too", async () => {
        const refused = refusedInExtension(await extensionAgent(main.base).call("get_latest_filings", { ticker: "AAPL" }, { progressToken: "p-1" }));
        expect(refused.paymentRequired.accepts[0]).toMatchObject({ amount: "10000" });
      });
    });

    it("an empty answer is returned and not charged", async () => {
      const { client } = await agent(main.base);
      const before = ledger.balanceOf(PAYER);
      const { paid } = await callPaying(client, payerClient(ANVIL_KEYS.payer), "get_insider_transactions", { ticker: "AAPL" });
      expect((paid.structuredContent as { data: unknown[] }).data).toEqual([]);
      expect(receiptOf(paid)).toBeNull();
      expect(ledger.balanceOf(PAYER)).toBe(before);
      await client.close();
    });

    it("every PaymentRequired names the service, offers payment-identifier and describes its tool in Bazaar's MCP form", async () => {
      const { call, tools, client } = await agent(main.base);
      for (const route of PAID_ROUTES) {
        const required = paymentRequiredOf(await call(route.tool, route.example))!;
        expect(required.resource).toMatchObject({ url: "https://api.example.test/mcp", serviceName: SERVICE.name, tags: [...SERVICE.tags] });
        expect(required.extensions?.["payment-identifier"]).toMatchObject({ info: { required: false } });
        const bazaar = required.extensions!.bazaar as Parameters<typeof validateDiscoveryExtension>[0];
        expect(validateDiscoveryExtension(bazaar)).toMatchObject({ valid: true });
        const payload = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required);
        const info = extractDiscoveryInfo(payload, required.accepts[0]!); // as a cataloguing facilitator reads it
        expect(info).toMatchObject({ resourceUrl: "https://api.example.test/mcp", serviceName: SERVICE.name, toolName: route.tool, discoveryInfo: { input: { type: "mcp", toolName: route.tool, transport: "streamable-http" } } });
        expect((info!.discoveryInfo.input as { inputSchema: unknown }).inputSchema).toEqual(tools.find((t) => t.name === route.tool)!.inputSchema);
      }
      await client.close();
    });

    it("a retry with the same payment identifier gets the same answer and receipt and is charged once", async () => {
      const id = generatePaymentId();
      const { client, call } = await agent(main.base);
      const before = ledger.balanceOf(PAYER);
      const first = await callPaying(client, payerClient(ANVIL_KEYS.payer, id), "get_latest_filings", { ticker: "HD", limit: 5 });
      expect(first.paid.isError).toBeFalsy();
      expect(ledger.balanceOf(PAYER)).toBe(before - 10_000n);
      // The answer was lost: the very payload again, then a newly signed one with the same identifier.
      const again = await call("get_latest_filings", { ticker: "HD", limit: 5 }, { "x402/payment": first.payload });
      const resigned = await callPaying(client, payerClient(ANVIL_KEYS.payer, id), "get_latest_filings", { ticker: "HD", limit: 5 });
      for (const retry of [again, resigned.paid]) {
        expect(retry.structuredContent).toEqual(first.paid.structuredContent);
        expect(receiptOf(retry)).toEqual(receiptOf(first.paid));
        expect(retry._meta?.["idempotent-replayed"]).toBe(true); // the receipt is of the first payment
      }
      expect(first.paid._meta?.["idempotent-replayed"]).toBeUndefined();
      expect(ledger.balanceOf(PAYER)).toBe(before - 10_000n);
      const other = await callPaying(client, payerClient(ANVIL_KEYS.payer, id), "get_latest_filings", { ticker: "HD", limit: 6 });
      expect(errorOf(other.paid).code).toBe("idempotency_conflict");
      expect(ledger.balanceOf(PAYER)).toBe(before - 10_000n);
      await client.close();
    });

    it("the same payload 20 times in one JSON-RPC batch: one answer with data, one verification, one settlement", async () => {
      const { call, client } = await agent(main.base);
      const payload = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(paymentRequiredOf(await call("get_insider_transactions", { ticker: "JNJ" }))!);
      await client.close();
      const [balance, verifies, settles] = [ledger.balanceOf(PAYER), facilitator.verifies, facilitator.settles];
      const batch = Array.from({ length: 20 }, (_, id) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "get_insider_transactions", arguments: { ticker: "JNJ" }, _meta: { "x402/payment": payload } },
      }));
      const res = await rpc(main.base, batch, { "mcp-protocol-version": "2025-03-26" });
      expect(res.status).toBe(200);
      const replies = (await res.json()) as { id: number; result: CallToolResult }[];
      expect(replies.map((r) => r.id).sort((a, b) => a - b)).toEqual(batch.map((m) => m.id));
      const answered = replies.filter((r) => !r.result.isError);
      expect(answered).toHaveLength(1);
      expect(receiptOf(answered[0]!.result)).toMatchObject({ success: true });
      for (const reply of replies.filter((r) => r.result.isError)) expect(paymentRequiredOf(reply.result)?.error).toMatch(/^payment_in_flight/);
      expect([ledger.balanceOf(PAYER), facilitator.verifies, facilitator.settles]).toEqual([balance - 10_000n, verifies + 1, settles + 1]);
    });

    it("malformed payments in _meta are 402 tool errors naming the fault: never a 5xx, nothing on stderr", async () => {
      const { call, client } = await agent(main.base);
      const valid = (await payerClient(ANVIL_KEYS.payer).createPaymentPayload(paymentRequiredOf(await call("get_latest_filings", { ticker: "WMT" }))!)) as PaymentPayload;
      const before = [ledger.balanceOf(PAYER), facilitator.verifies];
      const quiet = quietConsole();
      try {
        for (const { name, value } of malformedPayments(valid)) {
          const result = await call("get_latest_filings", { ticker: "WMT" }, { "x402/payment": value });
          expect(errorOf(result).code, name).toBe("payment_required");
          expect(paymentRequiredOf(result)?.error, name).toMatch(/^invalid_(payload|payment_identifier)/);
        }
      } finally {
        expect(quiet.restore()).toEqual([]);
      }
      expect([ledger.balanceOf(PAYER), facilitator.verifies]).toEqual(before);
      await client.close();
    });
  });

  it("a refused call whose payment found its address's allowance spent is held like any refused traffic", async () => {
    // Issue 39: any `_meta["x402/payment"]` skipped the one-second hold on refused traffic (300 answered in 0.3 s).
    const limited = await served(data.dataDir, { env: { FREE_RATE_PER_MINUTE: "1", FREE_BURST: "2" }, facilitator: createLocalFacilitator(ledger) });
    try {
      const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_insider_transactions", arguments: { ticker: "JNJ" }, _meta: { "x402/payment": 0 } } };
      for (let i = 0; i < 2; i++) await rpc(limited.base, call); // the allowance, spent on refused payments
      const started = performance.now();
      const replies = await Promise.all(Array.from({ length: 10 }, () => rpc(limited.base, call)));
      expect(performance.now() - started).toBeGreaterThanOrEqual(900);
      for (const reply of replies) {
        expect(reply.headers.get("retry-after")).toMatch(/^\d+$/);
        const { result } = (await reply.json()) as { result: CallToolResult };
        expect(errorOf(result).code).toBe("rate_limited");
      }
    } finally {
      await limited.close();
    }
  });

  it("the usual tools/list and tools/call, answered from stored bytes, are the SDK's own replies on both generations", async () => {
    // A `_meta` key the fast path does not know sends the very same request through the SDK's Server (mcp-fast.ts).
    const envelope2026 = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const requests: { method: string; params: { name?: string; arguments?: Record<string, unknown> } }[] = [{ method: "tools/list", params: {} }, ...TOOLS.map((r) => ({ method: "tools/call", params: { name: r.tool, arguments: GOOD_ARGS[r.tool]! } }))];
    for (const era of ["2025-11-25", "2026-07-28"]) {
      for (const { method, params } of requests) {
        const modern = era === "2026-07-28";
        const headers = {
          authorization: `Bearer ${key}`,
          "mcp-protocol-version": era,
          ...(modern ? { "mcp-method": method, ...(params.name ? { "mcp-name": params.name } : {}) } : {}),
        };
        const replyTo = async (meta: Record<string, unknown>) =>
          sameTime(await (await rpc(main.base, { jsonrpc: "2.0", id: 7, method, params: { ...params, _meta: meta } }, headers)).json());
        const base = modern ? envelope2026 : {};
        await replyTo(base); // the document now in memory for both (meta.cache)
        expect(await replyTo(base), `${era} ${method} ${params.name ?? ""}`).toEqual(await replyTo({ ...base, "test/through": "sdk" }));
      }
    }
  });

  it("tool arguments nested 10,000 deep are invalid_parameter naming the argument, and capabilities so deep invalid params: never a 5xx", async () => {
    // Written as text: no client library can serialise it (the SDK's own overflows), but the wire carries it.
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    for (const tool of ["get_latest_filings", "probe_coverage"]) {
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":{"ticker":${deep}}}}`;
      const reply = await fetch(`${main.base}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` }, body });
      const error = errorOf(((await reply.json()) as { result: CallToolResult }).result);
      expect([error.code, error.message], tool).toEqual(["invalid_parameter", expect.stringContaining('"ticker"')]);
    }
    // The same depth in a 2026-07-28 call's capabilities: the SDK's invalid-params error, never a 5xx.
    const envelope = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":${deep}}}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_latest_filings","arguments":{"ticker":"AAPL"},"_meta":${envelope}}}`;
    const headers = { ...MCP_HEADERS, authorization: `Bearer ${key}`, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_latest_filings" };
    const reply = await fetch(`${main.base}/mcp`, { method: "POST", headers, body });
    expect(reply.status).toBeLessThan(500);
    expect(((await reply.json()) as { error?: { code: number } }).error?.code).toBe(-32602);
  });

  it("transport limits: a batch over the cap, GET and a wrong Accept are refused as the SDK's transport would", async () => {
    const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
    const capped = await rpc(main.base, Array.from({ length: MAX_BATCH }, (_, i) => list(i)));
    expect((await capped.json()) as unknown[]).toHaveLength(MAX_BATCH);
    const over = await rpc(main.base, Array.from({ length: MAX_BATCH + 1 }, (_, i) => list(i)));
    expect(over.status).toBe(400);
    expect(await over.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
    const get = await fetch(`${main.base}/mcp`);
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
    const html = await fetch(`${main.base}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, accept: "text/html" }, body: JSON.stringify(list(1)) });
    expect(html.status).toBe(406);
    const notJson = await fetch(`${main.base}/mcp`, { method: "POST", headers: MCP_HEADERS, body: "{" });
    expect([notJson.status, (await notJson.json()).error.code]).toEqual([400, -32700]);
  });

  it("a body however it arrives: with its headers, after them, cut inside a character, chunked; each read whole", async () => {
    const port = Number(new URL(main.base).port);
    const head = (extra: string) =>
      `POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
      `Authorization: Bearer ${key}\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: get_latest_filings\r\n${extra}Connection: close\r\n\r\n`;
    const call = (id: string) =>
      Buffer.from(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "get_latest_filings", arguments: { ticker: "AAPL", limit: 3 }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
        }),
      );
    const sized = (body: Buffer) => head(`Content-Length: ${body.length}\r\n`);
    const reply = async (pieces: (string | Buffer)[]) => {
      const answer = await rawInPieces(port, pieces, 40, 5_000);
      const [status, ...rest] = answer.split("\r\n\r\n");
      expect(status).toMatch(/^HTTP\/1\.1 200 /);
      return sameTime(JSON.parse(rest.join("\r\n\r\n")) as Parameters<typeof sameTime>[0]) as { id: string; result: { isError?: boolean } };
    };
    const ids = ["whole", "after", "cut ☕ inside", "chunked"];
    const [whole, after, cut, chunked] = ids.map(call);
    const cutAt = cut!.indexOf(Buffer.from("☕")) + 1; // between the bytes of one character
    const warm = call("warm"); // the document read once, so every reply below says cache "hit"
    await reply([Buffer.concat([Buffer.from(sized(warm)), warm])]);
    const replies = await Promise.all([
      reply([Buffer.concat([Buffer.from(sized(whole!)), whole!])]),
      reply([sized(after!), after!]),
      reply([Buffer.concat([Buffer.from(sized(cut!)), cut!.subarray(0, cutAt)]), cut!.subarray(cutAt)]),
      reply([head("Transfer-Encoding: chunked\r\n"), `${chunked!.length.toString(16)}\r\n`, chunked!, "\r\n0\r\n\r\n"]),
    ]);
    expect(replies.map((r) => r.id)).toEqual(ids);
    expect(replies[0]!.result.isError).toBeUndefined();
    for (const r of replies) expect(r.result).toEqual(replies[0]!.result);
  });

  /** An agent that pays over MCP without a key, on a given gateway. */
  async function callPayingDirect(base: string, name: string, args: Record<string, unknown>) {
    const { client } = await agent(base);
    try {
      return await callPaying(client, payerClient(ANVIL_KEYS.payer), name, args);
    } finally {
      await client.close();
    }
  }
});
