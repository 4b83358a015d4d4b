// Coverage messages state evidence (issue 16): what the builder found, in the manifest, the 404 and /probe alike.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runBuild } from "../../build/pipeline/run.ts";
import { createDirSource } from "../../build/sources/dir.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { openStorage } from "../../storage/open.ts";
import { addTickerRows, describeEdgar, makeOverlayMirror, TSM_ROW } from "../../test/_edgar.ts";
import { testGateway } from "../../test/_gateway.ts";
import { removeDir } from "../../test/_s3.ts";

// Synthetic company facts (the fixtures have no such company): KO's CIK with only cover-page (dei) facts, and PG's
// with revenue only from an 8-K. Both are real shapes of EDGAR's no-financial-history cases.
const KO_FACTS = { cik: 21344, entityName: "SYNTHETIC: dei only", facts: { dei: { EntityCommonStockSharesOutstanding: { units: { shares: [{ end: "2026-04-24", val: 1, accn: "0000021344-26-000001", fy: 2026, fp: "Q1", form: "10-Q", filed: "2026-04-28" }] } } } } };
const PG_FACTS = { cik: 80424, entityName: "SYNTHETIC: no periodic facts", facts: { "us-gaap": { Revenues: { units: { USD: [{ start: "2025-07-01", end: "2025-09-30", val: 1, accn: "0000080424-25-000001", fy: 2026, fp: "Q1", form: "8-K", filed: "2025-10-17" }] } } } } };

describeEdgar("coverage evidence", () => {
  let overlay: string;
  let mirror: string;
  let data: string;
  beforeAll(async () => {
    overlay = mkdtempSync(join(tmpdir(), "overlay-coverage-"));
    for (const [cik, facts] of [["0000021344", KO_FACTS], ["0000080424", PG_FACTS]] as const) {
      const path = join(overlay, `api/xbrl/companyfacts/CIK${cik}.json`);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, JSON.stringify(facts));
    }
    mirror = makeOverlayMirror(overlay);
    addTickerRows(mirror, [TSM_ROW]);
    data = mkdtempSync(join(tmpdir(), "coverage-data-"));
    // TSM: company facts in the fixtures, its submissions not (its row is added to their map): the source fails for it.
    const tickers = ["AAPL", "MSFT", "KO", "PG", "TSM"];
    await runBuild({ source: createDirSource(mirror), storage: openStorage(data), log: memoryLogger(), tickers, now: () => new Date("2026-07-01T12:00:00.000Z"), workers: 0 });
  });
  afterAll(() => [overlay, mirror, data].forEach(removeDir));

  const EVIDENCE = {
    MSFT: "MSFT (CIK 789019) is not covered: the source has no company facts for CIK 789019 (api/xbrl/companyfacts/CIK0000789019.json: not found).",
    KO: "KO (CIK 21344) is not covered: the company facts of CIK 21344 hold no us-gaap or ifrs-full facts (no XBRL financial history).",
    PG: "PG (CIK 80424) is not covered: the company facts of CIK 80424 hold no income-statement facts from periodic reports (10-K, 10-Q, 20-F…).",
    TSM: "TSM (CIK 1046179) is not covered: EDGAR could not be read for it in the latest build and no earlier documents exist; the next build tries again.",
  };

  it.each(Object.entries(EVIDENCE))("%s: the 404 states what the builder found, before any payment is asked", async (ticker, message) => {
    const gw = testGateway(data);
    for (const path of ["/filings/latest", "/earnings/summary", "/insiders", "/financials"]) {
      const res = await gw.get(`${path}?ticker=${ticker}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("payment-required")).toBeNull();
      const body = await res.json();
      expect(body.error).toMatchObject({ code: "ticker_not_covered", message, hint: expect.stringMatching(/\/probe\?ticker=… \(free\)/) });
    }
    const probe = (await (await gw.get(`/probe?ticker=${ticker}`)).json()).data.ticker_coverage;
    expect(probe).toMatchObject({ covered: false, evidence: message.replace(/^\S+ \(CIK \d+\) is not covered: /, "").replace(/\.$/, "") });
    gw.close();
  });

  it("an unknown ticker: not in the snapshot, and where the covered ones are listed", async () => {
    const gw = testGateway(data);
    const body = await (await gw.get("/earnings/summary?ticker=ZZZZ")).json();
    expect(body.error).toEqual({
      code: "ticker_not_covered",
      message: "ZZZZ is not in this service's universe: the published snapshot has no entry for it.",
      hint: expect.stringMatching(/^GET \/tickers \(free\) lists every covered ticker/),
    });
    const probe = (await (await gw.get("/probe?ticker=ZZZZ")).json()).data.ticker_coverage;
    expect(probe).toMatchObject({ covered: false, reason: "unknown_ticker", evidence: "the published snapshot has no entry for this ticker" });
    expect((await (await gw.get("/probe?ticker=AAPL")).json()).data.ticker_coverage).toMatchObject({ covered: true, evidence: null });
    gw.close();
  });
});
