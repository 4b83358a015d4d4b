// A --tickers build refreshes and never shrinks (issue 16): every other ticker of the published snapshot is carried
// forward unchanged; --universe-only is the one way to publish a smaller universe.
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CurrentPointer, DOCUMENT_KINDS, Manifest } from "../../schemas/snapshot.ts";
import { readJson, readText } from "../../storage/json.ts";
import { CURRENT_KEY, documentKeyOf, manifestKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, makeOverlayMirror } from "../../test/_edgar.ts";
import { testGateway } from "../../test/_gateway.ts";
import { removeDir } from "../../test/_s3.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { auditSnapshot } from "../commands/audit.ts";
import { runBuild, type BuildOptions } from "./run.ts";
import { createDirSource } from "../sources/dir.ts";

// Covered companies of the fixtures, JNJ through the test overlay, and MSFT/KO (not covered: no company facts).
const UNIVERSE = ["AAPL", "WMT", "HD", "DIS", "UAA", "UA", "MRVL", "MCD", "TXN", "JNJ", "MSFT", "KO"];
const at = (iso: string) => () => new Date(iso);
const FIRST = "2026-07-01T12:00:00.000Z";
const SECOND = "2026-07-02T12:00:00.000Z";

describeEdgar("a --tickers build over a published snapshot", () => {
  let mirror: string;
  const dirs: string[] = [];
  const store = () => {
    const dir = mkdtempSync(join(tmpdir(), "subset-"));
    dirs.push(dir);
    return { dir, storage: openStorage(dir) };
  };
  const build = (storage: BuildOptions["storage"], extra: Partial<BuildOptions>) =>
    runBuild({ source: createDirSource(mirror), storage, log: memoryLogger(), lookbackDays: 90, workers: 0, ...extra });
  const published = async (storage: BuildOptions["storage"]) => {
    const pointer = (await readJson(storage, CURRENT_KEY, CurrentPointer))!;
    return (await readJson(storage, manifestKey(pointer.build_id), Manifest))!;
  };
  beforeAll(() => {
    mirror = makeOverlayMirror();
  });
  afterAll(() => [mirror, ...dirs].forEach(removeDir));

  it("rebuilds the named companies and carries every other ticker forward: entries, documents, original built_at", async () => {
    const { dir, storage } = store();
    const first = await build(storage, { tickers: UNIVERSE, now: at(FIRST) });
    const before = await published(storage);
    const second = await build(storage, { tickers: ["aapl", "UAA", "ua"], now: at(SECOND) });
    const after = await published(storage);

    expect(second).toMatchObject({ tickers: 3, covered: 3, carried_forward: UNIVERSE.length - 3, failed: 0 });
    expect(Object.keys(after.tickers)).toEqual(Object.keys(before.tickers));
    for (const ticker of ["AAPL", "UAA", "UA"]) {
      expect(after.tickers[ticker]).toMatchObject({ covered: true, freshness: { built_at: SECOND } });
      expect(after.tickers[ticker]!.documents_from).toBeUndefined();
    }
    for (const ticker of UNIVERSE.filter((t) => !["AAPL", "UAA", "UA"].includes(t))) {
      const was = before.tickers[ticker]!;
      expect(after.tickers[ticker]).toEqual(was.covered ? { ...was, documents_from: first.build_id } : was);
      if (was.covered) expect(after.tickers[ticker]!.freshness.built_at).toBe(FIRST);
      // By reference: the very keys the first build wrote, nothing copied.
      for (const kind of DOCUMENT_KINDS) if (was.covered) expect(documentKeyOf(after, ticker, kind)).toBe(documentKeyOf(before, ticker, kind));
    }
    // Sound; the carried tickers are the audit's warnings (not rebuilt by this run), the rebuilt ones are not.
    const audit = await auditSnapshot(storage);
    expect(audit.findings).toEqual([]);
    const notRebuilt = audit.warnings.filter((w) => / not rebuilt by /.test(w));
    expect(notRebuilt.map((w) => w.split(":")[0]).sort()).toEqual(["DIS", "HD", "JNJ", "MCD", "MRVL", "TXN", "WMT"]);
    // The others are marked earnings and statement exceptions (build/commands/audit.test.ts), one warning per ticker and document.
    expect(audit.warnings.filter((w) => !notRebuilt.includes(w)).every((w) => /(earnings periods|financials rows) carry marked exceptions/.test(w))).toBe(true);
    // The gateway serves a carried ticker exactly as before.
    const gw = testGateway(dir);
    const probe = await (await gw.get("/probe?ticker=WMT")).json();
    expect(probe.data).toMatchObject({ ticker_coverage: { covered: true }, freshness: { built_at: FIRST }, counts: before.tickers.WMT!.counts });
    gw.close();
  });

  it("a carried company's Form 4s are discovered afresh when it is rebuilt later (not read incrementally from a gap)", async () => {
    const { storage } = store();
    await build(storage, { tickers: UNIVERSE, now: at(FIRST) });
    await build(storage, { tickers: ["AAPL"], now: at(SECOND) });
    await build(storage, { tickers: ["JNJ", "AAPL"], now: at("2026-07-03T12:00:00.000Z") });
    const manifest = await published(storage);
    // JNJ was carried by the second build: the third one lists its Form 4s from its submissions, not from the indexes.
    expect(manifest.tickers.JNJ!.form4).toMatchObject({ cached: 3, fetched: 0 });
    expect(manifest.tickers.JNJ!.form4!.not_retried).toBeUndefined();
    // AAPL was rebuilt by the second build, so the third is incremental for it.
    expect(manifest.tickers.AAPL!.form4!.not_retried).toBeGreaterThanOrEqual(0);
  });

  it("a longer look-back than the last run's fetches the Form 4s that run never tried", async () => {
    const { storage } = store();
    await build(storage, { tickers: UNIVERSE, now: at(FIRST) }); // 90 days: none of AAPL's fixture Form 4s
    expect((await published(storage)).tickers.AAPL!.counts.insider_transactions).toBe(0);
    await build(storage, { tickers: ["AAPL"], lookbackDays: 3650, now: at(SECOND) });
    // Katherine L. Adams's Form 4 0000320193-22-000061, filed 2022-05-06: seven non-derivative rows, no derivative ones.
    expect((await published(storage)).tickers.AAPL).toMatchObject({ counts: { insider_transactions: 7 }, freshness: { newest_form4: "2022-05-06" } });
  });

  it("--universe-only publishes exactly the named tickers; without --tickers it is refused", async () => {
    const { storage } = store();
    await build(storage, { tickers: UNIVERSE, now: at(FIRST) });
    const only = await build(storage, { tickers: ["WMT"], universeOnly: true, now: at(SECOND) });
    expect(only).toMatchObject({ tickers: 1, carried_forward: 0 });
    expect(Object.keys((await published(storage)).tickers)).toEqual(["WMT"]);
    await expect(build(storage, { universeOnly: true })).rejects.toThrow(/universeOnly needs the tickers/);
  });

  it("refuses to publish a smaller universe when the published snapshot cannot be read; --universe-only may", async () => {
    const { storage } = store();
    const first = await build(storage, { tickers: UNIVERSE, now: at(FIRST) });
    await storage.setItemRaw(manifestKey(first.build_id), new TextEncoder().encode("{not json"));
    const pointer = await readText(storage, CURRENT_KEY);
    await expect(build(storage, { tickers: ["AAPL"], now: at(SECOND) })).rejects.toThrow(/cannot be carried forward; repair the store, or publish only these tickers with --universe-only/);
    expect(await readText(storage, CURRENT_KEY)).toBe(pointer);
    await build(storage, { tickers: ["AAPL"], universeOnly: true, now: at(SECOND) });
    expect(Object.keys((await published(storage)).tickers)).toEqual(["AAPL"]);
  });

  it("a ticker whose documents are gone from the previous snapshot is not carried as covered: source_failed, with why", async () => {
    const { storage } = store();
    await build(storage, { tickers: UNIVERSE, now: at(FIRST) });
    await storage.removeItem(documentKeyOf(await published(storage), "HD", "earnings"));
    await build(storage, { tickers: ["AAPL"], now: at(SECOND) });
    const manifest = await published(storage);
    expect(manifest.tickers.HD).toMatchObject({ covered: false, reason: "source_failed", error: expect.stringMatching(/documents in \S+ are missing/) });
    // Sound, but HD is no longer served: a finding until a build rebuilds it (issue 39).
    expect((await auditSnapshot(storage)).findings).toEqual([expect.stringMatching(/^HD: failed: its documents in \S+ are missing, and this --tickers build did not rebuild it; not covered: no earlier documents to serve$/)]);
  });

  it("the CLI says what it carried forward, and --universe-only without --tickers is a usage error", async () => {
    const { dir, storage } = store();
    await build(storage, { tickers: UNIVERSE, now: at(FIRST) });
    const cli = (...args: string[]) => promisify(execFile)(process.execPath, ["build/commands/cli.ts", ...args], { env: { ...process.env, LOG_LEVEL: "error" } });
    const { stdout } = await cli("build", "--source", `dir:${mirror}`, "--out", dir, "--tickers", "WMT", "--workers", "0");
    expect(stdout).toMatch(/published \S+: 1 tickers built \(11 more carried forward unchanged\), 1 covered/);
    await expect(cli("build", "--source", `dir:${mirror}`, "--out", dir, "--universe-only")).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--universe-only needs --tickers/) });
  });
});
