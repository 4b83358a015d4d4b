import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readText } from "../../storage/json.ts";
import { CURRENT_KEY, documentKey, documentKeyOf } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { addTickerRows, describeEdgar, makeOverlayMirror, TSM_ROW } from "../../test/_edgar.ts";
import { removeDir } from "../../test/_s3.ts";
import { main } from "./cli.ts";
import { createLogger } from "../../logging/log.ts";
import { createProgress } from "./progress.ts";

/** Runs the CLI in-process and captures what it prints. */
async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...a) => void out.push(a.join(" ")));
  const error = vi.spyOn(console, "error").mockImplementation((...a) => void err.push(a.join(" ")));
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    const code = await main(argv, { LOG_LEVEL: "error", ...env });
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
    stderr.mockRestore();
  }
}

describe("dataset CLI usage", () => {
  it("prints usage and exits 2 on a missing or unknown command or a bad flag", async () => {
    expect((await run([])).code).toBe(2);
    expect(await run(["frobnicate"])).toMatchObject({ code: 2, err: expect.stringMatching(/unknown command "frobnicate"[\s\S]*usage:/) });
    expect(await run(["build", "--retention", "zero"])).toMatchObject({ code: 2, err: expect.stringMatching(/--retention must be a positive whole number/) });
    expect(await run(["build", "--workers", "two"])).toMatchObject({ code: 2, err: expect.stringMatching(/--workers must be a whole number \(0 or more\)/) });
    expect(await run(["build", "--bogus"])).toMatchObject({ code: 2 });
  });

  it("refuses live without EDGAR_USER_AGENT, naming the variable, and an unknown source", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-"));
    expect(await run(["build", "--source", "live", "--out", dir])).toMatchObject({ code: 1, err: expect.stringMatching(/EDGAR_USER_AGENT is not set/) });
    expect(await run(["build", "--source", "ftp://x", "--out", dir])).toMatchObject({ code: 1, err: expect.stringMatching(/unsupported source/) });
    expect(await run(["audit", "--data", dir])).toMatchObject({ code: 1, out: expect.stringMatching(/FINDING current\.json is missing/) });
    removeDir(dir);
  });
});

describeEdgar("dataset CLI: an operator's mistakes, each answered in one line that says what to do (issue 42)", () => {
  let data: string;
  beforeAll(() => void (data = mkdtempSync(join(tmpdir(), "cli-mistakes-"))));
  afterAll(() => removeDir(data));

  it("an empty --tickers is refused (it never means every ticker: live, that is a 30-minute crawl)", async () => {
    for (const tickers of ["", " , "]) {
      const result = await run(["build", "--source", "dir:test/fixtures/edgar", "--out", data, "--tickers", tickers]);
      expect(result).toMatchObject({ code: 2, out: "", err: expect.stringMatching(/^--tickers names no ticker: give one or more, as --tickers AAPL,MSFT \(leave --tickers out to build every ticker of company_tickers\.json\)\nusage:/) });
    }
    expect(await run(["build", "--universe-only", "--out", data])).toMatchObject({ code: 2, err: expect.stringMatching(/^--universe-only needs --tickers/) });
  });

  it("a dir: folder that does not exist is named as missing; a folder with no ticker map says what a source is", async () => {
    const missing = join(data, "no-such-folder");
    expect(await run(["build", "--source", `dir:${missing}`, "--out", data])).toMatchObject({
      code: 1,
      err: `dataset build failed: dir:${missing}: ${missing} does not exist; name a folder in EDGAR's URL layout, e.g. dir:test/fixtures/edgar`,
    });
    expect(await run(["build", "--source", "dir:package.json", "--out", data])).toMatchObject({ code: 1, err: expect.stringMatching(/^dataset build failed: dir:package\.json: \S+package\.json is not a folder; name a folder in EDGAR's URL layout/) });
    expect(await run(["build", "--source", "dir:test/fixtures", "--out", data])).toMatchObject({
      code: 1,
      err: expect.stringMatching(/^dataset build failed: dir:test\/fixtures\/files\/company_tickers\.json does not exist: the source holds no ticker map, so there is no universe to build \(a dir: or http source must be a mirror in EDGAR's URL layout/),
    });
  });

  it("a requested ticker that cannot be built says why, as /probe's evidence does: no company facts, a failed source, not in the universe", async () => {
    const none = await run(["build", "--source", "dir:test/fixtures/edgar", "--out", data, "--tickers", "MSFT"]);
    expect(none).toMatchObject({
      code: 1,
      err: expect.stringMatching(
        /^dataset build failed: nothing could be built: none of the 1 tickers is covered \(0 failed\) — MSFT not covered: the source has no company facts for CIK 789019 \(api\/xbrl\/companyfacts\/CIK0000789019\.json: not found\) \(snapshot \S+ not published\)$/,
      ),
    });
    const unknown = await run(["build", "--source", "dir:test/fixtures/edgar", "--out", data, "--tickers", "ZZZZ"]);
    expect(unknown).toMatchObject({ code: 1, err: expect.stringMatching(/in company_tickers\.json, this service's universe: ZZZZ \(GET \/tickers lists the covered ones\)$/) });

    // A mirror whose map names TSMC, whose company facts it holds and whose submissions it does not: its source fails.
    const mirror = makeOverlayMirror();
    addTickerRows(mirror, [TSM_ROW]);
    const some = await run(["build", "--source", `dir:${mirror}`, "--out", data, "--tickers", "AAPL,MSFT,ZZZZ,TSM", "--lookback-days", "1"]);
    removeDir(mirror);
    expect(some.code).toBe(0);
    expect(some.out.split("\n").filter((l) => !l.startsWith("{"))).toEqual([
      expect.stringMatching(/^published \S+: 3 tickers, 1 covered, not covered: 1 no_xbrl_history, 1 source_failed; 1 failed \(TSM; 0 kept their previous documents\); /),
      "ZZZZ: not in company_tickers.json: EDGAR lists no such ticker, so it is not in this service's universe",
      "MSFT: not covered: the source has no company facts for CIK 789019 (api/xbrl/companyfacts/CIK0000789019.json: not found)",
      "TSM: failed: submissions/CIK0001046179.json: not found at the source",
    ]);
    // The audit's summary line names the failed ticker too, beside its finding.
    const audit = await run(["audit", "--data", data]);
    expect(audit).toMatchObject({ code: 1, out: expect.stringMatching(/^FINDING TSM: failed: submissions\/CIK0001046179\.json: not found at the source; not covered: no earlier documents to serve$/m) });
    expect(audit.out.split("\n").at(-1)).toMatch(/^audit \S+: 3 tickers, 1 covered, 1 failed \(TSM\), 1 findings, /);
  }, 120_000);

  it("a plain build of the fixtures fails no company: every ticker of their map is covered or not covered with a reason", async () => {
    const built = await run(["build", "--source", "dir:test/fixtures/edgar", "--out", data, "--lookback-days", "1"]);
    expect(built).toMatchObject({ code: 0, out: expect.stringMatching(/^published \S+: 9603 tickers, 9 covered, not covered: 9594 no_xbrl_history; 0 failed \(0 kept their previous documents\); /) });
    expect((await run(["audit", "--data", data])).out.split("\n").at(-1)).toMatch(/^audit \S+: 9603 tickers, 9 covered, 0 failed, 0 findings, /);
  }, 120_000);
});

describeEdgar("dataset CLI on the shared mirror", () => {
  let overlay: string;
  let dir: string;
  beforeAll(() => {
    overlay = makeOverlayMirror();
    dir = mkdtempSync(join(tmpdir(), "cli-"));
  });
  afterAll(() => [overlay, dir].forEach(removeDir));

  it("builds, inspects and audits; a damaged snapshot makes audit exit 1 with findings", async () => {
    const built = await run(["build", "--source", `dir:${overlay}`, "--out", dir, "--tickers", "AAPL,brk.b,JNJ,MSFT", "--lookback-days", "400", "--workers", "1"]);
    expect(built.code).toBe(0);
    expect(built.out).toMatch(/published \S+: 4 tickers, 2 covered, not covered: 2 no_xbrl_history; 0 failed/);
    const inspect = await run(["inspect", "aapl", "--data", dir]);
    expect(inspect.code).toBe(0);
    expect(inspect.out).toMatch(/^AAPL — Apple Inc\. \(CIK 320193\)/);
    expect(inspect.out).toMatch(/coverage {3}covered/);
    expect(inspect.out).toMatch(/newest filings:\n {2}2026-02-26 {2}4 /);
    // The statements: Apple's fiscal 2025 (10-K 0000320193-25-000079) and its latest TTM.
    expect(inspect.out).toMatch(/latest fiscal year's statements \(FY 2025, 2025-09-27; \* derived\):\n {2}balance {4}assets 359,241,000,000 /);
    expect(inspect.out).toMatch(/\n {2}TTM to 2025-12-27 \(four_quarters\) {2}revenue 435,617,000,000\* /);
    // Its part in the cross-company answers (issue 40): the frames of its screen document, as the build assembled them.
    expect(inspect.out).toMatch(/\ncross {6}\d+ frames \(CY\d{4}.* … CY\d{4}.*, ttm\); SIC 3571, Nasdaq\n {11}in the screens and feeds of build \S+ as published\n/);
    expect((await run(["inspect", "MSFT", "--data", dir])).out).toMatch(/NOT covered: no_xbrl_history/);
    expect(await run(["inspect", "ZZZZ", "--data", dir])).toMatchObject({ code: 1, err: expect.stringMatching(/ZZZZ is not in the universe/) });
    expect(await run(["audit", "--data", dir])).toMatchObject({ code: 0, out: expect.stringMatching(/AAPL: 2 financials rows carry marked exceptions \(reconciled 2\)\n.*4 tickers, 2 covered, 0 failed, 0 findings, 1 warnings/) });

    const storage = openStorage(dir);
    const { build_id, manifest: manifestPath } = JSON.parse((await readText(storage, CURRENT_KEY))!);
    // A covered ticker the latest run did not rebuild: a warning (exit 0), a failure only with --strict.
    const manifest = JSON.parse((await readText(storage, manifestPath))!);
    const pristine = JSON.stringify(manifest);
    manifest.tickers.AAPL.freshness.built_at = "2020-01-01T00:00:00.000Z";
    await storage.setItemRaw(manifestPath, new TextEncoder().encode(JSON.stringify(manifest)));
    expect(await run(["audit", "--data", dir])).toMatchObject({ code: 0, out: expect.stringMatching(/WARNING AAPL: not rebuilt by [\s\S]*0 findings, 2 warnings$/) });
    // With --strict, marked exceptions are findings and the warning fails the audit too.
    expect(await run(["audit", "--data", dir, "--strict"])).toMatchObject({ code: 1, out: expect.stringMatching(/FINDING AAPL: 2 financials rows carry marked exceptions[\s\S]*1 findings, 1 warnings \(strict: warnings fail\)/) });
    await storage.setItemRaw(manifestPath, new TextEncoder().encode(pristine));
    await storage.removeItem(documentKeyOf(manifest, "JNJ", "insiders"));
    await storage.setItemRaw(documentKeyOf(manifest, "AAPL", "filings"), new TextEncoder().encode('{"data":[],"meta":{}}'));
    await storage.setItemRaw(documentKey(build_id, "MSFT", "filings"), new TextEncoder().encode("{}"));
    const audit = await run(["audit", "--data", dir]);
    expect(audit.code).toBe(1);
    expect(audit.out).toMatch(/FINDING JNJ: covered but \S+insiders\.json is missing/);
    expect(audit.out).toMatch(/FINDING AAPL: \S+filings\.json does not hold the content the manifest names/);
    expect(audit.out).toMatch(/FINDING AAPL: \S+filings\.json: meta\.source_api/);
    expect(audit.out).toMatch(/FINDING MSFT: not covered \(no_xbrl_history\) but \S+ exists/);
  });
});

describe("build progress", () => {
  it("draws a bar on a TTY and writes log lines otherwise", () => {
    const written: string[] = [];
    const tty = { isTTY: true, write: (s: string) => void written.push(s) } as unknown as NodeJS.WriteStream;
    const bar = createProgress(createLogger("info", () => {}), tty);
    bar.update({ done: 5, total: 10, requests: 20 });
    expect(written[0]).toMatch(/^\r\[#{15}\.{15}\] 5\/10 tickers {2}\d+\.\d req\/s {2}ETA \d+s/);
    const lines: string[] = [];
    const plain = createProgress(createLogger("info", (l) => void lines.push(l)), { isTTY: false } as NodeJS.WriteStream);
    plain.update({ done: 10, total: 10, requests: 20 });
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", event: "progress", done: 10, total: 10, requests: 20 });
  });
});
