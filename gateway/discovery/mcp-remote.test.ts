// /mcp through mcp-remote, the stdio bridge that clients speaking only stdio (Claude Desktop's config, many IDEs) use to
// reach a remote MCP server: the SDK client talks to it over stdio, it relays to /mcp over streamable HTTP. Tools list,
// free and refused calls, and a paid call with its payment in `_meta` all pass through it unchanged.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { serve } from "h3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROUTES } from "../../schemas/api.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, testGateway } from "../../test/_gateway.ts";
import { agentBridged, type Agent } from "../../test/_mcp.ts";
import { removeDir } from "../../test/_s3.ts";
import { addressOf, ANVIL_KEYS, callPaying, payerClient, paymentRequiredOf, receiptOf } from "../../test/_x402.ts";
import { createLocalFacilitator } from "../payment/dev-chain/facilitator.ts";
import { createUsdcLedger } from "../payment/dev-chain/ledger.ts";

const PAYER = addressOf(ANVIL_KEYS.payer);

describeEdgar("MCP through mcp-remote (a stdio client's bridge to /mcp)", () => {
  let data: { dataDir: string; mirror: string };
  let gw: ReturnType<typeof testGateway>;
  let server: ReturnType<typeof serve>;
  let base: string;
  let agent: Agent;
  let home: string;
  const ledger = createUsdcLedger();

  beforeAll(async () => {
    data = await buildTestData();
    ledger.fund(PAYER, 1_000_000n);
    gw = testGateway(data.dataDir, { facilitator: createLocalFacilitator(ledger) });
    server = serve(gw.app, { port: 0, hostname: "127.0.0.1", silent: true });
    await server.ready();
    base = server.url!.replace(/\/$/, "");
    // mcp-remote keeps OAuth state under ~/.mcp-auth: a home of its own, removed afterwards.
    home = mkdtempSync(join(tmpdir(), "mcp-remote-home-"));
    // An SDK client on stdio through mcp-remote, as a client's configuration runs it, the tools listed first (test/_mcp.ts).
    agent = await agentBridged(base, home);
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
    gw?.close();
    await server?.close(true);
    if (home) rmSync(home, { recursive: true, force: true });
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  it("lists every tool, and a free tool answers as the HTTP route does", async () => {
    expect(agent.tools.map((t) => t.name).sort()).toEqual(ROUTES.filter((r) => r.tool !== null).map((r) => r.tool).sort());
    const probe = await agent.call("probe_coverage", { ticker: "AAPL" });
    const http = (await (await fetch(`${base}/probe?ticker=AAPL`)).json()) as { data: unknown };
    expect((probe.structuredContent as { data: unknown }).data).toEqual(http.data);
  });

  it("a paid tool: refused with x402's PaymentRequired, then paid once through `_meta`, its receipt relayed back", async () => {
    const before = ledger.balanceOf(PAYER);
    const { unpaid, paid } = await callPaying(agent.client, payerClient(ANVIL_KEYS.payer), "get_earnings_summary", { ticker: "AAPL", period: "FY2023" });
    expect(unpaid.isError).toBe(true);
    const required = paymentRequiredOf(unpaid)!;
    expect(required.accepts[0]).toMatchObject({ scheme: "exact", amount: "20000" });
    expect(paid.isError).toBeFalsy();
    expect(receiptOf(paid)).toMatchObject({ success: true, payer: PAYER });
    expect(ledger.balanceOf(PAYER)).toBe(before - 20_000n);
    const http = (await (await fetch(`${base}/earnings/summary?ticker=AAPL&period=FY2023`, { headers: { authorization: `Bearer ${(await gw.keys.create("check")).key}` } })).json()) as { data: unknown };
    expect((paid.structuredContent as { data: unknown }).data).toEqual(http.data);
  });

  it("with an API key in a headers file (--header-file), a paid tool answers without payment", async () => {
    const headers = join(home, "filing-data.headers");
    writeFileSync(headers, `# the service's API key\nAuthorization: Bearer ${(await gw.keys.create("stdio")).key}\n`);
    const keyed = await agentBridged(base, home, ["--header-file", headers]);
    try {
      const before = ledger.balanceOf(PAYER);
      const answer = await keyed.call("get_latest_filings", { ticker: "AAPL", limit: 2 });
      expect(answer.isError).toBeFalsy();
      expect((answer.structuredContent as { data: unknown[] }).data).toHaveLength(2);
      expect(receiptOf(answer)).toBeNull();
      expect(ledger.balanceOf(PAYER)).toBe(before);
    } finally {
      await keyed.close();
    }
  });

  it("a client's bad input is the error body, code and hint, not a protocol failure", async () => {
    const bad: CallToolResult = await agent.call("get_earnings_summary", { ticker: "ZZZZ" });
    expect(bad.isError).toBe(true);
    const body = JSON.parse((bad.content[0] as { text: string }).text) as { error: { code: string; hint: string } };
    expect(body.error.code).toBe("ticker_not_covered");
    expect(body.error.hint).toMatch(/Nothing was charged/);
  });
});
