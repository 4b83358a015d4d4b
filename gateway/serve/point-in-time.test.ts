// /earnings/summary?as_of=…&history=… over a real snapshot, by HTTP and through the MCP SDK's own client.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EarningsPeriod } from "../../schemas/earnings.ts";
import { EarningsDocument } from "../../schemas/snapshot.ts";
import { readJson } from "../../storage/json.ts";
import { documentKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { startKeyedGateway, type KeyedGateway } from "../../test/_gateway.ts";

describeEdgar("earnings as of a date, and each value's history", () => {
  let started: KeyedGateway;
  beforeAll(async () => {
    started = await startKeyedGateway("pit");
  });
  afterAll(() => started?.close());
  const get = (path: string) => started.get(path);
  const earnings = async (query: string): Promise<EarningsPeriod[]> => {
    const res = await get(`/earnings/summary?${query}`);
    expect(res.status).toBe(200);
    return (await res.json()).data;
  };
  const fy2021 = (rows: EarningsPeriod[]) => rows.find((p) => p.period_start === "2021-01-01" && p.period_end === "2021-12-31");

  it("the default answer is the stored rows, byte for byte, with no history in them", async () => {
    const storage = openStorage(started.dataDir);
    const text = await (await get("/earnings/summary?ticker=UA")).text();
    const snapshot = JSON.parse(text).meta.snapshot as string;
    const stored = (await readJson(storage, documentKey(snapshot, "UA", "earnings"), EarningsDocument))!;
    expect(text.slice(0, text.indexOf(',"meta":'))).toBe(`{"data":${JSON.stringify(stored.data)}`);
    expect(text).not.toContain('"history"');
    expect(stored.history).toEqual(expect.any(String)); // the section exists, and only point-in-time answers read it
  });

  it("a restated year: the original figure before the restating filing, the restated one from its filing date", async () => {
    // Under Armour's 10-K for 2021 (0001336917-22-000010, filed 2022-02-23): net income 360,060 ($ thousands); its
    // 10-K filed 2024-05-29 (0001336917-24-000073) restates 2021 to 351,003 and does not restate the quarters.
    const before = fy2021(await earnings("ticker=UA&as_of=2024-05-28"))!;
    expect(before.metrics.net_income).toMatchObject({ value: 360_060_000, restated: false, source_accession: "0001336917-23-000021" });
    expect(before).toMatchObject({ fiscal_year: 2021, fiscal_quarter: "FY", reconciled: true, reconciliation: [] });
    const after = fy2021(await earnings("ticker=UA&as_of=2024-05-29"))!;
    expect(after.metrics.net_income).toMatchObject({
      value: 351_003_000,
      restated: true,
      original_value: 360_060_000,
      original_accession: "0001336917-22-000010",
      source_accession: "0001336917-24-000073",
    });
    expect(after.reconciled).toBe(false);
    expect(after.reconciliation).toContainEqual({ metric: "net_income", quarters_sum: 360_060_000, year_value: 351_003_000, difference: 9_057_000 });
    const first = fy2021(await earnings("ticker=UA&as_of=2022-02-23"))!;
    expect(first.metrics.net_income).toMatchObject({ value: 360_060_000, source_accession: "0001336917-22-000010", filed_at: "2022-02-23" });
  });

  it("periods not yet reported are absent; those reported keep today's labels", async () => {
    const today = await earnings("ticker=UA");
    const then = await earnings("ticker=UA&as_of=2021-06-30");
    expect(fy2021(then)).toBeUndefined();
    expect(then.length).toBeGreaterThan(40);
    expect(then.every((p) => p.filed_at <= "2021-06-30")).toBe(true);
    const labels = new Map(today.map((p) => [`${p.period_start}/${p.period_end}`, [p.fiscal_year, p.fiscal_quarter]]));
    for (const p of then) expect([p.fiscal_year, p.fiscal_quarter]).toEqual(labels.get(`${p.period_start}/${p.period_end}`));
    expect(await earnings("ticker=UA&as_of=1990-01-01")).toEqual([]);
  });

  it("as of a day after every filing equals today's answer", async () => {
    for (const ticker of ["AAPL", "WMT", "HD", "UA", "DIS"]) {
      expect(await earnings(`ticker=${ticker}&as_of=2099-12-31`)).toEqual(await earnings(`ticker=${ticker}`));
    }
  });

  it("history=true lists every value each metric had, in filing order, up to as_of", async () => {
    const all = fy2021(await earnings("ticker=UA&history=true"))!;
    const history = all.metrics.net_income!.history!;
    expect(history.map((e) => [e.value, e.accession, e.form, e.filed_at])).toEqual([
      [360_060_000, "0001336917-22-000010", "10-K", "2022-02-23"],
      [360_060_000, "0001336917-23-000021", "10-K", "2023-05-24"],
      [351_003_000, "0001336917-24-000073", "10-K", "2024-05-29"],
    ]);
    const cut = fy2021(await earnings("ticker=UA&history=true&as_of=2023-12-31&period=2021"))!;
    expect(cut.metrics.net_income!.history!.map((e) => e.filed_at)).toEqual(["2022-02-23", "2023-05-24"]);
    const { history: _h, ...rest } = all.metrics.net_income!;
    expect(rest).toEqual(fy2021(await earnings("ticker=UA"))!.metrics.net_income);
  });

  it("fields naming a later filing are read as of the date too: Under Armour's 2012 has its alternative dates only from the filing that gave them", async () => {
    // Its 10-Q of 2014-08-05 (0001336917-14-000035) dates fiscal 2012 from 2011-12-31 (a twelve-month comparative, 926,149
    // thousand): not known before that filing was accepted.
    const fy2012 = (rows: EarningsPeriod[]) => rows.find((p) => p.period_end === "2012-12-31" && p.months === 12)!;
    const today = fy2012(await earnings("ticker=UA&period=2012"));
    expect(today.alternative_dates).toEqual([{ period_start: "2011-12-31", period_end: "2012-12-31", accession: "0001336917-14-000035" }]);
    expect(fy2012(await earnings("ticker=UA&period=2012&as_of=2014-08-04")).alternative_dates).toEqual([]);
    expect(fy2012(await earnings("ticker=UA&period=2012&as_of=2014-08-05")).alternative_dates).toEqual(today.alternative_dates);
  });

  it("period=2014 finds Walmart's fiscal 2014, which its own 10-K tagged 2013 (the calendar's label)", async () => {
    const rows = await earnings("ticker=WMT&period=2014");
    expect(rows.map((p) => [p.fiscal_quarter, p.months, p.period_end])).toEqual(
      expect.arrayContaining([["FY", 12, "2014-01-31"], ["Q4", 3, "2014-01-31"], ["Q1", 3, "2013-04-30"]]),
    );
    expect(rows.find((p) => p.months === 12)).toMatchObject({ label_source: "calendar", filed_label: { fiscal_year: 2013, accession: "0000104169-14-000019" } });
  });

  it("a bad as_of or history is a 400 naming the parameter", async () => {
    for (const [query, name] of [["as_of=2024-02-30", "as_of"], ["as_of=yesterday", "as_of"], ["history=yes", "history"]] as const) {
      const res = await get(`/earnings/summary?ticker=UA&${query}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: "invalid_parameter", message: expect.stringContaining(name) });
    }
  });

  it("the MCP tool takes as_of and history from the same schema and its result passes the SDK's output check", async () => {
    const client = new Client({ name: "pit-agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${started.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${started.key}` } } }));
    const tool = (await client.listTools()).tools.find((t) => t.name === "get_earnings_summary")!;
    expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["as_of", "history", "limit"]));
    const result = (await client.callTool({ name: "get_earnings_summary", arguments: { ticker: "UA", as_of: "2024-05-28", history: true, period: "2021" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const year = fy2021((result.structuredContent as { data: EarningsPeriod[] }).data)!;
    expect(year.metrics.net_income).toMatchObject({ value: 360_060_000, history: [expect.objectContaining({ filed_at: "2022-02-23" }), expect.objectContaining({ filed_at: "2023-05-24" })] });
    // limit: the newest rows, as over HTTP.
    const latest = (await client.callTool({ name: "get_earnings_summary", arguments: { ticker: "UA", period: "quarterly", limit: 2 } })) as CallToolResult;
    expect(latest.isError).toBeFalsy();
    expect((latest.structuredContent as { data: EarningsPeriod[] }).data).toEqual((await earnings("ticker=UA&period=quarterly")).slice(0, 2));
    await client.close();
  });
});
