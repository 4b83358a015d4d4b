import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Manifest } from "../../schemas/snapshot.ts";
import { readJson } from "../../storage/json.ts";
import { manifestKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { addTickerRows, describeEdgar, makeOverlayMirror, TSM_ROW } from "../../test/_edgar.ts";
import { removeDir } from "../../test/_s3.ts";
import { main } from "./cli.ts";

// Debian's Chromium (installed by .ci/run); without it the browser check is skipped, saying so.
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) console.warn(`[report] ${CHROMIUM} is absent: the coverage report's browser test is SKIPPED.`);

describeEdgar("coverage report", () => {
  let mirror: string;
  let data: string;
  let html = "";
  let manifest: Manifest;
  beforeAll(async () => {
    mirror = makeOverlayMirror();
    addTickerRows(mirror, [TSM_ROW]);
    data = mkdtempSync(join(tmpdir(), "report-"));
    const out: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const env = { LOG_LEVEL: "error" };
      expect(await main(["build", "--source", `dir:${mirror}`, "--out", data, "--tickers", "AAPL,WMT,JNJ,MSFT,TSM,BRK.B", "--lookback-days", "400"], env)).toBe(0);
      out.length = 0;
      expect(await main(["report", "--data", data], env)).toBe(0);
      const file = /report written to (\S+)/.exec(out.join("\n"))![1]!;
      html = readFileSync(file, "utf8");
      const pointer = JSON.parse(readFileSync(join(data, "current.json"), "utf8")) as { build_id: string };
      manifest = (await readJson(openStorage(data), manifestKey(pointer.build_id), Manifest))!;
    } finally {
      log.mockRestore();
      stderr.mockRestore();
    }
  });
  afterAll(() => [mirror, data].forEach(removeDir));

  it("is written beside the snapshot and names it", () => {
    expect(html).toContain(manifest.build_id);
    expect(html.startsWith("<!doctype html>")).toBe(true);
  });

  it("lists each failed company with what failed, as `dataset audit` names it (issue 39)", () => {
    // TSM: company facts in the mirror, no submissions, so the build failed on it, with nothing earlier to keep.
    const failed = /<table id="failed">[\s\S]*?<tbody>\n([\s\S]*?)\n<\/tbody>/.exec(html)![1]!;
    expect(failed.split("\n")).toEqual([
      expect.stringMatching(/^<tr><td>TSM<\/td><td>submissions\/CIK0001046179\.json: not found at the source<\/td><td>not covered: no earlier documents<\/td><td><\/td><\/tr>$/),
    ]);
    expect(html).toContain("<h2>Failed companies (1)</h2>");
  });

  it("states the cross-company documents: the build that assembled them, its screens and feed rows (issue 40)", () => {
    const cross = manifest.cross!;
    const screens = Object.values(cross.screens).reduce((n, byMetric) => n + Object.keys(byMetric).length, 0);
    expect(screens).toBeGreaterThan(0);
    expect(html).toContain(`<td><code>${cross.build_id}</code> at ${cross.built_at}</td>`);
    expect(html).toContain(`<td data-screens="${screens}">${screens} (${Object.keys(cross.screens).length} frames`);
  });

  describe.skipIf(!HAS_CHROMIUM)(HAS_CHROMIUM ? "in headless Chromium" : "in headless Chromium [skipped: no chromium]", () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
      });
    });
    afterAll(() => browser?.close());

    it("renders its numbers: coverage by reason, the freshness histogram, every ticker, and filters by search", async () => {
      const page = await browser.newPage();
      await page.setContent(html);
      const entries = Object.values(manifest.tickers);
      expect(await page.textContent("#universe")).toBe(String(entries.length));
      expect(await page.textContent("#covered")).toBe(String(entries.filter((e) => e.covered).length));
      // Every covered ticker of this build has its statements.
      expect(await page.textContent("#financials")).toBe(String(entries.filter((e) => e.covered).length));
      // MSFT and BRK-B have no company facts in the mirror; TSM has facts but no submissions there.
      expect(await page.textContent('[data-reason="no_xbrl_history"]')).toBe("2");
      expect(await page.textContent('[data-reason="source_failed"]')).toBe("1");
      expect(await page.textContent('[data-age="under_12h"]')).toBe("3");
      expect(await page.locator("#tickers tbody tr").count()).toBe(6);
      await page.fill("#search", "walmart");
      expect(await page.locator("#tickers tbody tr:visible").count()).toBe(1);
      expect(await page.locator("#tickers tbody tr:visible td").first().textContent()).toBe("WMT");
      await page.fill("#search", "no_xbrl");
      expect(await page.locator("#tickers tbody tr:visible").count()).toBe(2);
      await page.close();
    });
  });
});
