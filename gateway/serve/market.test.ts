import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { serve } from "h3";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { runBuild } from "../../build/pipeline/run.ts";
import { createDirSource } from "../../build/sources/dir.ts";
import { MarketFiling, MarketInsider } from "../../schemas/cross.ts";
import { readPublished } from "../../build/publish/snapshot.ts";
import { describeEdgar, makeOverlayMirror, ownFile } from "../../test/_edgar.ts";
import { GATEWAY_TICKERS, testGateway } from "../../test/_gateway.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { removeDir } from "../../test/_s3.ts";
import { addressOf, ANVIL_KEYS, decodePaymentResponse, payingFetch } from "../../test/_x402.ts";
import { openStorage } from "../../storage/open.ts";
import { createUsdcLedger, type UsdcLedger } from "../payment/dev-chain/ledger.ts";
import { createLocalFacilitator } from "../payment/dev-chain/facilitator.ts";

// /market/filings and /market/insiders (issue 40) on the fixtures' real filings and Forms 4: every row is the company's
// own /filings/latest or /insiders row with who it is; a company published after the last full build (as the follower
// publishes) is laid over that build's feeds; the date bounds, filters and paging; an empty page is not charged.

type Envelope<T> = { data: T[]; meta: { total?: number; next_offset?: number | null } };
const PAYER = addressOf(ANVIL_KEYS.payer);
/** "Today" for these tests: the evening Walmart filed its first-quarter results (8-K 2.02, 2026-05-21). */
const TODAY = new Date("2026-05-21T23:00:00.000Z");
const WMT_SUBMISSIONS = "submissions/CIK0000104169.json";

describeEdgar("the market feeds across the fixtures' companies", () => {
  let mirror: string;
  let dataDir: string;
  let gw: ReturnType<typeof testGateway>;
  let ledger: UsdcLedger;
  let base: string;
  let key: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // The last full build ran before Walmart's 8-K of 2026-05-21 reached its submissions; a later one rebuilt Walmart
    // alone (--tickers), as the follower rebuilds a company that files: Walmart is laid over the build's feeds.
    mirror = makeOverlayMirror();
    // The mirror's own copy of Walmart's submissions: the fixtures, which tests beside this one read, stay as they are.
    const full = readFileSync(ownFile(mirror, WMT_SUBMISSIONS), "utf8");
    writeFileSync(join(mirror, WMT_SUBMISSIONS), withoutFilingsAfter(full, "2026-05-20"));
    dataDir = (await import("node:fs")).mkdtempSync(join((await import("node:os")).tmpdir(), "market-data-"));
    const storage = openStorage(dataDir);
    const build = (tickers: string[], at: string) =>
      runBuild({ source: createDirSource(mirror), storage, log: memoryLogger(), tickers, now: () => new Date(at), lookbackDays: 730 });
    await build(GATEWAY_TICKERS, "2026-05-21T12:00:00.000Z");
    writeFileSync(join(mirror, WMT_SUBMISSIONS), full);
    await build(["WMT"], "2026-05-21T22:00:00.000Z");
    vi.useFakeTimers({ toFake: ["Date"], now: TODAY });
    ledger = createUsdcLedger();
    ledger.fund(PAYER, 1_000_000n);
    gw = testGateway(dataDir, { facilitator: createLocalFacilitator(ledger) });
    key = (await gw.keys.create("market")).key;
    const server = serve(gw.app, { port: 0, hostname: "127.0.0.1", silent: true });
    await server.ready();
    base = server.url!.replace(/\/$/, "");
    close = async () => (gw.close(), await server.close(true));
  });
  afterAll(async () => {
    vi.useRealTimers();
    await close?.();
    for (const dir of [dataDir, mirror]) if (dir) removeDir(dir);
  });

  const keyed = async <T>(path: string) => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Envelope<T>;
  };

  it("the --tickers build kept the full build's cross-company documents: Walmart's new filings come from its own documents", async () => {
    const { manifest } = (await readPublished(openStorage(dataDir)))!;
    expect(manifest.cross?.built_at).toBe("2026-05-21T12:00:00.000Z");
    const filings = await keyed<MarketFiling>("/market/filings?since=2026-05-14&limit=500");
    // 8-Ks with results (item 2.02): Walmart's of 2026-05-21 (laid over the build), Home Depot's of 2026-05-19 (the build's).
    const results = filings.data.filter((f) => f.items.includes("2.02"));
    expect(results.map((f) => [f.ticker, f.filed_at])).toEqual([
      ["WMT", "2026-05-21"],
      ["HD", "2026-05-19"],
    ]);
    expect((await keyed<MarketFiling>("/market/filings?since=2026-05-14&item=2.02")).data).toEqual(results);
  });

  it("every filing is the company's own /filings/latest item with its ticker, CIK and name, newest first, none twice", async () => {
    const { data, meta } = await keyed<MarketFiling>("/market/filings?since=2026-05-14&limit=500");
    expect(meta.total).toBe(data.length);
    expect(data.length).toBeGreaterThan(3);
    expect(new Set(data.map((f) => f.accession_number)).size).toBe(data.length);
    const order = data.map((f) => `${f.accepted_at ?? f.filed_at}|${f.accession_number}`);
    expect(order).toEqual([...order].sort().reverse());
    for (const row of data) {
      MarketFiling.parse(row);
      expect(row.filed_at >= "2026-05-14").toBe(true);
      const own = await keyed<Record<string, unknown>>(`/filings/latest?ticker=${row.ticker}&limit=100`);
      const { ticker: _t, cik: _c, name: _n, ...filing } = row;
      expect(own.data).toContainEqual(filing);
    }
    expect((await keyed<MarketFiling>("/market/filings?since=2026-05-14&form=8-k")).data.every((f) => f.form === "8-K")).toBe(true);
  });

  it("pages on with offset and next_offset, losing and repeating nothing", async () => {
    const all = (await keyed<MarketFiling>("/market/filings?since=2026-05-14&limit=500")).data.map((f) => f.accession_number);
    const seen: string[] = [];
    for (let offset: number | null | undefined = 0; offset !== null && offset !== undefined; ) {
      const page: Envelope<MarketFiling> = await keyed<MarketFiling>(`/market/filings?since=2026-05-14&limit=3&offset=${offset}`);
      seen.push(...page.data.map((f) => f.accession_number));
      offset = page.meta.next_offset;
    }
    expect(seen).toEqual(all);
  });

  it("Form 4 rows are the issuer's own /insiders rows with its ticker and name; code, role and min_value filter them", async () => {
    // Johnson & Johnson's Forms 4 in the fixtures' overlay: awards (code A) of 2026-04-23 to its directors.
    const { data } = await keyed<MarketInsider>("/market/insiders?since=2026-04-01&limit=500");
    expect(data.length).toBeGreaterThan(0);
    for (const row of data) {
      MarketInsider.parse(row);
      const { ticker, name, ...own } = row;
      expect([ticker, name]).toEqual(["JNJ", "JOHNSON & JOHNSON"]);
      expect((await keyed<Record<string, unknown>>(`/insiders?ticker=JNJ&since=2026-04-01`)).data).toContainEqual(own);
    }
    const awards = (await keyed<MarketInsider>("/market/insiders?since=2026-04-01&code=a")).data;
    expect(awards).toEqual(data.filter((r) => r.transaction_code === "A"));
    const directors = (await keyed<MarketInsider>("/market/insiders?since=2026-04-01&role=director")).data;
    expect(directors).toEqual(data.filter((r) => r.owners.some((o) => o.is_director)));
    expect((await keyed<MarketInsider>("/market/insiders?since=2026-04-01&role=officer")).data).toEqual(data.filter((r) => r.owners.some((o) => o.is_officer)));
    expect((await keyed<MarketInsider>("/market/insiders?since=2026-04-01&min_value=1")).data).toEqual(data.filter((r) => r.value !== null && r.value >= 1));
    // The default reaches 7 days back: none of these.
    expect((await keyed<MarketInsider>("/market/insiders")).data).toEqual([]);
  });

  it.each([
    ["/market/filings?since=2026-05-13", "since", "more than 7 days back"],
    ["/market/filings?since=2026-05-22", "since", "after today"],
    ["/market/filings?since=2026-05-14&item=2.2", "item", ""],
    ["/market/filings?limit=0", "limit", ""],
    ["/market/insiders?since=2026-02-19", "since", "more than 90 days back"],
    ["/market/insiders?role=ceo", "role", ""],
    ["/market/insiders?code=PP", "code", ""],
    ["/market/insiders?min_value=lots", "min_value", ""],
  ])("%s is a 400 naming %s, before any payment", async (path, name, detail) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("invalid_parameter");
    expect(error.message).toContain(name);
    expect(error.message).toContain(detail);
  });

  it("x402: a page with rows is paid once, an empty page is not charged", async () => {
    const pay = payingFetch(ANVIL_KEYS.payer);
    const before = ledger.balanceOf(PAYER);
    const paid = await pay(`${base}/market/filings?since=2026-05-14&item=2.02`);
    expect(paid.status).toBe(200);
    expect(decodePaymentResponse(paid.headers.get("payment-response"))).toMatchObject({ success: true });
    expect(ledger.balanceOf(PAYER)).toBe(before - 10_000n); // USD 0.01
    const empty = await pay(`${base}/market/insiders?since=2026-04-01&code=P`);
    expect(empty.status).toBe(200);
    expect(((await empty.json()) as Envelope<unknown>).data).toEqual([]);
    expect(ledger.balanceOf(PAYER)).toBe(before - 10_000n);
  });

  it("through MCP: get_market_filings and get_market_insider_activity give the HTTP answers", async () => {
    const client = new Client({ name: "market-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    await client.listTools();
    const filings = (await client.callTool({ name: "get_market_filings", arguments: { since: "2026-05-14", item: "2.02" } })) as CallToolResult;
    expect((filings.structuredContent as Envelope<MarketFiling>).data).toEqual((await keyed<MarketFiling>("/market/filings?since=2026-05-14&item=2.02")).data);
    const insiders = (await client.callTool({ name: "get_market_insider_activity", arguments: { since: "2026-04-01", role: "director" } })) as CallToolResult;
    expect((insiders.structuredContent as Envelope<MarketInsider>).data).toEqual((await keyed<MarketInsider>("/market/insiders?since=2026-04-01&role=director")).data);
    await client.close();
  });
});

/** A submissions file without the filings of its recent block filed after `day` (as EDGAR listed it before them). */
function withoutFilingsAfter(text: string, day: string): string {
  const file = JSON.parse(text) as { filings: { recent: Record<string, unknown[]> } };
  const recent = file.filings.recent;
  const keep = (recent.filingDate as string[]).map((d) => d <= day);
  for (const [column, values] of Object.entries(recent)) recent[column] = values.filter((_, i) => keep[i]);
  return JSON.stringify(file);
}
