import type { FacilitatorClient } from "@x402/core/server";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PAID_ROUTES, ROUTES } from "../../schemas/api.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, ROUTE_QUERIES, testGateway } from "../../test/_gateway.ts";
import { raw } from "../../test/_raw-http.ts";
import { removeDir } from "../../test/_s3.ts";
import { addressOf, ANVIL_KEYS, decodePaymentRequired, decodePaymentResponse, payerClient } from "../../test/_x402.ts";
import { serveHttp } from "./listen.ts";
import { loadConfig } from "../config.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { createUsdcLedger, type UsdcLedger } from "../payment/dev-chain/ledger.ts";
import { createLocalFacilitator } from "../payment/dev-chain/facilitator.ts";

// HTTP hygiene on a real port (issue 17): HEAD wherever GET is allowed — same status and headers, no body, never
// charged, never settled — other methods 405 (CONNECT included) or 400 with the error body, reason phrases on
// every status line. The x402 payment is real: signed by the payer's key, checked and settled on the in-memory chain.

const PAYER = addressOf(ANVIL_KEYS.payer);
const QUERY = ROUTE_QUERIES;
/** Paid routes whose answer here has rows, so a payment settles (the market feeds reach back from today: market.test.ts). */
const ANSWERING = PAID_ROUTES.filter((r) => QUERY[r.path]);
/** Headers that describe the connection or the moment, not the answer. */
const PER_MESSAGE = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length"]);

describeEdgar("HTTP hygiene on a real port", () => {
  let data: { dataDir: string; mirror: string };
  let gw: ReturnType<typeof testGateway>;
  let server: Awaited<ReturnType<typeof serveHttp>>;
  let base: string;
  let port: number;
  let key: string;
  let ledger: UsdcLedger;
  const facilitatorCalls: string[] = [];

  beforeAll(async () => {
    data = await buildTestData();
    ledger = createUsdcLedger();
    ledger.fund(PAYER, 1_000_000n);
    const local = createLocalFacilitator(ledger);
    // The facilitator the gateway talks to, counting what it is asked to do.
    const facilitator: FacilitatorClient = {
      getSupported: () => local.getSupported(),
      verify: (...args) => (facilitatorCalls.push("verify"), local.verify(...args)),
      settle: (...args) => (facilitatorCalls.push("settle"), local.settle(...args)),
    };
    gw = testGateway(data.dataDir, { facilitator });
    key = (await gw.keys.create("hygiene")).key;
    server = await serveHttp(gw.app, { port: 0, host: "127.0.0.1", timeouts: { headersMs: 5_000, requestMs: 10_000 }, connections: loadConfig({}).connections }, memoryLogger().log);
    base = server.url!.replace(/\/$/, "");
    port = Number(new URL(base).port);
  });
  afterAll(async () => {
    gw?.close();
    await server?.close(true);
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  const answerHeaders = (res: Response) => Object.fromEntries([...res.headers].filter(([name]) => !PER_MESSAGE.has(name)));
  const statusLine = async (request: string) => (await raw(port, request, 3_000)).split("\r\n")[0];

  it("HEAD on every GET route, with and without a key: the GET's status and headers, its length, and no body on the wire", async () => {
    const paths = [...ROUTES.map((r) => `${r.path}${QUERY[r.path] ? `?${QUERY[r.path]}` : ""}`), "/openapi.json", "/llms.txt", "/nope", "/insiders?ticker=ZZZZZZ", "/filings/latest?ticker=AAPL&limit=0"];
    for (const path of paths) {
      // identity: fetch would ask for gzip and hand back the inflated body, whose length is not the one sent (/tickers)
      const variants: Record<string, string>[] = [{ "accept-encoding": "identity" }, { "accept-encoding": "identity", authorization: `Bearer ${key}` }];
      for (const headers of variants) {
        await fetch(`${base}${path}`, { headers }); // the first read of a document says cache "miss", a byte more than "hit"
        const head = await fetch(`${base}${path}`, { method: "HEAD", headers });
        const get = await fetch(`${base}${path}`, { headers });
        const body = Buffer.from(await get.arrayBuffer());
        expect([path, head.status]).toEqual([path, get.status]);
        expect(answerHeaders(head)).toEqual(answerHeaders(get));
        expect(Number(head.headers.get("content-length"))).toBe(body.length);
        expect((await head.arrayBuffer()).byteLength).toBe(0);
      }
    }
    // On the wire: the head ends the message (Connection: close, so anything more would show).
    const wire = await raw(port, `HEAD /filings/latest?ticker=AAPL HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`, 3_000);
    expect(wire).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(wire.endsWith("\r\n\r\n")).toBe(true);
  });

  it("HEAD with a real x402 payment is the unpaid 402: nothing verified, settled or charged, and the signature still pays a GET once", async () => {
    for (const route of ANSWERING) {
      const path = `${route.path}?${QUERY[route.path]}`;
      const required = await fetch(`${base}${path}`);
      expect(required.status).toBe(402);
      const signature = encodePaymentSignatureHeader(await payerClient(ANVIL_KEYS.payer).createPaymentPayload(decodePaymentRequired(required.headers.get("payment-required"))));
      const balance = ledger.balanceOf(PAYER);
      facilitatorCalls.length = 0;
      const heads = await Promise.all(Array.from({ length: 5 }, () => fetch(`${base}${path}`, { method: "HEAD", headers: { "payment-signature": signature } })));
      for (const head of heads) {
        expect(head.status).toBe(402);
        expect(head.headers.get("payment-required")).toBe(required.headers.get("payment-required"));
        expect(head.headers.get("payment-response")).toBeNull();
      }
      expect(facilitatorCalls).toEqual([]);
      expect(ledger.balanceOf(PAYER)).toBe(balance);
      const paid = await fetch(`${base}${path}`, { headers: { "payment-signature": signature } });
      expect(paid.status).toBe(200);
      expect(decodePaymentResponse(paid.headers.get("payment-response")).success).toBe(true);
      expect(facilitatorCalls).toEqual(["verify", "settle"]);
      expect(balance - ledger.balanceOf(PAYER)).toBe(BigInt(decodePaymentRequired(required.headers.get("payment-required")).accepts[0]!.amount));
    }
  });

  it("status lines carry their reason phrase (402 Payment Required)", async () => {
    const request = (method: string, path: string, extra = "") => `${method} ${path} HTTP/1.1\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`;
    expect(await statusLine(request("GET", "/filings/latest?ticker=AAPL"))).toBe("HTTP/1.1 402 Payment Required");
    expect(await statusLine(request("GET", "/health"))).toBe("HTTP/1.1 200 OK");
    expect(await statusLine(request("GET", "/filings/latest?ticker=AAPL&limit=0"))).toBe("HTTP/1.1 400 Bad Request");
    expect(await statusLine(request("GET", "/filings/latest?ticker=AAPL", "Authorization: Bearer fds_nope\r\n"))).toBe("HTTP/1.1 401 Unauthorized");
    expect(await statusLine(request("GET", "/insiders?ticker=ZZZZZZ"))).toBe("HTTP/1.1 404 Not Found");
    expect(await statusLine(request("DELETE", "/health"))).toBe("HTTP/1.1 405 Method Not Allowed");
    expect(await statusLine(request("GET", "/subscribe"))).toBe("HTTP/1.1 503 Service Unavailable");
    expect(await statusLine(request("OPTIONS", "/health"))).toBe("HTTP/1.1 204 No Content");
  });

  it("CONNECT is answered 405 with Allow and the error body, on a real socket, and the server keeps serving", async () => {
    const answer = await raw(port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 3_000);
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(answer).toMatch(/\r\nAllow: GET, HEAD, POST, OPTIONS\r\n/);
    expect(JSON.parse(answer.split("\r\n\r\n")[1]!).error).toMatchObject({ code: "method_not_allowed", message: expect.stringContaining("CONNECT"), hint: expect.any(String) });
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });

  it("a client aborting a POST mid-body is its own affair: no error-level line, no stack, and the server keeps serving", async () => {
    // Issue 39: 100 aborted POSTs to /mcp logged 100 error-level `unhandled` lines with a stack each.
    const before = gw.logs.length;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        raw(port, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", 150),
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    const lines = gw.logs.slice(before);
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines.filter((l) => l.event === "client_aborted").length).toBeGreaterThan(0);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });

  it.each(["TRACE", "PATCH", "PUT", "DELETE", "PROPFIND", "PURGE", "MKCOL", "LOCK"])("%s (a method Node parses) → 405 with Allow and the error body", async (method) => {
    const answer = await raw(port, `${method} /filings/latest?ticker=AAPL HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, 3_000);
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(answer.toLowerCase()).toContain("\r\nallow: get, head\r\n");
    expect(answer).toContain('"code":"method_not_allowed"');
  });

  it.each(["FOO", "GETT", "get", "G\u00c9T"])("%s (no HTTP method) → 400 with the error body", async (method) => {
    const answer = await raw(port, `${method} /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 3_000);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(answer.split("\r\n\r\n")[1]!).error.code).toBe("invalid_parameter");
  });
});
