// GET /financials over a real snapshot: the statements one by one, TTM, as_of and history, errors before payment, and
// the same answer through the MCP SDK's own client as over HTTP.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { FinancialPeriod } from "../../schemas/financials.ts";
import { FinancialsDocument } from "../../schemas/snapshot.ts";
import { readText } from "../../storage/json.ts";
import { documentKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { startKeyedGateway, type KeyedGateway } from "../../test/_gateway.ts";
import { decodePaymentRequired } from "../../test/_x402.ts";

describeEdgar("GET /financials and get_financials", () => {
  let started: KeyedGateway;
  let gw: KeyedGateway["gw"];
  beforeAll(async () => {
    started = await startKeyedGateway("statements");
    gw = started.gw;
  });
  afterAll(() => started?.close());
  const get = (path: string) => started.get(path);
  const financials = async (query: string): Promise<FinancialPeriod[]> => {
    const res = await get(`/financials?${query}`);
    expect(res.status).toBe(200);
    return (await res.json()).data;
  };
  // Apple's fiscal 2024 (10-K 0000320193-24-000123) and fiscal 2016 (10-K 0001628280-16-020309).
  const fy = (rows: FinancialPeriod[], end: string) => rows.find((p) => p.period_end === end && p.months === 12 && p.ttm === null);

  it("the default answer is the stored rows but the TTM rows, byte for byte: every statement, newest first", async () => {
    const text = await (await get("/financials?ticker=AAPL")).text();
    const key = documentKey(JSON.parse(text).meta.snapshot, "AAPL", "financials");
    const stored = JSON.parse((await readText(openStorage(started.dataDir), key))!) as FinancialsDocument;
    expect(FinancialsDocument.safeParse(stored).success).toBe(true);
    expect(text.slice(0, text.indexOf(',"meta":'))).toBe(`{"data":${JSON.stringify(stored.data.filter((p) => p.ttm === null))}`);
    expect(stored.data.some((p) => p.ttm !== null)).toBe(true);
    expect(text).not.toContain('"history"');
  });

  it("statement=balance&period=annual: fiscal years with their balance sheet alone", async () => {
    const rows = await financials("ticker=AAPL&statement=balance&period=annual");
    expect(rows.length).toBeGreaterThan(10);
    for (const p of rows) {
      expect(p).toMatchObject({ months: 12, fiscal_quarter: "FY", ttm: null });
      expect(Object.keys(p)).not.toContain("income");
      expect(Object.keys(p)).not.toContain("cash_flow");
    }
    expect(fy(rows, "2024-09-28")!.balance).toMatchObject({
      total_assets: { value: 364_980e6 },
      total_liabilities: { value: 308_030e6 },
      equity: { value: 56_950e6 },
      cash: { value: 29_943e6 },
      shares_outstanding: { value: 15_115_823_000, as_of: "2024-10-18", split_unadjusted: false },
    });
    // Fiscal 2019's cover count (10-K 0000320193-19-000119: 4,443,265,000 as of 2019-10-18) predates the 4-for-1 split
    // of 2020, which the 10-K of 2020-10-30 showed: the old basis, flagged.
    expect(fy(rows, "2019-09-28")!.balance!.shares_outstanding).toMatchObject({ value: 4_443_265_000, as_of: "2019-10-18", split_unadjusted: true });
  });

  it("statement=cash_flow&period=quarterly: discrete quarters, the derived ones marked, no year to date among them", async () => {
    const rows = await financials("ticker=AAPL&statement=cash_flow&period=quarterly");
    expect(rows.every((p) => p.months === 3 && p.cash_flow && !("balance" in p))).toBe(true);
    const q4 = rows.find((p) => p.period_end === "2024-09-28")!;
    expect(q4).toMatchObject({ fiscal_year: 2024, fiscal_quarter: "Q4", cash_flow: { operating_cash_flow: { value: 26_811e6, derived: true } } });
    const q1 = rows.find((p) => p.period_end === "2024-12-28")!;
    expect(q1.cash_flow!.operating_cash_flow).toMatchObject({ value: 29_935e6, derived: false });
  });

  it("period=ttm: trailing-twelve-month rows only, the latest first, each listing its periods", async () => {
    const rows = await financials("ticker=AAPL&period=ttm&statement=cash_flow");
    expect(rows.length).toBeGreaterThan(40);
    expect(rows.every((p) => p.ttm !== null && p.months === 12)).toBe(true);
    expect(rows[0]).toMatchObject({ period_end: "2025-12-27", ttm: { basis: "four_quarters" }, cash_flow: { operating_cash_flow: { value: 135_472e6 } } });
    expect(rows.find((p) => p.period_end === "2024-09-28")).toMatchObject({ ttm: { basis: "fiscal_year" }, cash_flow: { operating_cash_flow: { value: 118_254e6 } } });
    // Without period=ttm, no TTM row: a fiscal year is never confused with a trailing twelve months.
    expect((await financials("ticker=AAPL&period=annual")).every((p) => p.ttm === null)).toBe(true);
  });

  it("as_of: Apple's fiscal 2016 dividends as first filed, then as its 10-K of 2017-11-03 restated them; history lists both", async () => {
    // Fiscal 2016 dividends paid: 11,965 million in the 10-K of 2016-10-26 (0001628280-16-020309), 12,150 million
    // (dividends and dividend equivalents) in the 10-K of 2017-11-03 (0000320193-17-000070), which restated no quarter.
    const before = fy(await financials("ticker=AAPL&statement=cash_flow&as_of=2017-11-02"), "2016-09-24")!;
    expect(before.cash_flow!.dividends_paid).toMatchObject({ value: 11_965e6, restated: false });
    expect(before.reconciled).toBe(true);
    const after = fy(await financials("ticker=AAPL&statement=cash_flow&as_of=2017-11-03"), "2016-09-24")!;
    expect(after.cash_flow!.dividends_paid).toMatchObject({ value: 12_150e6, restated: true, original_value: 11_965e6, source_accession: "0000320193-17-000070" });
    expect(after.reconciled).toBe(false);
    const all = fy(await financials("ticker=AAPL&statement=cash_flow&period=2016&history=true"), "2016-09-24")!;
    // Fiscal 2017's 10-Qs repeat fiscal 2016's twelve months (two under PaymentsOfDividends, one under
    // PaymentsOfDividendsCommonStock): values filed for the period, listed, never the year's (a fiscal year's value
    // comes from annual reports).
    expect(all.cash_flow!.dividends_paid!.history!.map((e) => [e.value, e.accession, e.form, e.served])).toEqual([
      [11_965e6, "0001628280-16-020309", "10-K", undefined],
      [11_965e6, "0001628280-17-000717", "10-Q", false],
      [11_965e6, "0001628280-17-004790", "10-Q", false],
      [11_965e6, "0000320193-17-000009", "10-Q", false],
      [12_150e6, "0000320193-17-000070", "10-K", undefined],
      [12_150e6, "0000320193-18-000145", "10-K", undefined],
    ]);
    expect(await financials("ticker=AAPL&as_of=2099-12-31")).toEqual(await financials("ticker=AAPL"));
    expect(await financials("ticker=AAPL&as_of=1990-01-01")).toEqual([]);
  });

  it("as_of with period=ttm: the TTM block as it stood then — fiscal 2016 still added up on 2017-03-01, and no later filing is named", async () => {
    // Apple's TTM to 2016-12-31: dividends 2,879 + 3,117 + 3,071 + 3,042 = 12,109 million, all in the 10-Q of
    // 2017-02-01 (0001628280-17-000717). The 10-K of 2017-11-03 restated fiscal 2016 to 12,150 and no quarter, so from
    // then fiscal 2016's quarters miss it and the TTM's dividends are null with that reason.
    const at = async (date: string) => (await financials(`ticker=AAPL&period=ttm&statement=cash_flow&as_of=${date}`)).find((p) => p.period_end === "2016-12-31")!;
    const then = await at("2017-03-01");
    expect(then.cash_flow!.dividends_paid).toMatchObject({ value: 12_109e6, source_accession: "0001628280-17-000717" });
    expect(then.ttm!.unavailable).toEqual([]);
    const named = [...JSON.stringify(then).matchAll(/\d{10}-\d{2}-\d{6}/g)].map((m) => m[0]);
    expect(named.length).toBeGreaterThan(4);
    // Each named filing was accepted by then: 2016's own filings and the 10-Q of 2017-02-01 (years 16 and 17 of
    // Apple's agents' numbering; none of the 2017-11 and 2018 filings that name these periods today).
    expect(new Set(named)).toEqual(new Set(["0001193125-16-559625", "0001628280-16-017809", "0001628280-16-020309", "0001628280-17-000717"]));
    const after = await at("2017-11-03");
    expect(after.cash_flow!.dividends_paid).toBeNull();
    const miss = fy(await financials("ticker=AAPL&statement=cash_flow&period=2016&as_of=2017-11-03"), "2016-09-24")!.reconciliation.find((r) => r.metric === "dividends_paid")!;
    expect(after.ttm!.unavailable).toContainEqual({ metric: "dividends_paid", reason: "unreconciled", message: expect.stringContaining(`miss its year by ${miss.difference} `) });
    // Today's TTM answer still names the filings of today.
    const today = (await financials("ticker=AAPL&period=ttm&statement=cash_flow")).find((p) => p.period_end === "2016-12-31")!;
    expect(today.ttm!.periods.flatMap((p) => p.accessions)).toContain("0000320193-18-000007");
  });

  it("history=true lists every value filed for the period, those never served marked, in the order filed (HTTP and MCP alike)", async () => {
    // Apple's fiscal 2013 capital expenditure: 8,165 million under the year's concept (productive assets, 10-K
    // 0001193125-13-416534, and again in the 10-K of 2014-10-27); the 10-K of 2015-10-28 re-reports it as purchases of
    // PP&E, another concept: listed, never served.
    const year = fy(await financials("ticker=AAPL&statement=cash_flow&period=2013&history=true"), "2013-09-28")!;
    const capex = year.cash_flow!.capital_expenditure!;
    expect(capex).toMatchObject({ value: 8_165e6, source_accession: "0001193125-14-383437" });
    expect(capex.history!.map((e) => [e.value, e.concept, e.accession, e.form, e.filed_at, e.served])).toEqual([
      [8_165e6, "us-gaap:PaymentsToAcquireProductiveAssets", "0001193125-13-416534", "10-K", "2013-10-30", undefined],
      [8_165e6, "us-gaap:PaymentsToAcquireProductiveAssets", "0001193125-14-383437", "10-K", "2014-10-27", undefined],
      [8_165e6, "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", "0001193125-15-356351", "10-K", "2015-10-28", false],
    ]);
    const client = new Client({ name: "statements-history", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${started.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${started.key}` } } }));
    await client.listTools(); // as agents do: the SDK then validates the result against the tool's outputSchema
    const result = (await client.callTool({ name: "get_financials", arguments: { ticker: "AAPL", statement: "cash_flow", period: "2013", history: true } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(fy((result.structuredContent as { data: FinancialPeriod[] }).data, "2013-09-28")!.cash_flow!.capital_expenditure!.history).toEqual(capex.history);
    await client.close();
  });

  it("a null with a stated reason: Under Armour's shares outstanding (counts per class only)", async () => {
    const rows = await financials("ticker=UA&statement=balance&period=annual");
    expect(rows.length).toBeGreaterThan(10);
    for (const p of rows) {
      expect(p.balance!.shares_outstanding).toBeNull();
      expect(p.unavailable).toContainEqual(expect.objectContaining({ metric: "shares_outstanding", reason: "class_counts_only" }));
    }
  });

  it("year-to-date rows (months 6 and 9, labelled Q2 and Q3) are never a quarter: not in quarterly, frame or TTM answers, marked wherever they appear", async () => {
    for (const ticker of ["AAPL", "WMT", "HD", "DIS", "UA"]) {
      const all = await financials(`ticker=${ticker}`);
      const ytd = all.filter((p) => p.months === 6 || p.months === 9);
      expect(ytd.length, ticker).toBeGreaterThan(0);
      // Marked by what they are: their months, no SEC frame, no balance sheet, never derived, never a TTM.
      for (const p of ytd) expect(p, `${ticker} ${p.period_end}`).toMatchObject({ calendar_frame: null, balance: null, ttm: null, derived: false });
      for (const query of ["period=quarterly", `period=${all.find((p) => p.months === 3)!.calendar_frame}`]) {
        expect((await financials(`ticker=${ticker}&${query}`)).every((p) => p.months === 3 && p.duration_days < 100), `${ticker} ${query}`).toBe(true);
      }
      // A TTM is made of three-month quarters (or one fiscal year), never a year to date.
      for (const t of await financials(`ticker=${ticker}&period=ttm`)) {
        for (const part of t.ttm!.periods) {
          const made = all.find((p) => p.period_start === part.period_start && p.period_end === part.period_end && p.ttm === null)!;
          expect(made.months, `${ticker} TTM to ${t.period_end}`).toBe(part.fiscal_quarter === "FY" ? 12 : 3);
        }
      }
    }
  });

  it("bad parameters are 400 naming them; an uncovered ticker is 404; no payment is 402 at USD 0.03 — none of them charged", async () => {
    for (const [query, name] of [["statement=ledger", "statement"], ["period=ttm4", "period"], ["as_of=2024-13-01", "as_of"], ["history=maybe", "history"], ["limit=0", "limit"], ["limit=1001", "limit"], ["limit=1e2", "limit"], ["limit=four", "limit"], ["limt=4", "limt"]] as const) {
      const res = await get(`/financials?ticker=AAPL&${query}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: "invalid_parameter", message: expect.stringContaining(name) });
    }
    for (const ticker of ["ZZZZ", "MSFT"]) {
      const res = await gw.get(`/financials?ticker=${ticker}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("payment-required")).toBeNull();
    }
    const unpaid = await gw.get("/financials?ticker=AAPL");
    expect(unpaid.status).toBe(402);
    expect(decodePaymentRequired(unpaid.headers.get("payment-required"))).toMatchObject({ accepts: [{ amount: "30000", scheme: "exact", network: "eip155:8453" }] });
  });

  it("/probe prices it and says it answers for the ticker", async () => {
    const probe = (await (await gw.get("/probe?ticker=AAPL")).json()).data;
    expect(probe.endpoints["/financials"]).toBe(true);
    expect(probe.counts.financials_periods).toBeGreaterThan(100);
    expect(probe.pricing.endpoints["/financials"]).toMatchObject({ usd: "$0.03", amount: "30000" });
  });

  it("limit: the newest rows of those the other parameters select, as of a date and with history alike", async () => {
    for (const query of ["ticker=AAPL&period=quarterly", "ticker=AAPL&period=ttm", "ticker=WMT&statement=balance", "ticker=DIS&as_of=2019-06-30", "ticker=HD&period=annual&history=true"]) {
      const all = await financials(query);
      expect(all.length, query).toBeGreaterThan(4);
      expect(await financials(`${query}&limit=4`), query).toEqual(all.slice(0, 4));
      expect(await financials(`${query}&limit=1000`), query).toEqual(all);
    }
    // Apple's latest four quarters, newest first, each three months (its fiscal year ends on the last Saturday of September).
    const quarters = await financials("ticker=AAPL&period=quarterly&limit=4");
    expect(quarters.map((p) => p.months)).toEqual([3, 3, 3, 3]);
    expect(quarters.map((p) => p.period_end)).toEqual([...quarters.map((p) => p.period_end)].sort().reverse());
    expect(new Set(quarters.map((p) => p.period_end)).size).toBe(4);
  });

  it("get_financials: the same answer as HTTP, its input from the same schema, its result past the SDK's output check", async () => {
    const client = new Client({ name: "statements-agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${started.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${started.key}` } } }));
    const tool = (await client.listTools()).tools.find((t) => t.name === "get_financials")!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(["as_of", "history", "limit", "offset", "period", "statement", "ticker"]);
    // The tool's own default limit keeps its default answer within an agent host's result cap (issue 41).
    expect(tool.inputSchema.properties!.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 1000, default: 6 });
    expect(tool.description).toContain("$0.03");
    for (const args of [
      { ticker: "WMT", statement: "balance", period: "2025" },
      { ticker: "HD", period: "ttm" },
      { ticker: "AAPL", statement: "cash_flow", as_of: "2017-11-03", history: true },
      { ticker: "AAPL", period: "quarterly", limit: 4 },
    ]) {
      const result = (await client.callTool({ name: "get_financials", arguments: args })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const query = new URLSearchParams(Object.entries({ limit: 6, ...args }).map(([k, v]) => [k, String(v)])).toString();
      expect((result.structuredContent as { data: FinancialPeriod[] }).data).toEqual(await financials(query));
    }
    await client.close();
  });
});
