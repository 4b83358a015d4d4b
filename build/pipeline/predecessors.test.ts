// A company whose history sits under an earlier CIK (build/predecessors.ts; pitfall 28): derived from both files as
// one history — Apple's own company facts split at a date into a "predecessor" and a successor give Apple's documents
// byte for byte —, covered through a build even while its own CIK is a shell with no company facts, and listing the
// predecessor's filings and Form 4s with its own.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { readText } from "../../storage/json.ts";
import { documentKeyOf } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, makeOverlayMirror, readEdgar } from "../../test/_edgar.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { removeDir } from "../../test/_s3.ts";
import { testGateway } from "../../test/_gateway.ts";
import { inspectTicker } from "../commands/inspect.ts";
import { renderReport } from "../commands/report.ts";
import { readPublished } from "../publish/snapshot.ts";
import { companyFactsPath } from "../sources/paths.ts";
import { createDirSource } from "../sources/dir.ts";
import { openCompute } from "./compute.ts";
import { loadFilings, loadInsiders, type CompanyContext } from "./company.ts";
import { factsDocuments } from "./documents.ts";
import { runBuild } from "./run.ts";

const APPLE = 320193;
const JOHNSON = 200406;
/** A CIK no EDGAR company has: the test's predecessor. */
const PREDECESSOR = 9_000_001;
const ORIGIN = { source_api: "test", built_at: "2026-07-01T12:00:00.000Z" };

/** Apple's company facts cut by filing date: those filed before `date`, as `cik`'s file, or those filed on or after it. */
function cut(text: string, date: string, side: "before" | "after", cik: number): string {
  const file = JSON.parse(text) as { cik: number; facts: Record<string, Record<string, { units: Record<string, { filed: string }[]> }>> };
  for (const concepts of Object.values(file.facts)) {
    for (const concept of Object.values(concepts)) {
      for (const [unit, facts] of Object.entries(concept.units)) concept.units[unit] = facts.filter((f) => (f.filed < date) === (side === "before"));
    }
  }
  return JSON.stringify({ ...file, cik });
}

describeEdgar("a company's history under an earlier CIK", () => {
  const apple = readEdgar(companyFactsPath(APPLE));
  const whole = factsDocuments(apple, APPLE, ORIGIN);

  it("Apple's facts split at 2020-01-01 between a predecessor's file and its own derive Apple's documents byte for byte", () => {
    const merged = factsDocuments(cut(apple, "2020-01-01", "after", APPLE), APPLE, ORIGIN, [{ cik: PREDECESSOR, text: cut(apple, "2020-01-01", "before", PREDECESSOR) }]);
    expect(merged.earnings.bytes).toEqual(whole.earnings.bytes);
    expect(merged.financials!.bytes).toEqual(whole.financials!.bytes);
  });

  it("a shell of its own (company facts with no financial history, or none at all) takes its whole history from the predecessor", () => {
    const shell = JSON.stringify({ cik: APPLE, entityName: "Apple Holdings", facts: { dei: {} } });
    const predecessor = [{ cik: PREDECESSOR, text: cut(apple, "9999-12-31", "before", PREDECESSOR) }];
    for (const own of [shell, null]) {
      const merged = factsDocuments(own, APPLE, ORIGIN, predecessor);
      expect(merged.earnings.bytes).toEqual(whole.earnings.bytes);
    }
    // Without a predecessor the shell is what it was: no XBRL history (not covered, nothing charged).
    expect(() => factsDocuments(shell, APPLE, ORIGIN)).toThrow(/no us-gaap or ifrs-full facts/);
  });

  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => removeDir(dir)));

  it("a build covers a ticker whose own CIK has no company facts, from its predecessor's", async () => {
    // MSFT's submissions are in the fixtures, its company facts are not: as a new holding company's CIK would be.
    // Its "predecessor" here is a file of Apple's facts under another CIK, put beside the fixtures.
    const overlay = mkdtempSync(join(tmpdir(), "predecessor-overlay-"));
    mkdirSync(join(overlay, "api/xbrl/companyfacts"), { recursive: true });
    writeFileSync(join(overlay, companyFactsPath(PREDECESSOR)), cut(apple, "9999-12-31", "before", PREDECESSOR));
    const mirror = makeOverlayMirror(overlay);
    const data = mkdtempSync(join(tmpdir(), "predecessor-data-"));
    dirs.push(overlay, mirror, data);
    const source = createDirSource(mirror);
    const storage = openStorage(data);
    const build = (predecessors?: ReadonlyMap<number, { cik: number; why: string }[]>) =>
      runBuild({ source, storage, log: memoryLogger(), tickers: ["MSFT", "AAPL"], now: () => new Date("2026-07-01T12:00:00.000Z"), lookbackDays: 30, workers: 0, ...(predecessors ? { predecessors } : {}) });
    await build(new Map());
    expect((await readPublished(storage))!.manifest.tickers.MSFT!.covered).toBe(false);
    await build(new Map([[789019, [{ cik: PREDECESSOR, why: "test" }]]]));
    const { manifest } = (await readPublished(storage))!;
    expect(manifest.tickers.MSFT!.covered).toBe(true);
    const data_ = async (ticker: string) => (JSON.parse((await readText(storage, documentKeyOf(manifest, ticker, "earnings")))!) as { data: unknown }).data;
    expect(await data_("MSFT")).toEqual(await data_("AAPL"));
    // Said where operators and agents look: the manifest, `dataset inspect` and /probe name the earlier CIK.
    expect(manifest.tickers.MSFT!.earlier_ciks).toEqual([PREDECESSOR]);
    expect(manifest.tickers.AAPL!.earlier_ciks).toBeUndefined();
    expect(await inspectTicker(storage, "MSFT")).toContain(`(CIK 789019; history also under CIK ${PREDECESSOR})`);
    expect(renderReport(manifest)).toContain(`<td>789019 (history also under ${PREDECESSOR})</td>`);
    const gw = testGateway(data);
    const probe = async (ticker: string) => ((await (await gw.get(`/probe?ticker=${ticker}`)).json()) as { data: { ticker_coverage: { earlier_ciks: number[] } } }).data.ticker_coverage;
    expect(await probe("MSFT")).toMatchObject({ covered: true, earlier_ciks: [PREDECESSOR] });
    expect(await probe("AAPL")).toMatchObject({ covered: true, earlier_ciks: [] });
    gw.close();
  });

  it("the filings and insiders documents list the predecessor's filings and Form 4s with the company's own", async () => {
    // Real parts: Apple's submissions and Form 4 XML in the fixtures, and JNJ's through the overlay (its submissions
    // listing real Form 4 XMLs); Apple made JNJ's "predecessor".
    const [data, mirror] = [mkdtempSync(join(tmpdir(), "predecessor-filings-")), makeOverlayMirror()];
    dirs.push(data, mirror);
    const compute = openCompute(0);
    const ctx = (predecessors: ReadonlyMap<number, { cik: number; why: string }[]>): CompanyContext => ({
      source: createDirSource(mirror),
      compute,
      storage: openStorage(data),
      builtAt: ORIGIN.built_at,
      form4Since: "2022-01-01", // Apple's Form 4 of 2022-05-06 is in the fixtures; its others are recorded missing
      predecessors,
    });
    const alone = ctx(new Map());
    const merged = ctx(new Map([[JOHNSON, [{ cik: APPLE, why: "test" }]]]));
    const documents = async (c: CompanyContext, cik: number) => {
      const filings = await loadFilings(c, cik);
      const insiders = await loadInsiders(c, cik, filings);
      const data_ = (bytes: Uint8Array) => (JSON.parse(new TextDecoder().decode(bytes)) as { data: Record<string, unknown>[] }).data;
      return { filings: data_(filings.bytes), insiders: data_(insiders.bytes), accepted: filings.accepted };
    };
    const [own, apple, both] = [await documents(alone, JOHNSON), await documents(alone, APPLE), await documents(merged, JOHNSON)];
    const accessions = (rows: Record<string, unknown>[]) => rows.map((f) => f.accession_number as string);
    expect(new Set(accessions(both.filings))).toEqual(new Set([...accessions(own.filings), ...accessions(apple.filings)]));
    expect(both.filings.length).toBe(own.filings.length + apple.filings.length);
    // One list, newest first, across the two CIKs.
    const times = both.filings.map((f) => (f.accepted_at as string | null) ?? `${f.filed_at as string}T00:00:00.000Z`);
    expect(times).toEqual([...times].sort().reverse());
    expect(both.accepted).toEqual({ ...own.accepted, ...apple.accepted });
    // Each Form 4 was fetched from the folder of the CIK that lists it: Apple's issuer rows are there, as filed.
    const rows = (list: Record<string, unknown>[]) => list.map((r) => `${r.source_accession as string}#${r.row as number}`).sort();
    expect(rows(both.insiders)).toEqual([...rows(own.insiders), ...rows(apple.insiders)].sort());
    expect(new Set(both.insiders.map((r) => r.issuer_cik))).toEqual(new Set([JOHNSON, APPLE]));

    // A predecessor's Form 4 its submissions do not list yet, named under its CIK by the daily index (or the feed):
    // read from its full submission in the predecessor's folder, where it is, not recorded missing under the company's.
    const lagging = { ...(await loadFilings(merged, JOHNSON)), insider_filings: [] };
    const indexed = [{ form: "4", company: "", cik: APPLE, filed_at: "2022-05-06", accession: "0000320193-22-000061" }];
    // The fixtures hold the full submission in its accession's folder; EDGAR serves it at the CIK's folder as well.
    const txtOverlay = mkdtempSync(join(tmpdir(), "predecessor-txt-"));
    mkdirSync(join(txtOverlay, "Archives/edgar/data/320193"), { recursive: true });
    writeFileSync(join(txtOverlay, "Archives/edgar/data/320193/0000320193-22-000061.txt"), readEdgar("Archives/edgar/data/320193/000032019322000061/0000320193-22-000061.txt"));
    const withTxt = makeOverlayMirror(txtOverlay);
    dirs.push(txtOverlay, withTxt);
    const cache = mkdtempSync(join(tmpdir(), "predecessor-index-"));
    dirs.push(cache);
    const fresh = { ...ctx(new Map([[JOHNSON, [{ cik: APPLE, why: "test" }]]])), source: createDirSource(withTxt), storage: openStorage(cache) };
    const read = await loadInsiders(fresh, JOHNSON, lagging, { after: null, indexed });
    expect(read.form4).toMatchObject({ fetched: 1, missing: [] });
    expect(read.rows).toBe(7); // the filing's seven sales (its XML: nonDerivative codes SSSSSSS)
    await compute.close();
  });
});
