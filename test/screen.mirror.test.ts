// Every ranked value must be right (issue 40 item 5): the screen checks (_screen-checks.ts) over every company of the
// whole shared mirror that has company facts, and over the bulk benchmark's generated universe (bench/_bulk-archives.ts:
// nightly-archive-style zips of the mirror's companies cut to their filings since 2024, re-keyed), read through the
// bulk source as a build reads them. Needs the whole mirror; skipped, visibly, without it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bulkArchives } from "../bench/_bulk-archives.ts";
import { readCompanyFacts } from "../build/derive/company-facts.ts";
import { NoXbrlHistoryError } from "../build/errors.ts";
import { parseCompanyTickers } from "../build/parse/tickers.ts";
import { createBulkSource, type BulkSource } from "../build/sources/bulk.ts";
import { createDirSource } from "../build/sources/dir.ts";
import { companyFactsPath, TICKERS_PATH } from "../build/sources/paths.ts";
import { describeMirror, MIRROR } from "./_edgar.ts";
import { screenCheck } from "./_screen-checks.ts";

const FACTS = "api/xbrl/companyfacts";
/**
 * Companies of the generated universe checked: the archives cycle through the mirror's companies that have both
 * submissions and facts (10 today), so this many cover each of them at least once (a copy derives as its template).
 */
const BULK_COMPANIES = 12;

describeMirror("what a screen ranks: every company of the whole mirror", () => {
  it.each(MIRROR.list(FACTS))("%s: every invariant holds or is marked; one row per calendar frame; no unmarked unit-scale outlier; EPS = income ÷ shares or marked", (file) => {
    const { rows, findings } = screenCheck(readCompanyFacts(MIRROR.read(`${FACTS}/${file}`)));
    expect(findings).toEqual([]);
    expect(rows).toBeGreaterThan(0);
  });
});

describeMirror("what a screen ranks: the bulk benchmark's generated universe", () => {
  let root: string;
  let source: BulkSource;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "screen-bulk-"));
    source = createBulkSource(await bulkArchives(BULK_COMPANIES, root), createDirSource(MIRROR.dir));
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it(`${BULK_COMPANIES} companies read from the archives: the same checks; a company cut to no periodic facts is not covered, never wrong`, async () => {
    const ciks = [...parseCompanyTickers(await source.getText(TICKERS_PATH)).byTicker.values()].map((e) => e.cik);
    expect(ciks).toHaveLength(BULK_COMPANIES);
    const findings: string[] = [];
    let [checked, uncovered] = [0, 0];
    for (const cik of ciks) {
      try {
        const result = screenCheck(readCompanyFacts(await source.getText(companyFactsPath(cik)), { cik }));
        findings.push(...result.findings.map((f) => `CIK ${cik}: ${f}`));
        checked++;
      } catch (error) {
        if (!(error instanceof NoXbrlHistoryError)) throw error;
        uncovered++; // Celadon's and SunEdison's facts end before 2024: nothing is left of them
      }
    }
    expect(findings).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(BULK_COMPANIES - uncovered);
    expect(checked).toBeGreaterThan(uncovered);
  });
});
