// `dataset audit` on the earnings and statement series invariants: marked exceptions are warnings, broken invariants findings.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { ScreenDocument } from "../../schemas/cross.ts";
import { FINANCIAL_INVARIANTS } from "../../schemas/financials.ts";
import { CurrentPointer, EarningsDocument, FinancialsDocument, Manifest } from "../../schemas/snapshot.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { readJson } from "../../storage/json.ts";
import { CURRENT_KEY, documentKeyOf } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, makeOverlayMirror } from "../../test/_edgar.ts";
import { removeDir } from "../../test/_s3.ts";
import { auditSnapshot } from "./audit.ts";
import { main } from "./cli.ts";
import { countExceptions } from "../derive/invariants.ts";
import { runBuild } from "../pipeline/run.ts";
import { createDirSource } from "../sources/dir.ts";

describeEdgar("dataset audit: the earnings series invariants", () => {
  let mirror: string;
  let dir: string;
  beforeAll(async () => {
    mirror = makeOverlayMirror();
    dir = mkdtempSync(join(tmpdir(), "audit-"));
    await runBuild({ source: createDirSource(mirror), storage: openStorage(dir), log: memoryLogger(), tickers: ["WMT", "AAPL"], now: () => new Date("2026-07-01T12:00:00.000Z") });
  });
  afterAll(() => [mirror, dir].forEach((d) => d && removeDir(d)));

  async function financials(ticker: string) {
    const storage = openStorage(dir);
    const pointer = (await readJson(storage, CURRENT_KEY, CurrentPointer))!;
    const key = documentKeyOf((await readJson(storage, pointer.manifest, Manifest))!, ticker, "financials");
    return { storage, key, doc: (await readJson(storage, key, FinancialsDocument))! };
  }

  async function earnings(ticker: string) {
    const storage = openStorage(dir);
    const pointer = (await readJson(storage, CURRENT_KEY, CurrentPointer))!;
    const manifest = (await readJson(storage, pointer.manifest, Manifest))!;
    const key = documentKeyOf(manifest, ticker, "earnings");
    return { storage, key, doc: (await readJson(storage, key, EarningsDocument))!, manifest };
  }

  it("a sound build: no findings; a ticker's marked exceptions are one warning, counted alike in the manifest", async () => {
    const report = await auditSnapshot(openStorage(dir));
    expect(report.findings).toEqual([]);
    // Walmart restated fiscal 2012 in its 10-K filed 2014-03-21 (0000104169-14-000019), not its quarters: marked. Apple's
    // 10-K of 2017-11-03 (0000320193-17-000070) restated fiscal 2015 and 2016 dividends paid to include dividend
    // equivalents (11,561 and 12,150 million; first 11,431 and 11,965) and never its quarters: marked in the statements.
    // Its 10-K of 2018-11-05 (0000320193-18-000145) restated fiscal 2016's operating cash flow, 65,824 → 66,231 million,
    // and no quarter of that year: marked too.
    // (Fiscal 2017's quarters, once a mix of vintages, are served from one filing's set and add up: not marked.)
    expect(report.warnings).toEqual([
      "AAPL: 2 financials rows carry marked exceptions (reconciled 2)",
      expect.stringMatching(/^WMT: \d+ earnings periods carry marked exceptions \(reconciled \d+\)$/),
      expect.stringMatching(/^WMT: \d+ financials rows carry marked exceptions \(reconciled \d+\)$/),
    ]);
    const { doc, manifest } = await earnings("WMT");
    expect(manifest.tickers.WMT!.earnings_exceptions).toEqual(countExceptions(doc.data));
    expect(manifest.tickers.AAPL!.earnings_exceptions).toMatchObject({ periods: 0 });
    const statements = await financials("AAPL");
    expect(manifest.tickers.AAPL!.financials_exceptions).toEqual(countExceptions(statements.doc.data, FINANCIAL_INVARIANTS));
    const marked = statements.doc.data.filter((p) => p.reconciled === false).map((p) => [p.fiscal_year, p.reconciliation.map((r) => r.metric)]);
    expect(marked).toEqual([[2016, ["operating_cash_flow", "dividends_paid"]], [2015, ["dividends_paid"]]]);
  });

  it("--strict: a ticker's marked earnings exceptions are findings, and the command fails on them", async () => {
    // Walmart's earnings carry marked exceptions (fiscal 2012, restated by the 10-K of 2014-03-21 without its quarters).
    const earningsLine = /^WMT: (\d+) earnings periods carry marked exceptions \(reconciled \1\)$/;
    const lenient = await auditSnapshot(openStorage(dir));
    expect(lenient.findings).toEqual([]);
    expect(lenient.warnings).toContainEqual(expect.stringMatching(earningsLine));
    const strict = await auditSnapshot(openStorage(dir), { strict: true });
    expect(strict.findings).toContainEqual(expect.stringMatching(earningsLine));
    expect(strict.warnings).toEqual([]);
    // The command: exit 0 without --strict, 1 with it, naming the ticker's exceptions either way.
    const run = async (argv: string[]) => {
      const out: string[] = [];
      const log = vi.spyOn(console, "log").mockImplementation((...a) => void out.push(a.join(" ")));
      try {
        return { code: await main(argv, { LOG_LEVEL: "error" }), out: out.join("\n") };
      } finally {
        log.mockRestore();
      }
    };
    const plain = await run(["audit", "--data", dir]);
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/^WARNING WMT: \d+ earnings periods carry marked exceptions/m);
    const failing = await run(["audit", "--data", dir, "--strict"]);
    expect(failing.code).toBe(1);
    expect(failing.out).toMatch(/^(WARNING|FINDING) WMT: \d+ earnings periods carry marked exceptions/m);
    expect(failing.out).toMatch(/\(strict: warnings fail\)$/);
  });

  it("an unreconciled year that is not marked, and a row its history does not give, are findings", async () => {
    const { storage, key, doc } = await earnings("WMT");
    const i = doc.data.findIndex((p) => p.reconciled === false);
    doc.data[i] = { ...doc.data[i]!, reconciled: true, reconciliation: [] };
    await storage.setItemRaw(key, new TextEncoder().encode(JSON.stringify(doc)));
    const { findings } = await auditSnapshot(storage);
    expect(findings).toContainEqual(expect.stringMatching(/^WMT: \S+earnings\.json does not hold the content the manifest names .*changed after publishing$/));
    expect(findings).toContainEqual(expect.stringMatching(/^WMT: earnings invariant reconciled broken and not marked: fiscal year \d{4}: Q1\+Q2\+Q3\+Q4 ≠ FY/));
    expect(findings).toContainEqual(expect.stringMatching(/^WMT: earnings row \d+ .* is not its history read as of today$/));
  });

  it("a statement row off its history, a TTM off its quarters and a year-end balance off its Q4 are findings", async () => {
    const { storage, key, doc } = await financials("AAPL");
    const ttm = doc.data.find((p) => p.ttm?.basis === "four_quarters" && p.cash_flow?.operating_cash_flow)!;
    ttm.cash_flow!.operating_cash_flow!.value += 1;
    const year = doc.data.find((p) => p.months === 12 && p.ttm === null && p.balance?.cash)!;
    year.balance!.cash!.value += 1;
    await storage.setItemRaw(key, new TextEncoder().encode(JSON.stringify(doc)));
    const { findings } = await auditSnapshot(storage);
    expect(findings).toContainEqual(expect.stringMatching(/^AAPL: financials invariant ttm broken and not marked: TTM operating_cash_flow to \S+ is \d+, the sum of its four quarters \d+/));
    expect(findings).toContainEqual(expect.stringMatching(/^AAPL: financials invariant year_end_balance broken and not marked: fiscal \d{4}'s cash at \S+ is \d+, its fourth quarter's \d+/));
    expect(findings).toContainEqual(expect.stringMatching(/^AAPL: financials row \d+ .* is not its history read as of today$/));
  });

  it("the cross-company documents: one changed after publishing, or listing a company twice, is a finding (issue 40)", async () => {
    const storage = openStorage(dir);
    const { manifest } = await earnings("AAPL");
    const ref = manifest.cross!.screens.CY2024Q3!.revenue!;
    const doc = (await readJson(storage, ref.key, ScreenDocument))!;
    expect(doc.companies.map((c) => c.ticker)).toEqual(["AAPL", "WMT"]);
    doc.companies.push(doc.companies[0]!);
    await storage.setItemRaw(ref.key, new TextEncoder().encode(JSON.stringify(doc)));
    const { findings } = await auditSnapshot(storage);
    expect(findings).toEqual(
      expect.arrayContaining([
        `cross-company: ${ref.key} does not hold the content the manifest names (hash ${ref.sha256})`,
        `cross-company: ${ref.key} lists a company twice`,
        `cross-company: ${ref.key} has 3 companies, the manifest counts 2`,
      ]),
    );
  });

  it("two rows of one label and span are findings", async () => {
    const { storage, key, doc } = await earnings("AAPL");
    const q = doc.data.find((p) => p.months === 3)!;
    doc.data.splice(1, 0, { ...q });
    delete doc.history;
    await storage.setItemRaw(key, new TextEncoder().encode(JSON.stringify(doc)));
    const { findings } = await auditSnapshot(storage);
    expect(findings).toContainEqual(expect.stringMatching(/^AAPL: earnings invariant unique_labels broken and not marked/));
    expect(findings).toContainEqual(expect.stringMatching(/^AAPL: earnings invariant one_period_per_span broken and not marked/));
  });
});
