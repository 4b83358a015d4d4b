import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PAID_ROUTES } from "../../schemas/api.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, testGateway } from "../../test/_gateway.ts";
import { removeDir } from "../../test/_s3.ts";
import { strictRefusal } from "../../test/_strict-schema.ts";
import { decodePaymentRequired } from "../../test/_x402.ts";

describeEdgar("discovery: OpenAPI, llms.txt, Bazaar, CORS", () => {
  let data: { dataDir: string; mirror: string };
  let gw: ReturnType<typeof testGateway>;
  beforeAll(async () => {
    data = await buildTestData();
    gw = testGateway(data.dataDir);
  });
  afterAll(() => {
    gw?.close();
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  it("/openapi.json is valid OpenAPI 3.1.0 (swagger-parser), its version the package's", async () => {
    const res = await gw.get("/openapi.json");
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc).toMatchObject({ openapi: "3.1.0", info: { version: (await import("../../package.json", { with: { type: "json" } })).default.version }, servers: [{ url: "https://api.example.test" }] });
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
  });

  it("fits GPT Actions' limits: at most 30 operations, 300 characters a summary or description, 700 a parameter's", async () => {
    const doc = await (await gw.get("/openapi.json")).json();
    const operations = Object.entries(doc.paths as Record<string, Record<string, { summary?: string; description?: string; parameters?: { name: string; description?: string }[] }>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ at: `${method} ${path}`, op })),
    );
    expect(operations.length).toBeLessThanOrEqual(30);
    for (const { at, op } of operations) {
      expect([op.summary ?? "", op.description ?? ""].map((text) => text.length).filter((n) => n > 300), at).toEqual([]);
      for (const param of op.parameters ?? []) expect(param.description?.length ?? 0, `${at} ${param.name}`).toBeLessThanOrEqual(700);
    }
    expect(doc.externalDocs.url).toBe("https://api.example.test/llms.txt");
  });

  it("documents every route of the app and nothing else", async () => {
    const doc = await (await gw.get("/openapi.json")).json();
    const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    const served = gw.app["~routes"].map((r) => r.route).sort();
    expect([...new Set(documented.map((d) => d.split(" ")[1]))].sort()).toEqual(served);
    expect(documented.sort()).toEqual(
      [
        ...["GET /health", "GET /probe", "GET /tickers", "GET /filings/latest", "GET /earnings/summary", "GET /insiders", "GET /financials", "GET /openapi.json", "GET /llms.txt", "POST /mcp"],
        ...["GET /screen", "GET /market/insiders", "GET /market/filings"],
        "GET /segments",
        ...["GET /subscribe", "GET /subscribe/success", "POST /webhooks/stripe", "POST /billing/portal"],
      ].sort(),
    );
  });

  it("states every parameter's constraints, each status, the 402 header, the key schemes and the prices", async () => {
    const doc = await (await gw.get("/openapi.json")).json();
    const filings = doc.paths["/filings/latest"].get;
    const param = (op: { parameters: { name: string }[] }, name: string) => op.parameters.find((p) => p.name === name) as Record<string, any>;
    expect(param(filings, "limit").schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 });
    expect(param(filings, "ticker").required).toBe(true);
    expect(param(doc.paths["/earnings/summary"].get, "period").schema.pattern).toBeDefined();
    expect(param(doc.paths["/insiders"].get, "since").schema).toMatchObject({ type: "string", format: "date" });
    expect(param(doc.paths["/financials"].get, "statement").schema).toMatchObject({ enum: ["income", "balance", "cash_flow", "all"] });
    expect(param(doc.paths["/financials"].get, "period").schema.pattern).toContain("ttm");
    for (const path of ["/filings/latest", "/earnings/summary", "/insiders", "/financials"]) {
      expect(Object.keys(doc.paths[path].get.responses).sort()).toEqual(["200", "400", "401", "402", "404", "405", "409", "503"]);
      expect(doc.paths[path].get.responses["402"].headers).toHaveProperty("PAYMENT-REQUIRED");
    }
    expect(doc.paths["/earnings/summary"].get["x-price"]).toMatchObject({ usd: "$0.02", amount: "20000", network: "eip155:8453" });
    expect(doc.paths["/financials"].get["x-price"]).toMatchObject({ usd: "$0.03", amount: "30000", network: "eip155:8453" });
    expect(doc.components.securitySchemes).toMatchObject({ bearerAuth: { scheme: "bearer" }, apiKeyHeader: { in: "header", name: "X-API-Key" } });
    expect(doc.components.schemas).toHaveProperty("ErrorBody");
    expect(doc.components.schemas).toHaveProperty("EarningsPeriod");
    expect(doc.components.schemas).toHaveProperty("FinancialPeriod");
    // The sign conventions are stated in the schema itself.
    expect(JSON.stringify(doc.components.schemas.CashFlowStatement)).toContain("as a positive outflow");
  });

  it("/llms.txt names every endpoint with its price, probe first, x402 and keys, and links OpenAPI and MCP", async () => {
    const res = await gw.get("/llms.txt");
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^# Filing Data Service\n\n> /);
    for (const line of ["GET /health", "GET /probe", "Latest filings for a ticker — $0.01", "Earnings from XBRL company facts — $0.02", "Form 4 insider transactions — $0.01", "Financial statements: income, balance sheet, cash flow, trailing twelve months — $0.03", "PAYMENT-SIGNATURE", "Authorization: Bearer"]) {
      expect(text).toContain(line);
    }
    expect(text.indexOf("/probe?ticker=")).toBeLessThan(text.indexOf("## Endpoints"));
    expect(text).toContain("(https://api.example.test/openapi.json)");
    expect(text).toContain("(https://api.example.test/mcp)");
  });

  it("declares Bazaar discovery on every paid route's 402, its schema one a strict validator reads", async () => {
    for (const route of PAID_ROUTES) {
      const query = new URLSearchParams(Object.entries(route.example).map(([k, v]) => [k, String(v)]));
      const required = decodePaymentRequired((await gw.get(`${route.path}?${query}`)).headers.get("payment-required"));
      const bazaar = (required.extensions as Record<string, any>).bazaar;
      expect(bazaar.info.input, route.path).toMatchObject({ type: "http", method: "GET", queryParams: route.example });
      expect(strictRefusal(bazaar.schema), route.path).toBeNull();
    }
  });

  it("answers CORS preflights, allows every origin, and exposes the x402 headers wherever they may be", async () => {
    const pre = await gw.get("/insiders", { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-headers": "payment-signature" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/PAYMENT-SIGNATURE.*Authorization/);
    // A 402 and other errors may carry PAYMENT-REQUIRED or Retry-After: a browser script must be able to read them.
    for (const res of [await gw.get("/insiders?ticker=AAPL"), await gw.get("/nope")]) {
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-expose-headers")).toBe("PAYMENT-REQUIRED, PAYMENT-RESPONSE, Idempotent-Replayed, Retry-After");
    }
    // A free answer, or one paid with a key, has nothing to expose.
    const { key } = await gw.keys.create(null);
    for (const res of [await gw.get("/health"), await gw.get("/insiders?ticker=AAPL", { headers: { "x-api-key": key } })]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-expose-headers")).toBeNull();
    }
  });
});
