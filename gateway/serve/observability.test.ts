// What an operator sees of the gateway as deployed (issue 42): `node gateway/cli.ts` with METRICS_PORT, real traffic
// over HTTP and MCP — keyed calls, an x402 payment settled on the dev ledger, refused payments, tool calls — then one
// log line per request with every field and no secret, and a metrics scrape, on its own loopback listener, whose
// counters moved by exactly that traffic.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { wrapFetchWithPayment } from "@x402/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData } from "../../test/_gateway.ts";
import { startGatewayProcess, type GatewayProcess } from "../../test/_gateway-process.ts";
import { scrape, total, type Sample } from "../../test/_metrics.ts";
import { removeDir } from "../../test/_s3.ts";
import { addressOf, ANVIL_KEYS, callPaying, payerClient } from "../../test/_x402.ts";
import { KeyStore } from "../payment/keys.ts";

const PAYER = addressOf(ANVIL_KEYS.payer).toLowerCase();

describeEdgar("what an operator sees of the gateway (issue 42)", () => {
  let data: { dataDir: string; mirror: string };
  let gateway: GatewayProcess;
  let key: string;
  let keyId: string;
  let metricsUrl: string;
  let before: Sample[];
  let after: Sample[];
  /** Everything the traffic sent that must never be logged: the key, the payment headers and signatures. */
  const secrets: string[] = [];

  beforeAll(async () => {
    data = await buildTestData();
    ({ key, id: keyId } = await new KeyStore(openStorage(data.dataDir)).create("operator test"));
    secrets.push(key, key.slice(4)); // the key, and its random part alone
    gateway = await startGatewayProcess({ DATA_URL: data.dataDir, METRICS_PORT: "0", FREE_RATE_PER_MINUTE: "0" });
    metricsUrl = gateway.lines.find((l) => l.event === "metrics_listening")!.url as string;
    before = await scrape(metricsUrl);

    const keyed = { authorization: `Bearer ${key}` };
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gateway.url}${path}`, { headers });
    // Two keyed calls: the first checks the key in the store and reads the document (a cache miss), the second is the
    // usual call answered from memory.
    for (let i = 0; i < 2; i++) expect((await get("/filings/latest?ticker=AAPL&limit=3", keyed)).status).toBe(200);
    // An x402 payment, as a buyer makes it: refused unpaid (402), then signed and settled on the dev ledger. Every
    // PAYMENT-SIGNATURE it sends is kept, to be looked for in the log.
    const sending: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      const signature = request.headers.get("payment-signature");
      if (signature) secrets.push(signature);
      return fetch(request);
    };
    const paid = await wrapFetchWithPayment(sending, payerClient(ANVIL_KEYS.payer))(`${gateway.url}/earnings/summary?ticker=AAPL`);
    expect(paid.status).toBe(200);
    expect(secrets).toHaveLength(3);
    // A payment that is no payment: refused.
    const garbage = "bm90IGEgcGF5bWVudA==";
    secrets.push(garbage);
    expect((await get("/insiders?ticker=AAPL", { "payment-signature": garbage })).status).toBe(402);
    // A key that is no key: refused; a bad parameter and a path that is no route (neither charged nor an error).
    expect((await get("/insiders?ticker=AAPL", { authorization: "Bearer fds_not-a-key-at-all" })).status).toBe(401);
    expect((await get("/filings/latest?ticker=AAPL&limit=0", keyed)).status).toBe(400);
    expect((await get("/no/such/route")).status).toBe(404);
    // The metrics are not on the public port.
    expect((await get("/metrics")).status).toBe(404);

    // Over MCP with the official client: a keyed tool call, and a tool call paid with x402.
    const client = new Client({ name: "operator-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: keyed } }));
    const answer = (await client.callTool({ name: "get_latest_filings", arguments: { ticker: "AAPL", limit: 2 } })) as CallToolResult;
    expect(answer.isError).toBeFalsy();
    await client.close();
    const buyer = new Client({ name: "operator-test-buyer", version: "1.0.0" });
    await buyer.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
    const { paid: mcpPaid, payload } = await callPaying(buyer, payerClient(ANVIL_KEYS.payer), "get_insider_transactions", { ticker: "JNJ" });
    expect(mcpPaid.isError).toBeFalsy();
    secrets.push((payload!.payload as { signature: string }).signature);
    await buyer.close();

    after = await scrape(metricsUrl);
    // Lines are written in batches, in order: once the last request's is in, every earlier one is.
    await waitFor(() => gateway.lines.some((l) => l.event === "request" && l.tool === "get_insider_transactions" && l.result === "ok"));
  }, 120_000);

  afterAll(async () => {
    gateway?.child.kill("SIGTERM");
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  const moved = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);

  describe("the metrics, on their own loopback listener", () => {
    it("listen on loopback, apart from the public port", () => {
      expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(new URL(metricsUrl).port).not.toBe(new URL(gateway.url).port);
    });

    it("count requests by route, method and status, with their latency and bytes", () => {
      expect(moved("fds_http_requests_total", { route: "/filings/latest", method: "GET", status: "200" })).toBe(2);
      expect(moved("fds_http_requests_total", { route: "/filings/latest", status: "400" })).toBe(1);
      expect(moved("fds_http_requests_total", { route: "/earnings/summary", status: "402" })).toBe(1);
      expect(moved("fds_http_requests_total", { route: "/earnings/summary", status: "200" })).toBe(1);
      expect(moved("fds_http_requests_total", { route: "/insiders", status: "402" })).toBe(1);
      expect(moved("fds_http_requests_total", { route: "/insiders", status: "401" })).toBe(1);
      expect(moved("fds_http_requests_total", { route: "unmatched", status: "404" })).toBe(2); // /no/such/route and /metrics
      expect(moved("fds_http_requests_total", { route: "/mcp", method: "POST", status: "200" })).toBeGreaterThanOrEqual(4);
      expect(moved("fds_http_request_duration_seconds_count", { route: "/filings/latest" })).toBe(3);
      expect(moved("fds_http_request_duration_seconds_sum", { route: "/filings/latest" })).toBeGreaterThan(0);
      expect(moved("fds_http_response_bytes_total", { route: "/filings/latest" })).toBeGreaterThan(2 * 500);
    });

    it("count calls by how they were paid and what came of it; settlements, settled USD and refusals by reason", () => {
      expect(moved("fds_calls_total", { route: "/filings/latest", transport: "http", paid_by: "key", payment: "key" })).toBe(2);
      expect(moved("fds_calls_total", { route: "/filings/latest", transport: "mcp", paid_by: "key", payment: "key" })).toBe(1);
      expect(moved("fds_calls_total", { route: "/earnings/summary", transport: "http", paid_by: "x402", payment: "settled" })).toBe(1);
      expect(moved("fds_calls_total", { route: "/insiders", transport: "mcp", paid_by: "x402", payment: "settled" })).toBe(1);
      expect(moved("fds_settlements_total", { route: "/earnings/summary", transport: "http" })).toBe(1);
      expect(moved("fds_settled_usd_total", { route: "/earnings/summary", transport: "http" })).toBeCloseTo(0.02, 9);
      expect(moved("fds_settled_usd_total")).toBeCloseTo(0.03, 9);
      expect(moved("fds_payment_refusals_total", { route: "/earnings/summary", reason: "payment_required" })).toBe(1);
      expect(moved("fds_payment_refusals_total", { route: "/insiders", transport: "mcp", reason: "payment_required" })).toBe(1);
      expect(moved("fds_payment_refusals_total", { route: "/insiders", transport: "http", reason: "invalid_payload" })).toBe(1);
      expect(moved("fds_payment_refusals_total", { route: "/insiders", transport: "http", reason: "invalid_api_key" })).toBe(1);
    });

    it("time the facilitator's calls, count MCP tool calls by tool and result, and the document cache", () => {
      expect(moved("fds_facilitator_request_duration_seconds_count", { operation: "verify" })).toBe(2);
      expect(moved("fds_facilitator_request_duration_seconds_count", { operation: "settle" })).toBe(2);
      expect(moved("fds_facilitator_failures_total")).toBe(0);
      expect(moved("fds_mcp_tool_calls_total", { tool: "get_latest_filings", result: "ok" })).toBe(1);
      expect(moved("fds_mcp_tool_calls_total", { tool: "get_insider_transactions", result: "payment_required" })).toBe(1);
      expect(moved("fds_mcp_tool_calls_total", { tool: "get_insider_transactions", result: "ok" })).toBe(1);
      expect(moved("fds_document_cache_requests_total", { result: "miss" })).toBeGreaterThanOrEqual(3);
      expect(moved("fds_document_cache_requests_total", { result: "hit" })).toBeGreaterThanOrEqual(2);
    });

    it("say which snapshot is served and how old it is, and the process's own health", () => {
      const info = after.filter((s) => s.name === "fds_snapshot_info");
      expect(info).toHaveLength(1);
      expect(info[0]!.labels.build_id).toMatch(/^\d{8}T\d{6}/);
      expect(total(after, "fds_snapshot_age_seconds")).toBeGreaterThan(0);
      expect(total(after, "process_cpu_seconds_total")).toBeGreaterThan(0);
      expect(total(after, "fds_log_events_total", { level: "error" })).toBe(0); // nothing the clients did was the service's error
    });
  });

  describe("the log: one line per request", () => {
    const requests = () => gateway.lines.filter((l) => l.event === "request");

    it("for every request answered, at info, with method, route, status, duration, bytes and transport", () => {
      expect(requests().length).toBeGreaterThanOrEqual(12);
      for (const line of requests()) {
        expect(line).toMatchObject({ level: "info", method: expect.any(String), status: expect.any(Number), ms: expect.any(Number), bytes: expect.any(Number) });
        expect(["http", "mcp"]).toContain(line.transport);
        expect(line.route ?? line.path).toEqual(expect.any(String));
      }
      const unmatched = requests().find((l) => l.status === 404 && l.path === "/no/such/route");
      expect(unmatched).toMatchObject({ method: "GET", transport: "http" });
      expect(unmatched!.route).toBeUndefined();
    });

    it("names a keyed call's key by its id, and the snapshot that answered", () => {
      const keyedLines = requests().filter((l) => l.route === "/filings/latest" && l.status === 200);
      expect(keyedLines).toHaveLength(2);
      const snapshot = after.find((s) => s.name === "fds_snapshot_info")!.labels.build_id;
      for (const line of keyedLines) {
        expect(line).toMatchObject({ transport: "http", paid_by: "key", key_id: keyId, payment: "key", snapshot });
        expect(line.bytes).toBeGreaterThan(500);
      }
    });

    it("names an x402 payment by its payer, with the settlement's transaction and amount, or the refusal's reason", () => {
      const earnings = requests().filter((l) => l.route === "/earnings/summary");
      expect(earnings.find((l) => l.status === 402)).toMatchObject({ paid_by: "none", payment: "refused", reason: "Payment required" });
      expect(earnings.find((l) => l.status === 200)).toMatchObject({ paid_by: "x402", payer: PAYER, payment: "settled", tx: expect.stringMatching(/^0x[0-9a-f]{64}$/), usd: 0.02 });
      const insiders = requests().filter((l) => l.route === "/insiders");
      expect(insiders.find((l) => l.status === 402)).toMatchObject({ paid_by: "x402", payment: "refused", reason: expect.stringMatching(/^invalid_payload/) });
      expect(insiders.find((l) => l.status === 401)).toMatchObject({ paid_by: "key", payment: "refused", reason: "invalid_api_key" });
    });

    it("says which MCP tool was called, how it was paid and what came of it", () => {
      const tools = requests().filter((l) => l.transport === "mcp" && l.tool !== undefined);
      expect(tools.find((l) => l.tool === "get_latest_filings")).toMatchObject({ route: "/mcp", paid_by: "key", key_id: keyId, payment: "key", result: "ok" });
      expect(tools.find((l) => l.tool === "get_insider_transactions" && l.result === "payment_required")).toMatchObject({ paid_by: "none", payment: "refused" });
      expect(tools.find((l) => l.tool === "get_insider_transactions" && l.result === "ok")).toMatchObject({ paid_by: "x402", payer: PAYER, payment: "settled", usd: 0.01 });
    });

    it("is written once per request, however many arrive at once, as each is counted once", async () => {
      const from = await scrape(metricsUrl);
      const lines = requests().length;
      const statuses = await Promise.all(
        Array.from({ length: 60 }, (_, i) => fetch(`${gateway.url}/filings/latest?ticker=${i % 2 ? "AAPL" : "WMT"}&limit=1`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status)),
      );
      expect(statuses.every((status) => status === 200)).toBe(true);
      const to = await scrape(metricsUrl);
      expect(total(to, "fds_http_requests_total", { route: "/filings/latest", status: "200" }) - total(from, "fds_http_requests_total", { route: "/filings/latest", status: "200" })).toBe(60);
      expect(total(to, "fds_calls_total", { route: "/filings/latest", paid_by: "key" }) - total(from, "fds_calls_total", { route: "/filings/latest", paid_by: "key" })).toBe(60);
      await waitFor(() => requests().length >= lines + 60);
      await new Promise((resolve) => setTimeout(resolve, 200)); // a line written twice would be here by now
      expect(requests().slice(lines).filter((l) => l.route === "/filings/latest" && l.paid_by === "key")).toHaveLength(60);
    });

    it("never holds a key, a payment header or a signature, in any line", () => {
      const log = gateway.text.join("\n");
      for (const secret of secrets) expect(log).not.toContain(secret);
      // The x402 buyer's signatures: no 65-byte hex string (130 digits) appears anywhere.
      expect(log).not.toMatch(/0x[0-9a-f]{130}/i);
      expect(gateway.lines.filter((l) => l.level === "error")).toEqual([]);
    });
  });
});

async function waitFor(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
