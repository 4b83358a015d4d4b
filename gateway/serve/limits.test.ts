import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, testGateway } from "../../test/_gateway.ts";
import { raw } from "../../test/_raw-http.ts";
import { removeDir } from "../../test/_s3.ts";
import { loadConfig } from "../config.ts";
import { listen } from "./listen.ts";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { ANVIL_KEYS, counting, decodePaymentRequired, payerClient } from "../../test/_x402.ts";
import { createUsdcLedger } from "../payment/dev-chain/ledger.ts";
import { createLocalFacilitator } from "../payment/dev-chain/facilitator.ts";

describeEdgar("limits", () => {
  let data: { dataDir: string; mirror: string };
  beforeAll(async () => {
    data = await buildTestData();
  });
  afterAll(() => data && [data.dataDir, data.mirror].forEach(removeDir));

  it("rate-limits the free endpoints per client address: 429 with Retry-After and the error body", async () => {
    const gw = testGateway(data.dataDir, { env: { FREE_BURST: "3", FREE_RATE_PER_MINUTE: "60", TRUST_PROXY: "1" } });
    const from = (ip: string, path = "/health") => gw.get(path, { headers: { "x-forwarded-for": ip } });
    for (let i = 0; i < 3; i++) expect((await from("203.0.113.7")).status).toBe(200);
    const limited = await from("203.0.113.7", "/probe?ticker=AAPL");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await limited.json()).error.code).toBe("rate_limited");
    expect((await from("198.51.100.1")).status).toBe(200); // another client has its own bucket
    expect((await from("203.0.113.7", "/openapi.json")).status).toBe(429);
    gw.close();
  });

  it("trusts X-Forwarded-For only when told to", async () => {
    const gw = testGateway(data.dataDir, { env: { FREE_BURST: "2", FREE_RATE_PER_MINUTE: "60" } });
    const statuses = [];
    for (const ip of ["203.0.113.1", "203.0.113.2", "203.0.113.3"]) statuses.push((await gw.get("/health", { headers: { "x-forwarded-for": ip } })).status);
    expect(statuses).toEqual([200, 200, 429]); // a spoofed header does not buy new buckets
    gw.close();
  });

  it("behind trusted proxies, counts the address the outermost one saw, whatever the client writes before it", async () => {
    // Issue 39: the leftmost X-Forwarded-For entry is the client's own text; rotating it bought a bucket per request.
    for (const [hops, chain] of [["1", (spoof: string) => `${spoof}, 203.0.113.9`], ["2", (spoof: string) => `${spoof}, 203.0.113.9, 10.0.0.2`]] as const) {
      const gw = testGateway(data.dataDir, { env: { FREE_BURST: "3", FREE_RATE_PER_MINUTE: "60", TRUST_PROXY: hops } });
      const statuses = await Promise.all(
        Array.from({ length: 100 }, (_, i) => gw.get("/health", { headers: { "x-forwarded-for": chain(`198.51.100.${i}`) } }).then((r) => r.status)),
      );
      expect(statuses.filter((s) => s === 200), `TRUST_PROXY=${hops}`).toHaveLength(3);
      // Another client behind the same proxies has its own bucket; so does one whose header has fewer hops than trusted.
      expect((await gw.get("/health", { headers: { "x-forwarded-for": chain("203.0.113.10").replace("203.0.113.9", "203.0.113.10") } })).status).toBe(200);
      gw.close();
    }
  });

  it("behind a trusted proxy, a client rotating its own X-Forwarded-For entries gets its refused payments verified only until its bucket is empty", async () => {
    const ledger = createUsdcLedger();
    const facilitator = counting(createLocalFacilitator(ledger));
    const gw = testGateway(data.dataDir, { env: { FREE_BURST: "3", FREE_RATE_PER_MINUTE: "60", TRUST_PROXY: "1" }, facilitator });
    const unpaid = await gw.get("/insiders?ticker=JNJ");
    // An unfunded payer: a well-formed payment the facilitator refuses.
    const signature = encodePaymentSignatureHeader(await payerClient(ANVIL_KEYS.secondPayer).createPaymentPayload(decodePaymentRequired(unpaid.headers.get("payment-required"))));
    const statuses = [];
    for (let i = 0; i < 40; i++) {
      const headers = { "payment-signature": signature, "x-forwarded-for": `198.51.100.${i}, 203.0.113.9` };
      statuses.push((await gw.get("/insiders?ticker=JNJ", { headers })).status);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(36);
    expect(facilitator.verifies).toBeLessThanOrEqual(4);
    gw.close();
  });

  it("refuses an overlong URL with 414 and the error body", async () => {
    const gw = testGateway(data.dataDir);
    const res = await gw.get(`/probe?ticker=AAPL&pad=${"x".repeat(5000)}`);
    expect(res.status).toBe(414);
    expect((await res.json()).error.code).toBe("uri_too_long");
    gw.close();
  });

  it("on a real port: oversized headers get 431 and slow clients 408, both with the error body", async () => {
    const config = loadConfig({ DATA_URL: data.dataDir, PORT: "0", HEADERS_TIMEOUT_MS: "600", REQUEST_TIMEOUT_MS: "1200", LOG_LEVEL: "error" });
    const server = await listen(config);
    const port = Number(new URL(server.url).port);
    try {
      const big = await raw(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 3000);
      expect(big).toMatch(/^HTTP\/1\.1 431 /);
      expect(JSON.parse(big.split("\r\n\r\n")[1]!).error.code).toBe("headers_too_large");
      const slow = await raw(port, "GET /health HTTP/1.1\r\nHost: x\r\n", 5000); // never finishes its headers
      expect(slow).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(slow.split("\r\n\r\n")[1]!).error.code).toBe("request_timeout");
      expect((await fetch(`${server.url.replace(/\/$/, "")}/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  }, 20_000);
});
