import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PaymentRequired } from "@x402/core/types";
import { serve } from "h3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEdgar } from "../test/_edgar.ts";
import { buildTestData, testGateway } from "../test/_gateway.ts";
import { removeDir } from "../test/_s3.ts";
import { addressOf, ANVIL_KEYS, payerClient } from "../test/_x402.ts";
import { createUsdcLedger } from "./payments/ledger.ts";
import { createLocalFacilitator } from "./payments/local-facilitator.ts";
import { DEV_PAY_TO } from "./server.ts";

const PAYER = addressOf(ANVIL_KEYS.payer);

describeEdgar("MCP at /mcp with the SDK's own client", () => {
  let data: { dataDir: string; mirror: string };
  let gw: ReturnType<typeof testGateway>;
  let server: ReturnType<typeof serve>;
  let base: string;
  let key: string;
  const ledger = createUsdcLedger();
  ledger.fund(PAYER, 1_000_000n);

  beforeAll(async () => {
    data = await buildTestData();
    gw = testGateway(data.dataDir, { facilitator: createLocalFacilitator(ledger) });
    key = (await gw.keys.create("mcp")).key;
    server = serve(gw.app, { port: 0, hostname: "127.0.0.1", silent: true });
    await server.ready();
    base = server.url!.replace(/\/$/, "");
  });
  afterAll(async () => {
    gw?.close();
    await server?.close(true);
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  async function connect(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: "test-agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;

  it("lists the tools with input schemas from the zod parameter schemas", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["get_earnings_summary", "get_financials", "get_insider_transactions", "get_latest_filings", "list_tickers", "probe_coverage"]);
    const filings = tools.find((t) => t.name === "get_latest_filings")!;
    expect(filings.inputSchema.required).toEqual(["ticker"]);
    expect(filings.inputSchema.properties).toHaveProperty("limit");
    expect(filings.outputSchema?.properties).toHaveProperty("data");
    await client.close();
  });

  it("calls the free probe tool", async () => {
    const client = await connect();
    const result = await call(client, "probe_coverage", { ticker: "brk.b" });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as any).data.ticker_coverage).toMatchObject({ ticker: "BRK-B" });
    await client.close();
  });

  it("a paid tool with a key returns the same data as the HTTP endpoint", async () => {
    const client = await connect({ authorization: `Bearer ${key}` });
    const result = await call(client, "get_earnings_summary", { ticker: "AAPL", period: "annual" });
    expect(result.isError).toBeFalsy();
    const http = await (await fetch(`${base}/earnings/summary?ticker=AAPL&period=annual`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect((result.structuredContent as any).data).toEqual(http.data);
    expect(JSON.parse((result.content[0] as { text: string }).text).data).toEqual(http.data);
    await client.close();
  });

  it("an unpaid call is a tool error carrying the payment requirements; a real x402 payment then succeeds", async () => {
    const client = await connect();
    const unpaid = await call(client, "get_insider_transactions", { ticker: "JNJ" });
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as unknown as PaymentRequired;
    expect(required).toMatchObject({ x402Version: 2, resource: { url: "mcp://tool/get_insider_transactions" } });
    expect(required.accepts[0]).toMatchObject({ scheme: "exact", network: "eip155:8453", amount: "10000", payTo: DEV_PAY_TO });
    const before = ledger.balanceOf(PAYER);
    const payload = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required);
    const paid = await call(client, "get_insider_transactions", { ticker: "JNJ" }, { "x402/payment": payload });
    expect(paid.isError).toBeFalsy();
    expect((paid.structuredContent as any).data).toHaveLength(3);
    expect(paid._meta?.["x402/payment-response"]).toMatchObject({ success: true, payer: PAYER });
    expect(ledger.balanceOf(PAYER)).toBe(before - 10_000n);
    const replay = await call(client, "get_insider_transactions", { ticker: "JNJ" }, { "x402/payment": payload });
    expect(replay.isError).toBe(true);
    expect(ledger.balanceOf(PAYER)).toBe(before - 10_000n);
    await client.close();
  });

  it("an empty answer is returned and not charged", async () => {
    const client = await connect();
    const required = (await call(client, "get_insider_transactions", { ticker: "AAPL" })).structuredContent as unknown as PaymentRequired;
    const before = ledger.balanceOf(PAYER);
    const payload = await payerClient(ANVIL_KEYS.payer).createPaymentPayload(required);
    const result = await call(client, "get_insider_transactions", { ticker: "AAPL" }, { "x402/payment": payload });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as any).data).toEqual([]);
    expect(result._meta?.["x402/payment-response"]).toBeUndefined();
    expect(ledger.balanceOf(PAYER)).toBe(before);
    await client.close();
  });

  it("bad arguments are a tool error, not a transport failure", async () => {
    const client = await connect({ authorization: `Bearer ${key}` });
    const bad = await call(client, "get_latest_filings", { ticker: "../etc", limit: 500 });
    expect(bad.isError).toBe(true);
    expect((bad.content[0] as { text: string }).text).toMatch(/ticker|limit/);
    await client.close();
  });

  it("an uncovered ticker is an error before any payment; a bad key is invalid_api_key", async () => {
    const client = await connect();
    const uncovered = await call(client, "get_earnings_summary", { ticker: "MSFT" });
    expect(uncovered.isError).toBe(true);
    expect((uncovered.structuredContent as any).error.code).toBe("ticker_not_covered");
    await client.close();
    const badKey = await connect({ authorization: "Bearer fds_wrong" });
    expect(((await call(badKey, "get_latest_filings", { ticker: "AAPL" })).structuredContent as any).error.code).toBe("invalid_api_key");
    await badKey.close();
  });

  it("GET /mcp is 405", async () => {
    const res = await fetch(`${base}/mcp`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});
