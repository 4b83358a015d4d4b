import fc from "fast-check";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { describeEdgar } from "../test/_edgar.ts";
import { buildTestData, testGateway } from "../test/_gateway.ts";
import { removeDir } from "../test/_s3.ts";

// Property-based fuzzing of every endpoint's query string and headers and of the MCP body (issue 8): hostile and
// random values, 10,000 cases a run. Properties: no 5xx (but the unconfigured subscription routes), every error in the error body (JSON-RPC errors on /mcp),
// no document read for a ticker the snapshot does not cover, and the process still answers afterwards.

const PATHS = ["/health", "/probe", "/tickers", "/filings/latest", "/earnings/summary", "/insiders", "/financials", "/openapi.json", "/llms.txt", "/mcp", "/subscribe"];
const HOSTILE = [
  "../../etc/passwd", "..%2F..%2Fcurrent.json", "AAPL/../../keys", "\u0000", "\r\nX-Injected: 1", "__proto__", "constructor",
  "prototype", "AAPL\u202e", "ＡＡＰＬ", "A".repeat(5000), "%00", "${jndi:ldap://x}", "<script>", "-1", "1e2", "0x10", "NaN", "",
];
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(...HOSTILE), fc.constantFrom("AAPL", "aapl", "BRK.B", "JNJ", "MSFT", "ZZZZ", "2023", "FY2023", "CY2023Q4", "annual", "2026-02-30", "2024-02-29", "10-K", "4", "ttm", "balance", "cash_flow", "all", "true"));
const paramName = fc.oneof(fc.constantFrom("ticker", "form", "limit", "period", "since", "statement", "as_of", "history", "__proto__", "constructor", "ticker[]", "TICKER"), fc.string({ maxLength: 12 }));
const base64 = (value: string) => Buffer.from(value).toString("base64");
const header = fc.oneof(
  text,
  fc.string({ maxLength: 200 }).map(base64),
  fc.constantFrom(1, 2, 3, "2", null).map((v) => base64(JSON.stringify({ x402Version: v, payload: { signature: "0x00" }, accepted: { scheme: "exact" } }))),
  fc.constant(base64('{"__proto__":{"polluted":true},"x402Version":2}')),
  fc.constant("x".repeat(8000)),
);
const request = fc.record({
  path: fc.oneof(fc.constantFrom(...PATHS), fc.constantFrom(...HOSTILE).map((h) => `/${h}`), fc.string({ maxLength: 30 }).map((s) => `/${encodeURIComponent(s)}`)),
  method: fc.constantFrom("GET", "GET", "GET", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"),
  query: fc.array(fc.tuple(paramName, text), { maxLength: 5 }),
  headers: fc.record(
    { authorization: fc.oneof(header, header.map((h) => `Bearer ${h}`), fc.constant("Bearer fds_" + "A".repeat(43))), "x-api-key": header, "payment-signature": header },
    { requiredKeys: [] },
  ),
  mcpBody: fc.oneof(
    fc.string({ maxLength: 100 }),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.record({ name: fc.constantFrom("probe_coverage", "get_latest_filings", "get_earnings_summary", "get_insider_transactions", "get_financials", "nope"), args: fc.dictionary(paramName, fc.oneof(text, fc.integer(), fc.jsonValue({ maxDepth: 2 }))), meta: fc.option(fc.jsonValue({ maxDepth: 3 })) })
      .map(({ name, args, meta }) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args, ...(meta === null ? {} : { _meta: { "x402/payment": meta } }) } })),
  ),
});

describeEdgar("fuzzing the gateway", () => {
  let data: { dataDir: string; mirror: string };
  let gw: ReturnType<typeof testGateway>;
  const documentsRead: string[] = [];
  beforeAll(async () => {
    data = await buildTestData();
    gw = testGateway(data.dataDir);
    const original = gw.snapshots.document.bind(gw.snapshots);
    gw.snapshots.document = (snapshot, ticker, kind) => {
      documentsRead.push(ticker);
      return original(snapshot, ticker, kind);
    };
  });
  afterAll(() => {
    gw?.close();
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  it("10,000 hostile requests: no 5xx, every error in its body, no read outside the snapshot, still alive", async () => {
    // @x402/core reports each undecodable PAYMENT-SIGNATURE on the console; thousands of those lines say nothing here.
    const quiet = [vi.spyOn(console, "error").mockImplementation(() => {}), vi.spyOn(console, "warn").mockImplementation(() => {})];
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const url = new URL(`http://gateway.test${r.path}`);
        for (const [name, value] of r.query) url.searchParams.append(name, value);
        const headers = new Headers();
        for (const [name, value] of Object.entries(r.headers)) {
          try {
            headers.set(name, String(value));
          } catch {
            // a value no HTTP client could send (a bare CR or LF); skip that header
          }
        }
        const isMcp = r.path === "/mcp" && r.method === "POST";
        if (isMcp) {
          headers.set("content-type", "application/json");
          headers.set("accept", "application/json, text/event-stream");
        }
        const res = await gw.app.fetch(new Request(url, { method: r.method, headers, ...(isMcp ? { body: r.mcpBody } : {}) }));
        const body = await res.text();
        // The one 5xx by design here: subscriptions are not configured in this gateway (503 subscriptions_unavailable).
        if (res.status >= 500) expect(JSON.parse(body).error.code).toBe("subscriptions_unavailable");
        if (res.status >= 400) {
          const parsed = JSON.parse(body);
          if (isMcp) expect(parsed.error ?? parsed).toBeDefined();
          else expect(parsed.error).toMatchObject({ code: expect.any(String), message: expect.any(String), hint: expect.any(String) });
        }
      }),
      { numRuns: 10_000 },
    ).finally(() => quiet.forEach((spy) => spy.mockRestore()));
    const { manifest } = gw.snapshots.held!;
    for (const ticker of new Set(documentsRead)) expect(manifest.tickers[ticker]?.covered).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await gw.get("/health")).status).toBe(200);
  }, 300_000);
});
