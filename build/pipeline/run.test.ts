import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CurrentPointer, Manifest } from "../../schemas/snapshot.ts";
import { readJson, readText, writeJson } from "../../storage/json.ts";
import { CURRENT_KEY, documentKeyOf, manifestKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, makeOverlayMirror } from "../../test/_edgar.ts";
import { startMirror, type Mirror } from "../../test/_mirror.ts";
import { removeDir, startConditionalS3, startS3, type ConditionalS3, type S3Server } from "../../test/_s3.ts";
import { auditSnapshot } from "../commands/audit.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { runBuild } from "./run.ts";
import { createDirSource } from "../sources/dir.ts";
import { crossKeys, readPublished } from "../publish/snapshot.ts";
import { createHttpSource } from "../sources/http.ts";
import { SEC_REQUESTS_PER_SECOND, TokenBucket } from "../sources/rate-limit.ts";

// The mirror's companies with company facts and submissions (covered), JNJ through the synthetic overlay
// (covered, with real Form 4 XMLs), and MSFT (submissions but no company facts: not covered).
const TICKERS = ["AAPL", "WMT", "HD", "DIS", "UAA", "UA", "MRVL", "MCD", "TXN", "JNJ", "MSFT", "KO"];
const NOW = () => new Date("2026-07-01T12:00:00.000Z");
const LOOKBACK = 90; // Form 4s filed since 2026-04-02: about 160 of them, so the HTTP tests stay short.
// Periodic reports read for /segments likewise: the fixtures hold no XBRL, each costs two 404s (build/pipeline/segments.test.ts reads them).
const SEGMENTS_SINCE = "2026-04-02";

describeEdgar("dataset build on the shared mirror", () => {
  let overlay: string;
  let mirror: Mirror;
  let s3: S3Server;
  /** s3rver behind the stand-in that adds S3's conditional writes: publishing takes its lease with them. */
  let conditional: ConditionalS3;
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), "build-"));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    overlay = makeOverlayMirror();
    mirror = await startMirror(overlay);
    s3 = await startS3();
    conditional = await startConditionalS3(s3);
  });
  afterAll(async () => {
    await mirror?.close();
    await conditional?.stop();
    await s3?.close();
    [overlay, ...dirs].forEach(removeDir);
  });

  const build = (storage: ReturnType<typeof openStorage>, source = createDirSource(overlay), extra = {}) =>
    runBuild({ source, storage, log: memoryLogger(), tickers: TICKERS, now: NOW, lookbackDays: LOOKBACK, segmentsSince: SEGMENTS_SINCE, ...extra });

  it("publishes a sound snapshot: covered tickers with three documents, MSFT not covered (no_xbrl_history)", async () => {
    const storage = openStorage(tempDir());
    const summary = await build(storage);
    expect(summary).toMatchObject({ tickers: TICKERS.length, failed: 0, not_covered: { no_xbrl_history: 2 } });
    const pointer = (await readJson(storage, CURRENT_KEY, CurrentPointer))!;
    const manifest = (await readJson(storage, manifestKey(pointer.build_id), Manifest))!;
    expect(manifest.tickers.MSFT).toMatchObject({ covered: false, reason: "no_xbrl_history", endpoints: { "/insiders": false } });
    expect(manifest.tickers.KO).toMatchObject({ covered: false, reason: "no_xbrl_history" });
    expect(manifest.tickers.MSFT!.documents).toBeUndefined();
    expect(await storage.hasItem(documentKeyOf(manifest, "MSFT", "filings"))).toBe(false);
    // UAA and UA share Under Armour's CIK and its documents: written once, named by both.
    expect(documentKeyOf(manifest, "UA", "earnings")).toBe(documentKeyOf(manifest, "UAA", "earnings"));
    expect(await readText(storage, documentKeyOf(manifest, "UA", "earnings"))).toMatch(/^\{"data":\[\{"fiscal_year"/);
    // JNJ: three real Form 4 XMLs in the mirror (0000200406-26-000108/111/113, each one derivative grant row).
    expect(manifest.tickers.JNJ).toMatchObject({ covered: true, counts: { insider_transactions: 3 }, endpoints: { "/insiders": true } });
    expect(manifest.tickers.JNJ!.form4!.fetched).toBe(3);
    expect(manifest.tickers.JNJ!.form4!.missing.length).toBeGreaterThan(0); // listed in submissions, absent from the mirror
    expect(manifest.tickers.AAPL!.freshness).toMatchObject({ newest_filing: "2026-02-26", built_at: "2026-07-01T12:00:00.000Z" });
    expect(await auditSnapshot(storage)).toMatchObject({ covered: 10, findings: [] });
  });

  // Two builds, the second writing each of its ~2,000 screen objects to s3rver: 36 s in a full run, over 60 s with
  // the machine busier, as CI's sometimes is.
  it("gives identical documents in a folder and in S3 (s3rver over HTTP)", async () => {
    const folder = openStorage(tempDir());
    const bucket = openStorage(`s3://${s3.bucket}/identical`, conditional.env);
    await build(folder);
    await build(bucket);
    const [a, b] = [(await readPublished(folder))!.manifest, (await readPublished(bucket))!.manifest];
    for (const ticker of ["AAPL", "JNJ", "UA", "WMT"]) {
      for (const kind of ["filings", "earnings", "insiders"] as const) {
        const left = await readText(folder, documentKeyOf(a, ticker, kind));
        expect(left).not.toBeNull();
        expect(await readText(bucket, documentKeyOf(b, ticker, kind))).toBe(left);
      }
    }
    expect(await auditSnapshot(bucket)).toMatchObject({ covered: 10, findings: [] });
  }, 180_000);

  it("gives identical documents and manifest entries computed on worker threads and inline", async () => {
    const [inline, threads] = [openStorage(tempDir()), openStorage(tempDir())];
    const [a, b] = [await build(inline, undefined, { workers: 0 }), await build(threads, undefined, { workers: 2 })];
    expect(b).toMatchObject({ covered: a.covered, failed: 0, not_covered: a.not_covered });
    const manifests = await Promise.all([readJson(inline, manifestKey(a.build_id), Manifest), readJson(threads, manifestKey(b.build_id), Manifest)]);
    for (const ticker of TICKERS) {
      for (const kind of ["filings", "earnings", "insiders"] as const) {
        expect(await readText(threads, documentKeyOf(manifests[1]!, ticker, kind))).toBe(await readText(inline, documentKeyOf(manifests[0]!, ticker, kind)));
      }
    }
    // The same entries, documents named by content (their keys name each build's own folder).
    const byContent = (m: Manifest) =>
      Object.fromEntries(Object.entries(m.tickers).map(([t, e]) => [t, { ...e, documents: Object.fromEntries(Object.entries(e.documents ?? {}).map(([k, r]) => [k, r.sha256])) }]));
    expect(byContent(manifests[1]!)).toEqual(byContent(manifests[0]!));
  });

  it("without the screen timelines (the bulk benchmark's baseline): every other document the same, no company in any screen", async () => {
    const [full, bare] = [openStorage(tempDir()), openStorage(tempDir())];
    await build(full);
    await build(bare, undefined, { screenTimelines: false });
    const [a, b] = [(await readPublished(full))!.manifest, (await readPublished(bare))!.manifest];
    for (const ticker of ["AAPL", "JNJ", "WMT"]) {
      for (const kind of ["filings", "earnings", "financials", "insiders"] as const) {
        expect(await readText(bare, documentKeyOf(b, ticker, kind))).toBe(await readText(full, documentKeyOf(a, ticker, kind)));
      }
    }
    expect(Object.keys(a.cross!.screens).length).toBeGreaterThan(0);
    expect(b.cross!.screens).toEqual({});
  });

  it("caches parsed Form 4s: a second build fetches none of them again", async () => {
    const storage = openStorage(tempDir());
    const first = createDirSource(overlay);
    await build(storage, first);
    const second = createDirSource(overlay);
    await build(storage, second);
    const manifest = (await readJson(storage, manifestKey((await readJson(storage, CURRENT_KEY, CurrentPointer))!.build_id), Manifest))!;
    expect(manifest.tickers.JNJ!.form4).toMatchObject({ cached: 3, fetched: 0 });
    // Incremental: neither the 3 cached XMLs nor the ones missing last run are asked for again; today's index is (404).
    expect(manifest.tickers.JNJ!.form4!.not_retried).toBeGreaterThan(0);
    expect(manifest).toMatchObject({ form4_fetched: 0, form4_index: { incremental: true, days_read: 0, days_missing: 1 } });
    expect(second.stats.requests).toBeLessThan(first.stats.requests - 3);
  });

  it("through a faulty HTTP mirror: completes with nothing lost, never over 10 requests in a second", async () => {
    const clean = openStorage(tempDir());
    const reference = await build(clean);
    const from = mirror.log.length;
    let n = 0;
    mirror.setFaults((path, count) => {
      if (count > 1) return undefined;
      n++;
      if (n % 11 === 0) return { kind: "status", status: 429, retryAfter: "1" };
      if (n % 7 === 0) return { kind: "status", status: 503 };
      if (n % 13 === 0) return { kind: "truncate" };
      if (n % 17 === 0) return { kind: "reset" };
      if (path.startsWith("submissions/") && n % 3 === 0) return { kind: "slow", ms: 300 };
      return undefined;
    });
    const storage = openStorage(tempDir());
    const source = createHttpSource({ base: mirror.url, userAgent: "Test Co test@example.com", bucket: new TokenBucket(SEC_REQUESTS_PER_SECOND), backoffMs: 50, timeoutMs: 5_000 });
    const summary = await build(storage, source);
    mirror.setFaults(undefined);
    expect(summary.failed).toBe(0);
    expect(source.stats.retries).toBeGreaterThan(5);
    expect(mirror.maxPerSecond(from)).toBeLessThanOrEqual(10);
    const [faulty, cleanManifest] = [(await readPublished(storage))!.manifest, (await readPublished(clean))!.manifest];
    expect([faulty.build_id, cleanManifest.build_id]).toEqual([summary.build_id, reference.build_id]);
    for (const ticker of ["AAPL", "JNJ", "WMT"]) {
      for (const kind of ["filings", "earnings", "insiders"] as const) {
        const doc = await readText(storage, documentKeyOf(faulty, ticker, kind));
        const ref = await readText(clean, documentKeyOf(cleanManifest, ticker, kind));
        expect(JSON.parse(doc!).data).toEqual(JSON.parse(ref!).data);
      }
    }
  }, 120_000);

  it("keeps a ticker's previous documents when its source fails, and says so in the manifest", async () => {
    const storage = openStorage(tempDir());
    const first = await build(storage);
    mirror.setFaults((path) => (path === "submissions/CIK0000104169.json" ? { kind: "status", status: 500 } : undefined));
    const source = createHttpSource({ base: mirror.url, bucket: new TokenBucket(1000), attempts: 2, backoffMs: 5 });
    const second = await build(storage, source, { tickers: ["WMT", "AAPL"] });
    mirror.setFaults(undefined);
    expect(second).toMatchObject({ failed: 1, kept_previous: 1, covered: 1 });
    const manifest = (await readJson(storage, manifestKey(second.build_id), Manifest))!;
    const before = (await readJson(storage, manifestKey(first.build_id), Manifest))!;
    expect(manifest.tickers.WMT).toMatchObject({ covered: true, documents_from: first.build_id, error: expect.stringMatching(/HTTP 500/) });
    // Kept by reference: the very documents the first build wrote.
    expect(manifest.tickers.WMT!.documents).toEqual(before.tickers.WMT!.documents);
    expect(documentKeyOf(manifest, "WMT", "earnings")).toMatch(new RegExp(`^snapshots/${first.build_id}/`));
    // Kept documents are sound but stale: the failed company is a finding (issue 39), not rebuilt warnings.
    const later = () => new Date("2026-07-01T18:00:00.000Z");
    mirror.setFaults((path) => (path === "submissions/CIK0000104169.json" ? { kind: "status", status: 500 } : undefined));
    // --universe-only: the other tickers, carried forward unchanged otherwise, would be warnings too (build/pipeline/subset.test.ts).
    const third = await build(storage, createHttpSource({ base: mirror.url, bucket: new TokenBucket(1000), attempts: 1 }), { tickers: ["WMT", "AAPL"], universeOnly: true, now: later });
    mirror.setFaults(undefined);
    const audit = await auditSnapshot(storage);
    expect(audit).toMatchObject({
      build_id: third.build_id,
      failed: ["WMT"],
      findings: [`WMT: failed: submissions/CIK0000104169.json: gave up after 1 attempts (HTTP 500); its documents are stale since 2026-07-01T12:00:00.000Z, kept from ${first.build_id}`],
    });
    // Fiscal years whose quarters do not add up are marked exceptions: a warning (build/commands/audit.test.ts).
    expect(audit.warnings).toEqual([
      expect.stringMatching(/^AAPL: \d+ financials rows carry marked exceptions \(reconciled \d+\)$/),
      expect.stringMatching(/^WMT: \d+ earnings periods carry marked exceptions \(reconciled \d+\)$/),
      expect.stringMatching(/^WMT: \d+ financials rows carry marked exceptions \(reconciled \d+\)$/),
    ]);
  });

  it("keeps only the newest snapshots (retention), never the current one, and the documents they still reference", async () => {
    const storage = openStorage(tempDir());
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const now = () => new Date(Date.UTC(2026, 6, 1, 12, i));
      // From the third build on, the look-back is ten years: AAPL's insiders document changes (its 2022 Form 4), the others do not.
      ids.push((await build(storage, createDirSource(overlay), { tickers: ["AAPL"], retention: 2, now, ...(i >= 2 ? { lookbackDays: 3650 } : {}) })).build_id);
    }
    let keys = await storage.getKeys("snapshots");
    const manifests = keys.filter((k) => k.endsWith(":manifest.json")).map((k) => k.split(":")[1]).sort();
    expect(manifests).toEqual(ids.slice(-2));
    // The first build's filings, earnings and financials are still current (unchanged since); its insiders document is not, and
    // neither build two nor four wrote anything: their folders are gone or hold only the manifest.
    const current = (await readPublished(storage))!.manifest;
    expect(documentKeyOf(current, "AAPL", "filings")).toMatch(new RegExp(`^snapshots/${ids[0]}/`));
    expect(documentKeyOf(current, "AAPL", "insiders")).toMatch(new RegExp(`^snapshots/${ids[2]}/`));
    const ofFirst = () => keys.filter((k) => k.split(":")[1] === ids[0] && k.split(":")[2] === "tickers").map((k) => k.split(":").at(-1)).sort();
    // The replaced insiders document stays a grace period (a gateway may still hold the manifest naming it).
    expect(ofFirst()).toEqual(["earnings.json", "filings.json", "financials.json", "insiders.json", "screen.json", "segments.json"]);
    // The first build assembled the cross-company documents (there were none); the --tickers builds since kept them.
    expect(current.cross?.build_id).toBe(ids[0]);
    expect(crossKeys(current.cross).every((key) => keys.includes(key.replace(/\//g, ":")))).toBe(true);
    expect(current.superseded).toEqual([{ key: `snapshots/${ids[0]}/tickers/AAPL/insiders.json`, at: "2026-07-01T12:02:00.000Z" }]);
    expect(keys.some((k) => k.split(":")[1] === ids[1])).toBe(false);
    expect(keys.filter((k) => k.split(":")[1] === ids[3])).toEqual([`snapshots:${ids[3]}:manifest.json`]);
    expect(await auditSnapshot(storage)).toMatchObject({ findings: [] });
    // Past the grace period, the next publish removes it.
    await build(storage, createDirSource(overlay), { tickers: ["AAPL"], retention: 2, lookbackDays: 3650, now: () => new Date(Date.UTC(2026, 6, 1, 12, 30)) });
    keys = await storage.getKeys("snapshots");
    expect(ofFirst()).toEqual(["earnings.json", "filings.json", "financials.json", "screen.json", "segments.json"]);
  });

  it("reconciles the filings the follower gave up on before it began, for the companies it read afresh", async () => {
    const storage = openStorage(tempDir());
    const first = await build(storage);
    // The follower's state as it would have published it: three filings EDGAR's submissions did not list in time.
    const manifest = (await readPublished(storage))!.manifest;
    const given = (cik: number, at: string) => ({ accession: "0000320193-26-000099", cik, form: "8-K", reason: "not yet in the submissions", at });
    const unconfirmed = [given(320193, "2026-07-01T12:05:00.000Z"), given(320193, "2026-07-01T12:20:00.000Z"), given(1, "2026-07-01T12:05:00.000Z")];
    await writeJson(storage, manifestKey(first.build_id), Manifest, { ...manifest, follow: { through: "2026-07-01T12:06:00.000Z", gaps: [], unconfirmed, published_filings: 3 } });
    // A build beginning at 12:10 read AAPL's submissions afresh: its 12:05 filing is reconciled; the one given up on
    // after it began, and the company outside the universe, are not.
    await build(storage, createDirSource(overlay), { now: () => new Date("2026-07-01T12:10:00.000Z") });
    const follow = (await readPublished(storage))!.manifest.follow!;
    expect(follow.unconfirmed).toEqual([unconfirmed[1], unconfirmed[2]]);
    expect(follow).toMatchObject({ through: "2026-07-01T12:06:00.000Z", published_filings: 0 });
  });

  it("publishes nothing, and throws, when nothing can be built", async () => {
    const storage = openStorage(tempDir());
    mirror.setFaults((path) => (path.startsWith("submissions/") ? { kind: "status", status: 500 } : undefined));
    const source = createHttpSource({ base: mirror.url, bucket: new TokenBucket(1000), attempts: 1 });
    await expect(build(storage, source, { tickers: ["AAPL", "WMT"] })).rejects.toThrow(/nothing could be built/);
    mirror.setFaults(undefined);
    expect(await storage.hasItem(CURRENT_KEY)).toBe(false);
  });

  it("a build killed midway (SIGKILL) leaves current.json on the previous snapshot", async () => {
    const dir = tempDir();
    const storage = openStorage(dir);
    await build(storage);
    const before = await readText(storage, CURRENT_KEY);
    mirror.setFaults((path) => (path.startsWith("Archives/") ? { kind: "slow", ms: 400 } : undefined));
    const child = spawn(process.execPath, ["build/commands/cli.ts", "build", "--source", mirror.url, "--out", dir, "--tickers", TICKERS.join(",")], {
      env: { ...process.env, LOG_LEVEL: "error" },
      stdio: "ignore",
    });
    // Wait until the new snapshot has documents on disk, then kill the build without warning.
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const ids = new Set((await storage.getKeys("snapshots")).map((k) => k.split(":")[1]));
      if (ids.size > 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    mirror.setFaults(undefined);
    expect(await readText(storage, CURRENT_KEY)).toBe(before);
    expect((await auditSnapshot(storage)).findings).toEqual([]);
  }, 90_000);
});
