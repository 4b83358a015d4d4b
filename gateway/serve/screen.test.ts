import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ScreenRow } from "../../schemas/cross.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { startKeyedGateway, type KeyedGateway } from "../../test/_gateway.ts";

// /screen and its MCP tool on the fixtures' companies (issue 40): a screen's row is the company's own answer for the
// period, byte for byte in every field the row carries, today and as of a date — never a second derivation.

type Row = ReturnType<typeof ScreenRow.parse>;
type Envelope<T> = { data: T[]; meta: { total?: number; next_offset?: number | null } };

/** The metric fields a screen row copies from the company's own answer. */
const METRIC_FIELDS = ["value", "unit", "concept", "derived", "restated", "original_value", "source_accession", "filed_at"] as const;
/** The period fields it copies from the answer's row. */
const ROW_FIELDS = ["fiscal_year", "fiscal_quarter", "months", "period_start", "period_end"] as const;
const INCOME = new Set(["revenue", "net_income", "operating_income", "gross_profit", "eps_basic", "eps_diluted", "basic_shares", "diluted_shares"]);
const STATEMENT: Record<string, "income" | "balance" | "cash_flow"> = {
  ...Object.fromEntries([...INCOME].map((m) => [m, "income" as const])),
  total_assets: "balance",
  cash: "balance",
  shares_outstanding: "balance",
  operating_cash_flow: "cash_flow",
  free_cash_flow: "cash_flow",
  capital_expenditure: "cash_flow",
};

describeEdgar("/screen across the fixtures' companies", () => {
  let gw: KeyedGateway;
  beforeAll(async () => {
    gw = await startKeyedGateway("screen");
  });
  afterAll(async () => gw?.close());

  const json = async <T>(path: string) => {
    const res = await gw.get(path);
    expect(res.status, path).toBe(200);
    return (await res.json()) as Envelope<T>;
  };

  /** The company's own answer for the screen's row: its first row for the frame (as of the date), that metric. */
  async function ownAnswer(route: "/financials" | "/earnings/summary", row: Row, period: string, asOf?: string) {
    const at = asOf ? `&as_of=${asOf}` : "";
    const answer = await json<Record<string, unknown>>(`${route}?ticker=${row.ticker}&period=${period}&limit=1${at}`);
    const own = answer.data[0]!;
    const metric = route === "/financials" ? (own[STATEMENT[row.metric]!] as Record<string, Record<string, unknown>>)[row.metric] : (own.metrics as Record<string, Record<string, unknown>>)[row.metric];
    return { own, metric: metric! };
  }

  it.each([
    ["revenue", "CY2024Q3", undefined],
    ["net_income", "CY2023", undefined],
    ["free_cash_flow", "ttm", undefined],
    ["operating_cash_flow", "CY2024Q2", undefined],
    ["total_assets", "CY2024Q4", undefined],
    ["eps_diluted", "CY2022Q1", undefined],
    ["shares_outstanding", "CY2023Q4", undefined],
    ["revenue", "CY2021", "2023-01-01"],
    ["net_income", "CY2021", undefined],
    ["net_income", "CY2021", "2024-05-28"],
    ["net_income", "ttm", "2022-06-30"],
    ["capital_expenditure", "CY2020Q4", "2021-06-30"],
  ])("%s for %s (as of %s): every row is the company's own /financials answer, and /earnings/summary's for income metrics", async (metric, period, asOf) => {
    const screen = await json<Row>(`/screen?metric=${metric}&period=${period}&limit=500${asOf ? `&as_of=${asOf}` : ""}`);
    expect(screen.data.length).toBeGreaterThan(0);
    expect(screen.meta.total).toBe(screen.data.length);
    for (const row of screen.data) {
      ScreenRow.parse(row);
      const routes = INCOME.has(metric) && period !== "ttm" ? (["/financials", "/earnings/summary"] as const) : (["/financials"] as const);
      for (const route of routes) {
        const { own, metric: value } = await ownAnswer(route, row, period, asOf);
        for (const f of METRIC_FIELDS) expect(row[f], `${row.ticker} ${route} ${f}`).toEqual(value[f]);
        for (const f of ROW_FIELDS) expect(row[f], `${row.ticker} ${route} ${f}`).toEqual(own[f]);
      }
    }
  });

  it("ranks largest first by default, smallest first with order=asc, and pages without losing or repeating a row", async () => {
    const all = await json<Row>("/screen?metric=total_assets&period=CY2023Q4&limit=500");
    const values = all.data.map((r) => r.value);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    const asc = await json<Row>("/screen?metric=total_assets&period=CY2023Q4&order=asc&limit=500");
    expect(asc.data.map((r) => r.ticker)).toEqual([...all.data].reverse().map((r) => r.ticker));
    const pages: string[] = [];
    for (let offset: number | null | undefined = 0; offset !== null && offset !== undefined; ) {
      const page: Envelope<Row> = await json<Row>(`/screen?metric=total_assets&period=CY2023Q4&limit=2&offset=${offset}`);
      expect(page.meta.total).toBe(all.data.length);
      pages.push(...page.data.map((r) => r.ticker));
      offset = page.meta.next_offset;
    }
    expect(pages).toEqual(all.data.map((r) => r.ticker));
  });

  it("filters by value, SIC code or prefix, and exchange", async () => {
    const all = (await json<Row>("/screen?metric=revenue&period=CY2023&limit=500")).data;
    const between = (await json<Row>("/screen?metric=revenue&period=CY2023&min=10000000000&max=200000000000")).data;
    expect(between.map((r) => r.ticker)).toEqual(all.filter((r) => r.value >= 1e10 && r.value <= 2e11).map((r) => r.ticker));
    expect(between.length).toBeGreaterThan(0);
    // Walmart (5331) and Home Depot (5211) are retail: SIC major group 52–59; Apple (3571) is not.
    expect((await json<Row>("/screen?metric=revenue&period=CY2023&sic=53")).data.map((r) => r.ticker)).toEqual(["WMT"]);
    expect((await json<Row>("/screen?metric=revenue&period=CY2023&sic=3571")).data.map((r) => r.ticker)).toEqual(["AAPL"]);
    const nyse = (await json<Row>("/screen?metric=revenue&period=CY2023&exchange=nyse")).data;
    expect(nyse.length).toBeGreaterThan(0);
    for (const row of nyse) expect(row.exchange).toBe("NYSE");
  });

  it("places January, September, October and March fiscal years where SEC's frames put them", async () => {
    const year = async (ticker: string, frame: string) => (await json<Row>(`/screen?metric=revenue&period=${frame}&limit=500`)).data.find((r) => r.ticker === ticker);
    // Walmart's fiscal 2025 (to 2025-01-31): CY2024; its third quarter (to 2024-10-31) CY2024Q3 (10-Q 0000104169-24-000118 and later).
    expect(await year("WMT", "CY2024")).toMatchObject({ fiscal_year: 2025, fiscal_quarter: "FY", period_end: "2025-01-31" });
    expect(await year("WMT", "CY2024Q3")).toMatchObject({ fiscal_year: 2025, fiscal_quarter: "Q3", period_end: "2024-10-31", value: 169_588_000_000 });
    // Apple's fiscal 2024 (to 2024-09-28): CY2024; its fourth quarter, derived from the 10-K, CY2024Q3 (94,930 million).
    expect(await year("AAPL", "CY2024")).toMatchObject({ fiscal_year: 2024, fiscal_quarter: "FY", period_end: "2024-09-28" });
    expect(await year("AAPL", "CY2024Q3")).toMatchObject({ fiscal_year: 2024, fiscal_quarter: "Q4", derived: true, value: 94_930_000_000 });
    // Disney's fiscal 2024 (to 2024-09-28): CY2024. Under Armour's fiscal 2024 (April 2023–March 2024): CY2023.
    expect(await year("DIS", "CY2024")).toMatchObject({ fiscal_year: 2024, fiscal_quarter: "FY", period_end: "2024-09-28" });
    expect(await year("UA", "CY2023")).toMatchObject({ fiscal_year: 2024, fiscal_quarter: "FY", period_start: "2023-04-01", period_end: "2024-03-31" });
  });

  it("as of a day before a restatement gives the value first filed; from the restating filing on, the restated one", async () => {
    // Under Armour's 2021 net income: 360,060 thousand in its 10-K for 2021 (0001336917-22-000012, filed 2022-02-23) and
    // its transition-period 10-K; 351,003 thousand in the 10-K for fiscal 2024 (0000950170-24-066253, filed 2024-05-29).
    const on = async (date?: string) => (await json<Row>(`/screen?metric=net_income&period=CY2021${date ? `&as_of=${date}` : ""}`)).data.find((r) => r.ticker === "UA")!;
    expect(await on("2024-05-28")).toMatchObject({ value: 360_060_000, restated: false });
    expect(await on("2024-05-29")).toMatchObject({ value: 351_003_000, restated: true, original_value: 360_060_000, filed_at: "2024-05-29" });
    expect(await on()).toMatchObject({ value: 351_003_000, restated: true });
    // Before its first 10-K reported the year, the company is absent, not null.
    expect((await json<Row>("/screen?metric=net_income&period=CY2021&as_of=2022-01-01")).data.find((r) => r.ticker === "UA")).toBeUndefined();
  });

  it.each([
    ["metric=ebitda&period=CY2024Q3", "metric"],
    ["metric=revenue&period=CY2024Q5", "period"],
    ["metric=revenue&period=2024Q3", "period"],
    ["metric=revenue&period=CY2024Q3&limit=0", "limit"],
    ["metric=revenue&period=CY2024Q3&limit=501", "limit"],
    ["metric=revenue&period=CY2024Q3&offset=-1", "offset"],
    ["metric=revenue&period=CY2024Q3&min=5&max=1", "min"],
    ["metric=revenue&period=CY2024Q3&min=abc", "min"],
    ["metric=revenue&period=CY2024Q3&sic=7", "sic"],
    ["metric=revenue&period=CY2024Q3&order=up", "order"],
    ["metric=revenue&period=CY2024Q3&as_of=2024-02-30", "as_of"],
    ["period=CY2024Q3", "metric"],
    ["metric=revenue", "period"],
  ])("%s is a 400 naming %s, never asked to pay", async (query, name) => {
    const res = await fetch(`${gw.base}/screen?${query}`); // no key, no payment: a 400 comes before the 402
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("invalid_parameter");
    expect(error.message).toContain(name);
  });

  it("through MCP: screen_companies, listed first and validated by the SDK client, gives the HTTP answer's rows", async () => {
    const client = new Client({ name: "screen-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${gw.key}` } } }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["screen_companies", "get_market_filings", "get_market_insider_activity"]));
    for (const [args, query] of [
      [{ metric: "revenue", period: "CY2024Q3", limit: 20 }, "metric=revenue&period=CY2024Q3&limit=20"],
      [{ metric: "free_cash_flow", period: "ttm", max: 0 }, "metric=free_cash_flow&period=ttm&max=0"],
      [{ metric: "net_income", period: "CY2021", as_of: "2024-05-28" }, "metric=net_income&period=CY2021&as_of=2024-05-28"],
    ] as const) {
      const result = (await client.callTool({ name: "screen_companies", arguments: args })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const http = await json<Row>(`/screen?${query}`);
      expect((result.structuredContent as Envelope<Row>).data).toEqual(http.data);
      expect((result.structuredContent as Envelope<Row>).meta.total).toBe(http.meta.total);
    }
    const bad = (await client.callTool({ name: "screen_companies", arguments: { metric: "revenue", period: "CY2024Q5" } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(JSON.parse((bad.content[0] as { text: string }).text).error).toMatchObject({ code: "invalid_parameter", message: expect.stringContaining("period") });
    await client.close();
  });
});
