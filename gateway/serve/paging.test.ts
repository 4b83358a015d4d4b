// Answers that fit an agent's budget (issue 41.4): every list answer, over HTTP and MCP, says how many rows match
// (meta.total) and where the next page starts (meta.next_offset, null on the last); limit and offset page every list,
// /insiders and /tickers included; and no tool's default answer for the largest fixture company exceeds an agent
// host's default result cap (Claude Code: 25,000 tokens).
import { serve } from "h3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROUTES } from "../../schemas/api.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, testGateway } from "../../test/_gateway.ts";
import { agentV2, type Agent } from "../../test/_mcp.ts";
import { removeDir } from "../../test/_s3.ts";

/** Claude Code's default cap on an MCP tool result (MAX_MCP_OUTPUT_TOKENS). */
const HOST_CAP_TOKENS = 25_000;
/**
 * Bytes a token, counted low: hosts estimate about 4 bytes a token of text; JSON, dense with quotes, digits and
 * punctuation, tokenises nearer 3. The count is of the text the model reads (content[0].text: the envelope's JSON).
 */
const BYTES_PER_TOKEN = 3;
/** Each list route's largest fixture company, and the arguments that make it a list. */
const LISTS: { path: string; query: string; tool: string; args: Record<string, unknown> }[] = [
  { path: "/filings/latest", query: "ticker=AAPL&form=10-K", tool: "get_latest_filings", args: { ticker: "AAPL" } },
  { path: "/earnings/summary", query: "ticker=AAPL", tool: "get_earnings_summary", args: { ticker: "AAPL" } },
  { path: "/financials", query: "ticker=AAPL", tool: "get_financials", args: { ticker: "AAPL" } },
  { path: "/insiders", query: "ticker=JNJ", tool: "get_insider_transactions", args: { ticker: "JNJ" } },
  { path: "/tickers", query: "", tool: "list_tickers", args: {} },
];

describeEdgar("answers that fit an agent's budget", () => {
  let data: { dataDir: string; mirror: string };
  let gw: ReturnType<typeof testGateway>;
  let server: ReturnType<typeof serve>;
  let base: string;
  let key: string;
  let agent: Agent;

  beforeAll(async () => {
    data = await buildTestData();
    gw = testGateway(data.dataDir, {});
    server = serve(gw.app, { port: 0, hostname: "127.0.0.1", silent: true });
    await server.ready();
    base = server.url!.replace(/\/$/, "");
    key = (await gw.keys.create("paging")).key;
    agent = await agentV2(base, { authorization: `Bearer ${key}` });
  }, 120_000);
  afterAll(async () => {
    await agent?.close();
    gw?.close();
    await server?.close(true);
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });

  const http = async (path: string, query: string) =>
    (await (await fetch(`${base}${path}?${query}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: unknown[]; meta: { total?: number; next_offset?: number | null } };

  it("every list answer says its total and next offset; pages of limit and offset make up the whole list, newest first", async () => {
    for (const { path, query } of LISTS) {
      const whole = await http(path, `${query}&limit=${path === "/filings/latest" ? 100 : 1000}`.replace(/^&/, ""));
      const total = whole.meta.total!;
      expect([whole.data.length, whole.meta.next_offset], path).toEqual([total, null]);
      expect(total, path).toBeGreaterThan(2);
      const pages: unknown[] = [];
      for (let offset: number | null = 0; offset !== null; ) {
        const page = await http(path, `${query}&limit=2&offset=${offset}`.replace(/^&/, ""));
        expect(page.meta.total, path).toBe(total);
        pages.push(...page.data);
        offset = page.meta.next_offset ?? null;
        if (offset !== null) expect(offset, path).toBe(pages.length);
      }
      expect(pages, path).toEqual(whole.data);
    }
  });

  it("the tools page alike: total and next_offset in meta, offset goes on", async () => {
    for (const { tool, args } of LISTS) {
      const first = (await agent.call(tool, { ...args, limit: 2 })).structuredContent as { data: unknown[]; meta: { total: number; next_offset: number | null } };
      const second = (await agent.call(tool, { ...args, limit: 2, offset: 2 })).structuredContent as typeof first;
      expect([first.data.length, first.meta.next_offset, second.meta.total], tool).toEqual([2, 2, first.meta.total]);
      const http2 = await http(LISTS.find((l) => l.tool === tool)!.path, new URLSearchParams({ ...(args as Record<string, string>), limit: "2", offset: "2" }).toString());
      expect(second.data, tool).toEqual(http2.data);
    }
  });

  it("every tool's default answer for the largest fixture company fits the host's result cap, and says where to page on", async () => {
    const defaults: Record<string, Record<string, unknown>> = Object.fromEntries(LISTS.map((l) => [l.tool, l.args]));
    for (const route of ROUTES.filter((r) => r.tool !== null)) {
      const args = defaults[route.tool] ?? (route.tool === "probe_coverage" ? { ticker: "AAPL" } : "example" in route ? route.example : {});
      const result = await agent.call(route.tool, args ?? {});
      expect(result.isError, route.tool).toBeFalsy();
      const text = (result.content[0] as { text: string }).text;
      const tokens = Buffer.byteLength(text) / BYTES_PER_TOKEN;
      expect(tokens, `${route.tool}: ${Buffer.byteLength(text)} bytes`).toBeLessThanOrEqual(HOST_CAP_TOKENS);
      const meta = (result.structuredContent as { meta: { total?: number } }).meta;
      if (Array.isArray((result.structuredContent as { data: unknown }).data)) expect(meta.total, route.tool).toEqual(expect.any(Number));
    }
    // Without the tools' own limit, AAPL's earnings and statements are far past it: the limit is what keeps them in.
    for (const path of ["/earnings/summary", "/financials"]) {
      const whole = await fetch(`${base}${path}?ticker=AAPL`, { headers: { authorization: `Bearer ${key}` } });
      expect((await whole.arrayBuffer()).byteLength / BYTES_PER_TOKEN, path).toBeGreaterThan(HOST_CAP_TOKENS);
    }
  });

  it("a bad offset or limit is invalid_parameter naming it", async () => {
    for (const [query, name] of [["ticker=JNJ&offset=-1", "offset"], ["ticker=JNJ&limit=0", "limit"], ["limit=x", "limit"]] as const) {
      const path = query.startsWith("limit") ? "/tickers" : "/insiders";
      const res = await fetch(`${base}${path}?${query}`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([res.status, body.error.code, body.error.message], query).toEqual([400, "invalid_parameter", expect.stringContaining(name)]);
    }
  });
});
