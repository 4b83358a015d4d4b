// GET /tickers and the MCP tool list_tickers (issue 16): every covered ticker, free, rate-limited, cheap to cache.
import { gunzipSync } from "node:zlib";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runBuild } from "../../build/pipeline/run.ts";
import { createDirSource } from "../../build/sources/dir.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { envelope } from "../../schemas/envelope.ts";
import { TickerList } from "../../schemas/tickers.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { GATEWAY_TICKERS, startTestGateway, testGateway, type StartedGateway } from "../../test/_gateway.ts";

const Listing = envelope(TickerList);

describeEdgar("GET /tickers", () => {
  let started: StartedGateway;
  let gw: StartedGateway["gw"];
  beforeAll(async () => {
    started = await startTestGateway({ listen: true });
    gw = started.gw;
  });
  afterAll(() => started?.close());

  it("lists every covered ticker of the snapshot, sorted, with CIK, name and freshness; nothing uncovered", async () => {
    const res = await gw.get("/tickers");
    expect(res.status).toBe(200);
    expect(res.headers.get("payment-required")).toBeNull();
    const body = Listing.parse(await res.json());
    const manifest = (await gw.snapshots.current()).manifest;
    const covered = GATEWAY_TICKERS.filter((t) => manifest.tickers[t]?.covered).sort();
    expect(body.data.map((t) => t.ticker)).toEqual(covered);
    expect(covered).not.toContain("MSFT"); // no company facts in the fixtures
    expect(body.data.find((t) => t.ticker === "AAPL")).toEqual({
      ticker: "AAPL",
      cik: 320193,
      name: "Apple Inc.",
      built_at: "2026-07-01T12:00:00.000Z",
      newest_filing: manifest.tickers.AAPL!.freshness.newest_filing,
      newest_period_end: manifest.tickers.AAPL!.freshness.newest_period_end,
      newest_form4: manifest.tickers.AAPL!.freshness.newest_form4,
    });
    expect(body.meta).toMatchObject({ snapshot: manifest.build_id, built_at: manifest.built_at });
  });

  it("answers 304 to the current ETag (weak comparison, lists, *), 200 to any other", async () => {
    const first = await gw.get("/tickers");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"[^"]+"$/);
    expect(first.headers.get("cache-control")).toMatch(/max-age=\d+/);
    for (const sent of [etag, etag.slice(2), `W/"other", ${etag}`, "*"]) {
      const res = await gw.get("/tickers", { headers: { "if-none-match": sent } });
      expect(res.status).toBe(304);
      expect(res.headers.get("etag")).toBe(etag);
      expect(await res.text()).toBe("");
    }
    expect((await gw.get("/tickers", { headers: { "if-none-match": 'W/"other"' } })).status).toBe(200);
  });

  it("gzips when the client accepts it, and only then", async () => {
    const plain = await gw.get("/tickers");
    const plainData = (await plain.json()).data;
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toMatch(/accept-encoding/i);
    for (const accept of ["gzip", "br, gzip;q=0.5", "*"]) {
      const res = await gw.get("/tickers", { headers: { "accept-encoding": accept } });
      expect(res.headers.get("content-encoding")).toBe("gzip");
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(JSON.parse(gunzipSync(bytes).toString("utf8")).data).toEqual(plainData);
    }
    for (const accept of ["br", "gzip;q=0", "identity", "*;q=0"]) {
      expect((await gw.get("/tickers", { headers: { "accept-encoding": accept } })).headers.get("content-encoding")).toBeNull();
    }
  });

  it("is rate-limited like the other free endpoints, 304s included", async () => {
    const limited = testGateway(started.dataDir, { env: { FREE_BURST: "2", FREE_RATE_PER_MINUTE: "60" } });
    const etag = (await limited.get("/tickers")).headers.get("etag")!;
    expect((await limited.get("/tickers", { headers: { "if-none-match": etag } })).status).toBe(304);
    const res = await limited.get("/tickers", { headers: { "if-none-match": etag } });
    expect(res.status).toBe(429);
    expect((await res.json()).error.code).toBe("rate_limited");
    limited.close();
  });

  it("refuses parameters other than its page's (limit, offset: issue 41) with 400", async () => {
    const res = await gw.get("/tickers?ticker=AAPL");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: "invalid_parameter", message: expect.stringContaining('"ticker"') });
  });

  it("a new snapshot changes the list and its ETag; the old ETag then gets the new list", async () => {
    const own = testGateway(started.dataDir);
    const etag = (await own.get("/tickers")).headers.get("etag")!;
    await runBuild({ source: createDirSource(started.mirror), storage: openStorage(started.dataDir), log: memoryLogger(), tickers: ["MRVL"], now: () => new Date("2026-07-02T12:00:00.000Z"), workers: 0 });
    await own.snapshots.refresh();
    const res = await own.get("/tickers", { headers: { "if-none-match": etag } });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).not.toBe(etag);
    const list = Listing.parse(await res.json()).data;
    expect(list.find((t) => t.ticker === "MRVL")).toMatchObject({ built_at: "2026-07-02T12:00:00.000Z" });
    expect(list.find((t) => t.ticker === "AAPL")).toMatchObject({ built_at: "2026-07-01T12:00:00.000Z" }); // carried forward
    own.close();
  });

  it("is in OpenAPI (with its 304) and llms.txt", async () => {
    const openapi = await (await gw.get("/openapi.json")).json();
    expect(openapi.paths["/tickers"].get).toMatchObject({ operationId: "getTickers", tags: ["free"], responses: { "200": { headers: { ETag: {} } }, "304": {} } });
    expect(await (await gw.get("/llms.txt")).text()).toMatch(/\[GET \/tickers\]\(https:\/\/api\.example\.test\/tickers\): Every covered ticker — free\./);
  });

  it("the MCP tool list_tickers, listed and called with the SDK's own client, gives the same list", async () => {
    const client = new Client({ name: "test-agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${started.base}/mcp`)));
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "list_tickers")!;
    expect(tool.outputSchema?.properties).toHaveProperty("data");
    // The client checks the result against the tool's output schema (listed above) before handing it over.
    const result = (await client.callTool({ name: "list_tickers", arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const http = Listing.parse(await (await gw.get("/tickers")).json());
    expect(Listing.parse(result.structuredContent).data).toEqual(http.data);
    await client.close();
  });
});
