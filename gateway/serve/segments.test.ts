import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { SegmentPeriod, SegmentPresentation } from "../../schemas/segments.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { startTestGateway, type StartedGateway } from "../../test/_gateway.ts";
import { addressOf, ANVIL_KEYS, decodePaymentResponse, payingFetch } from "../../test/_x402.ts";
import { createUsdcLedger, type UsdcLedger } from "../payment/dev-chain/ledger.ts";
import { createLocalFacilitator } from "../payment/dev-chain/facilitator.ts";

// /segments and its MCP tool over the fixtures' build (issue 43): Apple's figures as its 10-Ks and 10-Qs file them, by
// axis and period, paged, as of a date, with their history; priced and probed as the other per-ticker routes.

type Envelope = { data: (SegmentPeriod & { history?: SegmentPresentation[] })[]; meta: { total?: number; next_offset?: number | null; source_accession?: string | null } };
const PAYER = addressOf(ANVIL_KEYS.payer);
const M = 1_000_000;

describeEdgar("/segments over the fixtures' build", () => {
  let started: StartedGateway;
  let ledger: UsdcLedger;
  let key: string;
  beforeAll(async () => {
    ledger = createUsdcLedger();
    ledger.fund(PAYER, 1_000_000n);
    started = await startTestGateway({ listen: true, facilitator: createLocalFacilitator(ledger) });
    key = (await started.gw.keys.create("segments")).key;
  });
  afterAll(async () => started?.close());

  const keyed = async (path: string) => {
    const res = await started.gw.get(path, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Envelope;
  };
  const americas = (row: SegmentPeriod) => row.members.find((m) => m.member === "aapl:AmericasSegmentMember")!;

  it("a fiscal year of one axis: each member's revenue and operating income, named as filed and as labelled, traced to its filing", async () => {
    const { data, meta } = await keyed("/segments?ticker=aapl&axis=business&period=FY2023");
    expect(data.map((r) => [r.fiscal_quarter, r.months])).toEqual([
      ["Q4", 3],
      ["FY", 12],
      ["Q3", 3],
      ["Q3", 9],
    ]);
    const fy = data[1]!;
    expect(americas(fy)).toMatchObject({ name: "Americas", revenue: { value: 162_560 * M, source_accession: "0000320193-24-000123" }, operating_income: { value: 60_508 * M, concept: "us-gaap:OperatingIncomeLoss" } });
    expect(data[0]).toMatchObject({ derived: true, derived_from: ["0000320193-23-000106", "0000320193-23-000077"] });
    expect(meta).toMatchObject({ total: 4, next_offset: null });
  });

  it("pages with limit and offset (meta.total, meta.next_offset), newest first as the earnings", async () => {
    const all = await keyed("/segments?ticker=AAPL");
    const first = await keyed("/segments?ticker=AAPL&limit=5");
    const second = await keyed("/segments?ticker=AAPL&limit=5&offset=5");
    expect(first.meta).toMatchObject({ total: all.data.length, next_offset: 5 });
    expect([...first.data, ...second.data]).toEqual(all.data.slice(0, 10));
    expect(all.data.map((r) => r.period_end)).toEqual([...all.data.map((r) => r.period_end)].sort().reverse());
    expect((await keyed(`/segments?ticker=AAPL&offset=${all.data.length}`)).data).toEqual([]);
  });

  it("as of a date: the filing then latest; history=true lists every presentation in filing order", async () => {
    const before = (await keyed("/segments?ticker=AAPL&axis=business&period=FY2023&as_of=2024-06-30")).data.find((r) => r.fiscal_quarter === "FY")!;
    expect(before).toMatchObject({ source_accession: "0000320193-23-000106", original_accession: "0000320193-23-000106" });
    expect((await keyed("/segments?ticker=AAPL&axis=business&period=FY2023&as_of=2023-11-01")).data.map((r) => r.fiscal_quarter)).toEqual(["Q3", "Q3"]);
    const [row] = (await keyed("/segments?ticker=AAPL&axis=business&period=FY2023&history=true")).data.filter((r) => r.fiscal_quarter === "FY");
    expect(row!.history!.map((p) => p.accession)).toEqual(["0000320193-23-000106", "0000320193-24-000123"]);
    expect(americas(row!)).toMatchObject({ revenue: { value: 162_560 * M, restated: false } });
  });

  it("a bad axis, period or offset is a 400 naming it, before any payment; an uncovered ticker a 404", async () => {
    for (const [query, name] of [
      ["ticker=AAPL&axis=segment", "axis"],
      ["ticker=AAPL&period=FY23", "period"],
      ["ticker=AAPL&offset=-1", "offset"],
      ["axis=business", "ticker"],
    ] as const) {
      const res = await started.gw.get(`/segments?${query}`);
      expect(res.status, query).toBe(400);
      const { error } = (await res.json()) as { error: { code: string; message: string; hint: string } };
      expect(error).toMatchObject({ code: "invalid_parameter", message: expect.stringContaining(name), hint: expect.any(String) });
    }
    expect((await started.gw.get("/segments?ticker=MSFT")).status).toBe(404);
  });

  it("/probe prices it and says which companies have segments", async () => {
    const probe = (await (await started.gw.get("/probe?ticker=AAPL")).json()) as { data: { endpoints: Record<string, boolean>; pricing: { endpoints: Record<string, { usd: string } | null> } } };
    expect(probe.data.endpoints["/segments"]).toBe(true);
    expect(probe.data.pricing.endpoints["/segments"]).toMatchObject({ usd: "$0.02", amount: "20000" });
    const dis = (await (await started.gw.get("/probe?ticker=DIS")).json()) as { data: { endpoints: Record<string, boolean> } };
    expect(dis.data.endpoints["/segments"]).toBe(false);
  });

  it("x402: an answer with rows costs USD 0.02, an empty one nothing", async () => {
    const pay = payingFetch(ANVIL_KEYS.payer);
    const before = ledger.balanceOf(PAYER);
    const paid = await pay(`${started.base}/segments?ticker=AAPL&axis=geography&period=annual`);
    expect(paid.status).toBe(200);
    expect(decodePaymentResponse(paid.headers.get("payment-response"))).toMatchObject({ success: true });
    expect(ledger.balanceOf(PAYER)).toBe(before - 20_000n);
    const empty = await pay(`${started.base}/segments?ticker=DIS`);
    expect(empty.status).toBe(200);
    expect(((await empty.json()) as Envelope).data).toEqual([]);
    expect(ledger.balanceOf(PAYER)).toBe(before - 20_000n);
  });

  it("through MCP: get_segments, listed with its schema, gives the HTTP answer", async () => {
    const client = new Client({ name: "segments-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${started.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "get_segments")!.inputSchema.properties).toHaveProperty("axis");
    const result = (await client.callTool({ name: "get_segments", arguments: { ticker: "AAPL", axis: "product", period: "FY2023", limit: 2 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const http = await keyed("/segments?ticker=AAPL&axis=product&period=FY2023&limit=2");
    expect((result.structuredContent as Envelope).data).toEqual(http.data);
    expect((result.structuredContent as Envelope).meta).toMatchObject({ total: http.meta.total, next_offset: 2 });
    await client.close();
  });
});
