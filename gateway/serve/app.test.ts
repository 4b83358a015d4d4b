import type { FacilitatorClient } from "@x402/core/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody } from "../../schemas/errors.ts";
import { removeDir } from "../../test/_s3.ts";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, testGateway } from "../../test/_gateway.ts";
import { createUsdcLedger } from "../payment/dev-chain/ledger.ts";
import { createLocalFacilitator } from "../payment/dev-chain/facilitator.ts";
import { freshnessSummary } from "./probe.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

/** A real local facilitator that counts every call, to prove a request never reached payment. */
function countingFacilitator(): FacilitatorClient & { calls: number } {
  const inner = createLocalFacilitator(createUsdcLedger({ autoCreditAtomic: 10n ** 9n }));
  const out = {
    calls: 0,
    verify: (...a: Parameters<FacilitatorClient["verify"]>) => (out.calls++, inner.verify(...a)),
    settle: (...a: Parameters<FacilitatorClient["settle"]>) => (out.calls++, inner.settle(...a)),
    getSupported: () => inner.getSupported(),
  };
  return out;
}

async function errorOf(res: Response): Promise<ErrorBody["error"]> {
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return ErrorBody.parse(await res.json()).error;
}

describeEdgar("gateway over a real snapshot", () => {
  let data: { dataDir: string; mirror: string };
  let gw: ReturnType<typeof testGateway>;
  let facilitator: ReturnType<typeof countingFacilitator>;
  let key: string;
  beforeAll(async () => {
    data = await buildTestData();
    facilitator = countingFacilitator();
    gw = testGateway(data.dataDir, { facilitator });
    key = (await gw.keys.create("test")).key;
  });
  afterAll(() => {
    gw?.close();
    if (data) [data.dataDir, data.mirror].forEach(removeDir);
  });
  const auth = () => ({ headers: { authorization: `Bearer ${key}` } });

  it("a free answer's cache says whether the snapshot was in memory or read for it", async () => {
    for (const [first, then] of [["/probe?ticker=AAPL", "/tickers"], ["/tickers", "/probe"]]) {
      const fresh = testGateway(data.dataDir);
      try {
        const caches = [];
        for (const path of [first, then, "/health"]) caches.push(((await (await fresh.get(path!)).json()) as { meta: { cache: string } }).meta.cache);
        expect(caches).toEqual(["miss", "hit", "hit"]);
      } finally {
        fresh.close();
      }
    }
  });

  it("/health answers in the envelope with the snapshot it serves", async () => {
    await gw.get("/probe"); // loads the snapshot
    const res = await gw.get("/health");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data).toMatchObject({ status: "ok", snapshot: expect.stringMatching(/^20260701T120000Z-/) });
    expect(body.meta).toMatchObject({ cache: "hit", retrieved_at: expect.any(String) });
  });

  it("/probe summarises the service and prices every endpoint", async () => {
    const { data: probe } = await (await gw.get("/probe")).json();
    expect(probe).toMatchObject({ universe: 10, covered: 7, not_covered: { no_xbrl_history: 2, source_failed: 1 } });
    // One build rebuilt every covered ticker: all of them are as old as the snapshot.
    expect(probe.freshness).toEqual({
      built_at_age: { under_12h: 7, "12h_to_24h": 0, "1d_to_3d": 0, over_3d: 0 },
      oldest_built_at: "2026-07-01T12:00:00.000Z",
    });
    expect(probe.pricing.endpoints).toEqual({
      "/health": null,
      "/probe": null,
      "/tickers": null,
      "/filings/latest": { usd: "$0.01", amount: "10000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", scheme: "exact" },
      "/earnings/summary": { usd: "$0.02", amount: "20000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", scheme: "exact" },
      "/insiders": { usd: "$0.01", amount: "10000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", scheme: "exact" },
      "/financials": { usd: "$0.03", amount: "30000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", scheme: "exact" },
      "/segments": { usd: "$0.02", amount: "20000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", scheme: "exact" },
      "/screen": { usd: "$0.05", amount: "50000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", scheme: "exact" },
      "/market/insiders": { usd: "$0.02", amount: "20000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", scheme: "exact" },
      "/market/filings": { usd: "$0.01", amount: "10000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", scheme: "exact" },
    });
    expect(probe.pricing.subscription).toMatchObject({ usd_per_month: "19.00", unlimited: true });
  });

  it("/probe?ticker= tells covered, not covered with its reason, and unknown tickers apart", async () => {
    const aapl = (await (await gw.get("/probe?ticker=aapl")).json()).data;
    expect(aapl.ticker_coverage).toEqual({ ticker: "AAPL", covered: true, cik: 320193, earlier_ciks: [], name: "Apple Inc.", reason: null, evidence: null });
    expect(aapl.endpoints).toEqual({ "/filings/latest": true, "/earnings/summary": true, "/insiders": false, "/financials": true, "/segments": true });
    expect(aapl.counts.filings).toBe(1005);
    expect(aapl.freshness.newest_filing).toBe("2026-02-26");
    const msft = (await (await gw.get("/probe?ticker=MSFT")).json()).data;
    expect(msft.ticker_coverage).toMatchObject({ covered: false, reason: "no_xbrl_history", cik: 789019 });
    const zzz = (await (await gw.get("/probe?ticker=ZZZZZ")).json()).data;
    expect(zzz.ticker_coverage).toMatchObject({ covered: false, reason: "unknown_ticker", cik: null });
    expect((await gw.get("/probe?ticker=BRK.B")).status).toBe(200);
  });

  it("unknown paths are 404 and other methods 405 with Allow, in the error body", async () => {
    const missing = await gw.get("/filings");
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).code).toBe("not_found");
    const post = await gw.get("/filings/latest?ticker=AAPL", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await errorOf(post)).code).toBe("method_not_allowed");
  });

  it.each([
    ["/filings/latest", "ticker"],
    ["/filings/latest?ticker=AAPL&limit=0", "limit"],
    ["/filings/latest?ticker=AAPL&limit=101", "limit"],
    ["/filings/latest?ticker=AAPL&limit=1e2", "limit"],
    ["/filings/latest?ticker=AAPL&ticker=MSFT", "given 2 times"],
    ["/filings/latest?ticker=AAPL&sort=asc", "unknown parameter"],
    ["/filings/latest?ticker=..%2Fetc%2Fpasswd", "ticker"],
    ["/filings/latest?ticker=AAPL%00", "ticker"],
    ["/earnings/summary?ticker=AAPL&period=FY23", "period"],
    ["/earnings/summary?ticker=AAPL&limit=0", "limit"],
    ["/earnings/summary?ticker=AAPL&limit=1001", "limit"],
    ["/earnings/summary?ticker=AAPL&limit=2.5", "limit"],
    ["/insiders?ticker=AAPL&since=2023-02-30", "since"],
    ["/insiders?ticker=AAPL&since=yesterday", "since"],
  ])("%s → 400 naming %s, before any payment", async (path, mention) => {
    const before = facilitator.calls;
    const res = await gw.get(path);
    expect(res.status).toBe(400);
    expect(res.headers.get("payment-required")).toBeNull();
    const error = await errorOf(res);
    expect(error.code).toBe("invalid_parameter");
    expect(error.message).toContain(mention);
    expect(facilitator.calls).toBe(before);
  });

  it("an uncovered or unknown ticker is 404 with no payment asked", async () => {
    for (const path of ["/earnings/summary?ticker=MSFT", "/insiders?ticker=ZZZZZ", "/filings/latest?ticker=TSM"]) {
      const res = await gw.get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get("payment-required")).toBeNull();
      expect((await errorOf(res)).code).toBe("ticker_not_covered");
    }
  });

  it("without payment or key, a covered ticker is 402 with the requirements only in PAYMENT-REQUIRED", async () => {
    const res = await gw.get("/earnings/summary?ticker=AAPL");
    expect(res.status).toBe(402);
    const required = JSON.parse(Buffer.from(res.headers.get("payment-required")!, "base64").toString());
    expect(required).toMatchObject({
      x402Version: 2,
      resource: { url: "https://api.example.test/earnings/summary", mimeType: "application/json" },
      accepts: [{ scheme: "exact", network: "eip155:8453", amount: "20000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }],
    });
    const error = await errorOf(res);
    expect(error.code).toBe("payment_required");
    expect(JSON.stringify(error)).not.toContain("0x8335");
  });

  it("a valid key gets the data with no x402 at all; Bearer and X-API-Key alike", async () => {
    const before = facilitator.calls;
    const res = await gw.get("/filings/latest?ticker=AAPL&limit=3", auth());
    expect(res.status).toBe(200);
    expect(res.headers.get("payment-response")).toBeNull();
    const body = await res.json();
    expect(body.data).toHaveLength(3);
    expect(body.data[0]).toMatchObject({ accession_number: "0001059235-26-000004", form: "4" });
    expect(body.meta).toMatchObject({
      source_api: expect.stringMatching(/submissions\/CIK0000320193\.json$/),
      source_accession: "0001059235-26-000004",
      filed_at: "2026-02-26",
    });
    const viaHeader = await gw.get("/filings/latest?ticker=AAPL&form=10-k&limit=2", { headers: { "x-api-key": key } });
    const tenK = (await viaHeader.json()).data;
    expect(tenK.map((f: { form: string }) => f.form)).toEqual(["10-K", "10-K"]);
    expect(tenK[0].accession_number).toBe("0000320193-25-000079"); // Apple's 10-K filed 2025-10-31
    expect(facilitator.calls).toBe(before);
  });

  it("an unknown or revoked key is 401 invalid_api_key, never a fallback to x402", async () => {
    const bad = await gw.get("/insiders?ticker=JNJ", { headers: { authorization: "Bearer fds_not-a-real-key" } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("payment-required")).toBeNull();
    expect((await errorOf(bad)).code).toBe("invalid_api_key");
    const { key: doomed } = await gw.keys.create(null);
    expect((await gw.get("/insiders?ticker=JNJ", { headers: { "x-api-key": doomed } })).status).toBe(200);
    await gw.keys.revoke(doomed);
    expect((await gw.get("/insiders?ticker=JNJ", { headers: { "x-api-key": doomed } })).status).toBe(401);
  });

  it("documents come from storage once, then from memory (meta.cache miss, then hit)", async () => {
    const first = await (await gw.get("/earnings/summary?ticker=HD", auth())).json();
    const second = await (await gw.get("/earnings/summary?ticker=HD&period=annual", auth())).json();
    expect([first.meta.cache, second.meta.cache]).toEqual(["miss", "hit"]);
  });

  it("a keyed call answered from memory is the pipeline's answer, and an uncovered ticker is still 404 first", async () => {
    const { key: fresh } = await gw.keys.create(null);
    const headers = { "x-api-key": fresh };
    // First call: the key is not yet trusted from memory, so the whole pipeline runs (and verifies it).
    const piped = await gw.get("/insiders?ticker=DIS&since=2020-01-01", { headers });
    const remembered = await gw.get("/insiders?ticker=DIS&since=2020-01-01", { headers });
    expect([piped.status, remembered.status]).toEqual([200, 200]);
    expect(Object.fromEntries(remembered.headers)).toEqual(Object.fromEntries(piped.headers));
    const [a, b] = [await piped.json(), await remembered.json()];
    expect(b.data).toEqual(a.data);
    expect(b.meta).toEqual({ ...a.meta, cache: "hit", retrieved_at: b.meta.retrieved_at });
    const before = facilitator.calls;
    const uncovered = await gw.get("/insiders?ticker=MSFT", { headers }); // MSFT is not covered here (see the test above)
    expect(uncovered.status).toBe(404);
    expect((await errorOf(uncovered)).code).toBe("ticker_not_covered");
    expect(facilitator.calls).toBe(before);
  });

  it("a remembered key in any other form is read by the pipeline: odd spacing still answers, extra words still fail", async () => {
    const { key: fresh } = await gw.keys.create(null);
    const call = (authorization: string) => gw.get("/insiders?ticker=DIS", { headers: { authorization } });
    expect((await call(`Bearer ${fresh}`)).status).toBe(200); // now remembered
    expect((await call(`bearer   ${fresh}`)).status).toBe(200);
    for (const odd of [`Bearer ${fresh} extra`, `Bearer  ${fresh}x`, `Xearer ${fresh}`, `Bearer${fresh}`]) {
      const refused = await call(odd);
      expect(refused.status, odd).toBe(401);
      expect((await errorOf(refused)).code).toBe("invalid_api_key");
    }
  });

  it("filters earnings by period form: annual, quarterly (Q4 included), a fiscal year, an SEC frame", async () => {
    const get = async (period: string) => (await (await gw.get(`/earnings/summary?ticker=AAPL&period=${period}`, auth())).json()).data;
    const annual = await get("annual");
    expect(annual.length).toBeGreaterThan(5);
    expect(annual.every((p: { months: number; fiscal_quarter: string }) => p.months === 12 && p.fiscal_quarter === "FY")).toBe(true);
    const quarterly = await get("quarterly");
    expect(quarterly.every((p: { months: number }) => p.months === 3)).toBe(true);
    expect(quarterly.some((p: { derived: boolean; fiscal_quarter: string }) => p.derived && p.fiscal_quarter === "Q4")).toBe(true);
    const fy2023 = await get("FY2023");
    expect(fy2023.every((p: { fiscal_year: number }) => p.fiscal_year === 2023)).toBe(true);
    // Apple's FY2023: revenue 383,285 M USD (10-K for fiscal 2023, "Total net sales").
    expect(fy2023.find((p: { months: number }) => p.months === 12).metrics.revenue.value).toBe(383_285_000_000);
    expect(await get("2023")).toEqual(fy2023);
    const frame = await get("CY2023Q3");
    expect(frame).toHaveLength(1);
    expect(frame[0]).toMatchObject({ months: 3, calendar_frame: "CY2023Q3", period_end: "2023-09-30" });
  });

  it("limit keeps the newest rows of those the period selects (none given: every row)", async () => {
    const get = async (query: string) => (await (await gw.get(`/earnings/summary?ticker=AAPL&${query}`, auth())).json()).data;
    for (const period of ["annual", "quarterly", "interim"]) {
      const all = await get(`period=${period}`);
      expect(all.length, period).toBeGreaterThan(4);
      expect(await get(`period=${period}&limit=4`), period).toEqual(all.slice(0, 4));
      expect(await get(`period=${period}&limit=1000`), period).toEqual(all);
    }
    const everything = await get("history=false");
    expect(await get("limit=1")).toEqual(everything.slice(0, 1));
    // Point in time: the newest rows as they stood then (Apple's 10-Q of 2020-07-31 was its newest filing that day).
    const then = await get("period=quarterly&as_of=2020-08-15");
    expect(then[0]).toMatchObject({ period_end: "2020-06-27", months: 3 });
    expect(await get("period=quarterly&as_of=2020-08-15&limit=2")).toEqual(then.slice(0, 2));
  });

  it("filters insider rows on transaction date", async () => {
    const all = (await (await gw.get("/insiders?ticker=JNJ", auth())).json()).data;
    expect(all).toHaveLength(3);
    const since = (await (await gw.get("/insiders?ticker=JNJ&since=2026-04-24", auth())).json()).data;
    expect(since.every((t: { transaction_date: string }) => t.transaction_date >= "2026-04-24")).toBe(true);
    expect(since.length).toBeLessThan(all.length + 1);
  });

  it("an empty answer is a 200 with empty data", async () => {
    const res = await gw.get("/insiders?ticker=AAPL", auth());
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual([]);
  });
});

describe("/probe freshness summary", () => {
  it("buckets covered tickers by document age relative to the snapshot, uncovered ones left out", () => {
    const entry = (covered: boolean, built_at: string | null) => ({ covered, freshness: { built_at } });
    const manifest = {
      built_at: "2026-07-04T12:00:00.000Z",
      tickers: {
        A: entry(true, "2026-07-04T12:00:00.000Z"), // same run
        B: entry(true, "2026-07-04T00:00:01.000Z"), // 11h59m59s
        C: entry(true, "2026-07-04T00:00:00.000Z"), // exactly 12h
        D: entry(true, "2026-07-03T12:00:00.000Z"), // exactly 24h
        E: entry(true, "2026-07-01T12:00:01.000Z"), // just under 3 days
        F: entry(true, "2026-06-20T12:00:00.000Z"), // kept for two weeks after source failures
        G: entry(false, null),
      },
    };
    expect(freshnessSummary({ manifest } as unknown as LoadedSnapshot)).toEqual({
      built_at_age: { under_12h: 2, "12h_to_24h": 1, "1d_to_3d": 2, over_3d: 1 },
      oldest_built_at: "2026-06-20T12:00:00.000Z",
    });
  });
});
