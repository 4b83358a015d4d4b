// Reading the periodic reports' XBRL in a build (issue 43.3, 43.4): the inline document or the extracted instance,
// whichever the source has; each filing fetched and parsed once; a filing that cannot be read named, never the
// company's failure; through a folder and through HTTP alike.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SegmentsHistory } from "../../schemas/segments-history.ts";
import { SegmentFiling } from "../../schemas/segments.ts";
import { SegmentsDocument } from "../../schemas/snapshot.ts";
import { readJson } from "../../storage/json.ts";
import { documentKeyOf, segmentCacheKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, EDGAR_DIR, makeOverlayMirror } from "../../test/_edgar.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { startMirror, type Mirror } from "../../test/_mirror.ts";
import { removeDir } from "../../test/_s3.ts";
import { auditSnapshot } from "../commands/audit.ts";
import { readPublished } from "../publish/snapshot.ts";
import { createDirSource } from "../sources/dir.ts";
import { createHttpSource } from "../sources/http.ts";
import { TokenBucket } from "../sources/rate-limit.ts";
import type { Source } from "../sources/source.ts";
import { runBuild } from "./run.ts";

const NOW = () => new Date("2026-07-01T12:00:00.000Z");
/** Apple's filings of the fixtures are from 2022 on; its submissions list 28 inline periodic reports since 2019. */
const SINCE = "2022-10-01";
const AAPL_10K_2023 = "Archives/edgar/data/320193/000032019323000106/aapl-20230930";
const WMT_SUBMISSIONS = "submissions/CIK0000104169.json";

describeEdgar("segments in a build", () => {
  const dirs: string[] = [];
  let overlay: string;
  let mirror: Mirror;
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), "segments-"));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    overlay = makeOverlayMirror();
    mirror = await startMirror(overlay);
  });
  afterAll(async () => {
    await mirror?.close();
    [overlay, ...dirs].forEach(removeDir);
  });
  const build = (storage: ReturnType<typeof openStorage>, source: Source, tickers = ["AAPL", "WMT"]) =>
    runBuild({ source, storage, log: memoryLogger(), tickers, now: NOW, lookbackDays: 30, segmentsSince: SINCE, workers: 0 });

  it("serves each company's segments from its filings' XBRL, names its members by its labels, and counts what it read", async () => {
    const storage = openStorage(tempDir());
    await build(storage, createDirSource(overlay));
    const { manifest } = (await readPublished(storage))!;
    const aapl = manifest.tickers.AAPL!;
    // Filed since 2022-10-01: 14 inline reports; the fixtures hold 6 (3 as extracted instances only), the others are missing.
    expect(aapl.segments).toMatchObject({ cached: 0, fetched: 6, unreadable: [], unlabelled: 0 });
    expect(aapl.segments!.missing).toHaveLength(8);
    expect(aapl.endpoints["/segments"]).toBe(true);
    const doc = (await readJson(storage, documentKeyOf(manifest, "AAPL", "segments"), SegmentsDocument))!;
    expect(doc.data).toHaveLength(aapl.counts.segment_periods!);
    expect(doc.meta).toMatchObject({ source_accession: "0000320193-25-000073", filed_at: "2025-08-01" });
    const fy2023 = doc.data.find((r) => r.axis === "business" && r.fiscal_year === 2023 && r.fiscal_quarter === "FY")!;
    expect(fy2023.members.map((m) => [m.name, m.revenue!.value])).toContainEqual(["Greater China", 72_559_000_000]);
    expect(doc.data.find((r) => r.axis === "product" && r.fiscal_year === 2023 && r.fiscal_quarter === "FY")!.members.map((m) => m.name)).toContain("Wearables, Home and Accessories");
    expect(SegmentsHistory.parse(JSON.parse(doc.history!)).rows).toHaveLength(doc.data.length);
    // The labels came from the newest filing whose label linkbase the source has (the 10-Q to 2025-03-29), kept in its cache entry.
    expect(Object.keys((await readJson(storage, segmentCacheKey("0000320193-25-000057"), SegmentFiling))!.labels!)).toContain("aapl:GreaterChinaSegmentMember");
    expect((await readJson(storage, segmentCacheKey("0000320193-25-000073"), SegmentFiling))!.labels).toBeNull();
    expect((await auditSnapshot(storage)).findings).toEqual([]);
  });

  it("reads each filing once: a second build fetches no XBRL, and asks again only for the filings too recent to be settled", async () => {
    const storage = openStorage(tempDir());
    await build(storage, createDirSource(overlay));
    const source = createDirSource(overlay);
    const read: string[] = [];
    const counted: Source = { ...source, stats: source.stats, getText: (path) => (read.push(path), source.getText(path)) };
    await build(storage, counted);
    const { manifest } = (await readPublished(storage))!;
    // Every missing one was filed more than a week before the build: its miss is cached too.
    expect(manifest.tickers.AAPL!.segments).toMatchObject({ cached: 14, fetched: 0 });
    expect(read.filter((p) => p.startsWith("Archives/") && /(\.htm|_htm\.xml|_lab\.xml)$/.test(p))).toEqual([]);
  });

  it("through HTTP: the inline document where EDGAR has it, else the extracted instance beside it", async () => {
    const storage = openStorage(tempDir());
    const from = mirror.log.length;
    await build(storage, createHttpSource({ base: mirror.url, userAgent: "Test Co test@example.com", bucket: new TokenBucket(1000), backoffMs: 5 }), ["AAPL"]);
    const paths = mirror.log.slice(from).map((r) => r.path);
    expect(paths.filter((p) => p.startsWith(AAPL_10K_2023))).toEqual([`${AAPL_10K_2023}.htm`, `${AAPL_10K_2023}_htm.xml`]);
    expect(paths.filter((p) => p.includes("/000032019324000123/aapl-20240928"))).toEqual(["Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm"]);
    expect((await readJson(storage, segmentCacheKey("0000320193-23-000106"), SegmentFiling))!.document).toBe(`${AAPL_10K_2023}_htm.xml`);
  });

  it("reads the periodic reports of older submissions pages the filings document leaves unread, each page once", async () => {
    // Walmart's submissions paged as EDGAR pages them, a year later: the recent block from June 2025, the rest (its 10-K
    // for fiscal 2025 among them) on a second page; its first page (1994–2023) is not in the fixtures.
    const over = tempDir();
    const main = JSON.parse(readFileSync(join(EDGAR_DIR, WMT_SUBMISSIONS), "utf8")) as { filings: { recent: Record<string, unknown[]>; files: unknown[] } };
    const recent = main.filings.recent;
    const keep = (recent.filingDate as string[]).map((d) => d >= "2025-06-01");
    const page = Object.fromEntries(Object.entries(recent).map(([column, values]) => [column, values.filter((_, i) => !keep[i])]));
    for (const [column, values] of Object.entries(recent)) recent[column] = values.filter((_, i) => keep[i]);
    const dates = page.filingDate as string[];
    main.filings.files.push({ name: "CIK0000104169-submissions-002.json", filingCount: dates.length, filingFrom: dates.at(-1), filingTo: dates[0] });
    mkdirSync(join(over, "submissions"), { recursive: true });
    writeFileSync(join(over, WMT_SUBMISSIONS), JSON.stringify(main));
    writeFileSync(join(over, "submissions/CIK0000104169-submissions-002.json"), JSON.stringify(page));
    const paged = makeOverlayMirror(over);
    dirs.push(paged);
    const storage = openStorage(tempDir());
    await build(storage, createDirSource(paged), ["WMT"]);
    const { manifest } = (await readPublished(storage))!;
    expect(manifest.tickers.WMT!.segments).toMatchObject({ unread_pages: ["CIK0000104169-submissions-001.json"], unreadable: [] });
    const doc = (await readJson(storage, documentKeyOf(manifest, "WMT", "segments"), SegmentsDocument))!;
    expect(doc.data.find((r) => r.axis === "business" && r.fiscal_year === 2025 && r.fiscal_quarter === "FY")).toMatchObject({ source_accession: "0000104169-25-000021" });
    // The filings document is as it was: the page lies before the Form 4 look-back.
    expect(manifest.tickers.WMT!.counts.filings).toBe((recent.filingDate as string[]).length);
    const source = createDirSource(paged);
    const read: string[] = [];
    await build(storage, { ...source, stats: source.stats, getText: (path) => (read.push(path), source.getText(path)) }, ["WMT"]);
    expect(read).not.toContain("submissions/CIK0000104169-submissions-002.json");
  });

  it("a filing whose XBRL cannot be read is named in the manifest; the company and its other filings' segments are served", async () => {
    const over = tempDir();
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(over, path)), { recursive: true });
      writeFileSync(join(over, path), text);
    };
    // SEC's block page where the 10-K for fiscal 2024 should be, and a 10-Q cut short.
    write("Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm", "<!DOCTYPE html><html><body>Request Rate Threshold Exceeded</body></html>");
    write("Archives/edgar/data/320193/000032019325000057/aapl-20250329.htm", "<?xml version='1.0'?><html xmlns:ix=\"http://www.xbrl.org/2013/inlineXBRL\"><body><ix:header>");
    const spoiled = makeOverlayMirror(over);
    dirs.push(spoiled);
    const storage = openStorage(tempDir());
    const summary = await build(storage, createDirSource(spoiled), ["AAPL"]);
    expect(summary.failed).toBe(0);
    const { manifest } = (await readPublished(storage))!;
    expect(manifest.tickers.AAPL!.segments!.unreadable).toEqual([
      { accession: "0000320193-24-000123", reason: expect.stringMatching(/^accession 0000320193-24-000123, .*aapl-20240928\.htm: not an inline XBRL document: its root declares no inline XBRL namespace prefix$/) },
      { accession: "0000320193-25-000057", reason: expect.stringMatching(/truncated: the document does not end with <\/html>/) },
    ]);
    const doc = (await readJson(storage, documentKeyOf(manifest, "AAPL", "segments"), SegmentsDocument))!;
    // Fiscal 2023 is still there, from its own 10-K (the 10-K for fiscal 2024 that repeats it could not be read).
    expect(doc.data.find((r) => r.axis === "business" && r.fiscal_year === 2023 && r.fiscal_quarter === "FY")).toMatchObject({ source_accession: "0000320193-23-000106" });
    expect(await readJson(storage, segmentCacheKey("0000320193-24-000123"), SegmentFiling)).toBeNull();
  });
});
