import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Manifest } from "../../schemas/snapshot.ts";
import { readJson, readText, writeJson } from "../../storage/json.ts";
import { documentKeyOf, form4CacheKey, manifestKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, EDGAR_DIR, makeOverlayMirror } from "../../test/_edgar.ts";
import { removeDir } from "../../test/_s3.ts";
import { auditSnapshot } from "../commands/audit.ts";
import { main } from "../commands/cli.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { runBuild, type BuildSummary } from "./run.ts";
import { createDirSource } from "../sources/dir.ts";

// Strict input (issue 17): real EDGAR files, each spoiled with one defect EDGAR never produces, in a second build.
// Every spoiled company fails with an error naming the file and the defect, keeps the documents it had, and the
// manifest and `audit` say so; the healthy company is rebuilt as usual.

const FIXTURES = join(import.meta.dirname, "..", "..", "test", "fixtures", "overlay");
const FIRST = () => new Date("2026-07-01T12:00:00.000Z");
const SECOND = () => new Date("2026-07-01T13:00:00.000Z");
const JNJ_FORM4 = "Archives/edgar/data/200406/000020040626000108/wk-form4_1777328237.xml";
const facts = (cik: string) => `api/xbrl/companyfacts/CIK${cik}.json`;
const submissions = (cik: string) => `submissions/CIK${cik}.json`;

/** A JSON file re-serialised with one more member `key` in the object at `path` — a key it already has. */
function withRepeatedKey(file: string, path: string[], key: string, value: unknown): string {
  const object = JSON.parse(readFileSync(join(EDGAR_DIR, file), "utf8"));
  const parent = path.reduce((at, step) => at[step], object);
  parent.__REPEATED__ = value;
  return JSON.stringify(object).replace('"__REPEATED__":', `${JSON.stringify(key)}:`);
}

/** A company facts file with its first fact of `concept` changed. */
function withFact(cik: string, concept: string, change: (fact: Record<string, unknown>) => void): string {
  const object = JSON.parse(readFileSync(join(EDGAR_DIR, facts(cik)), "utf8"));
  const units = object.facts["us-gaap"][concept].units;
  change(Object.values(units as Record<string, Record<string, unknown>[]>)[0]!.find((f) => "start" in f)!);
  return JSON.stringify(object);
}

/** Each spoiled file, the ticker it fails, and the defect the manifest must name. */
const SPOILED: { ticker: string; file: string; content: () => string | Buffer; defect: RegExp }[] = [
  // The case the attack pass found: JSON.parse keeps the second, empty "us-gaap", and AAPL looked like a shell.
  { ticker: "AAPL", file: facts("0000320193"), content: () => withRepeatedKey(facts("0000320193"), ["facts"], "us-gaap", {}), defect: /^duplicate key "us-gaap" in facts$/ },
  // A repeated concept after the real one: JSON.parse keeps the one with a single period.
  {
    ticker: "WMT",
    file: facts("0000104169"),
    content: () => withRepeatedKey(facts("0000104169"), ["facts", "us-gaap"], "NetIncomeLoss", { label: "Net Income", units: { USD: [{ start: "2024-02-01", end: "2025-01-31", val: 1, accn: "0000104169-25-000021", fy: 2025, fp: "FY", form: "10-K", filed: "2025-03-14" }] } }),
    defect: /^duplicate key "NetIncomeLoss" in facts\.us-gaap$/,
  },
  {
    ticker: "HD",
    file: submissions("0000354950"),
    content: () => {
      const bytes = readFileSync(join(EDGAR_DIR, submissions("0000354950")));
      const at = bytes.indexOf('"name":"') + 8;
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff, 0xfe]), bytes.subarray(at)]);
    },
    defect: /^not valid UTF-8: byte 0xff at offset \d+$/,
  },
  { ticker: "DIS", file: facts("0001744489"), content: () => withFact("0001744489", "NetIncomeLoss", (f) => void (f.end = "2023-02-30")), defect: /^facts\.us-gaap\.NetIncomeLoss\.units\.USD\[\d+\]: impossible date \(.*end "2023-02-30"/ },
  { ticker: "MCD", file: facts("0000063908"), content: () => withFact("0000063908", "NetIncomeLoss", (f) => void ([f.start, f.end] = [f.end, f.start])), defect: /reversed dates: start after end/ },
  {
    ticker: "TXN",
    file: facts("0000097476"),
    content: () => {
      const object = JSON.parse(readFileSync(join(EDGAR_DIR, facts("0000097476")), "utf8"));
      object.facts.dei.Deep = { units: { USD: [[[[{ val: [[[1]]] }]]]] } }; // in a concept the builder never reads
      return JSON.stringify(object);
    },
    defect: /^nesting deeper than EDGAR's files have, in facts\.dei \(offset \d+\)$/, // dei is walked for the cover's shares
  },
  { ticker: "UAA", file: submissions("0001336917"), content: () => withRepeatedKey(submissions("0001336917"), [], "name", "UNDER ARMOUR (OTHER)"), defect: /^duplicate key "name" in \(root\)$/ },
  {
    ticker: "JNJ",
    file: JNJ_FORM4,
    content: () => readFileSync(join(EDGAR_DIR, JNJ_FORM4), "utf8").replace(/(<transactionShares>[\s\S]*?<\/transactionShares>)/, "$1$1"),
    defect: /^<transactionShares> repeated in <transactionAmounts>$/,
  },
];

describeEdgar("strict input: EDGAR files with defects EDGAR never produces", () => {
  let overlay: string;
  let data: string;
  const mirrors: string[] = [];
  let first: BuildSummary;
  let second: BuildSummary;
  const logs = memoryLogger();
  const build = (now: () => Date, tickers: string[], log = memoryLogger()) => {
    const mirror = makeOverlayMirror(overlay);
    mirrors.push(mirror);
    return runBuild({ source: createDirSource(mirror), storage: openStorage(data), log, tickers, now, lookbackDays: 90, workers: 0 });
  };

  beforeAll(async () => {
    overlay = mkdtempSync(join(tmpdir(), "strict-overlay-"));
    cpSync(FIXTURES, overlay, { recursive: true });
    data = mkdtempSync(join(tmpdir(), "strict-data-"));
    // TXN is not in the first build: failing in the second, it has no earlier documents to keep.
    first = await build(FIRST, ["AAPL", "WMT", "HD", "DIS", "MCD", "UAA", "UA", "JNJ", "MRVL"]);
    for (const spoil of SPOILED) {
      mkdirSync(dirname(join(overlay, spoil.file)), { recursive: true });
      writeFileSync(join(overlay, spoil.file), spoil.content());
    }
    // The JNJ Form 4 was cached by the first build: as if it were new, it is fetched (and read) again — by a build
    // that discovers Form 4s from the submissions (the first manifest without daily-index coverage, as older ones are).
    const storage = openStorage(data);
    await storage.removeItem(form4CacheKey("0000200406-26-000108"));
    const { form4_index: _coverage, ...earlier } = (await readJson(storage, manifestKey(first.build_id), Manifest))!;
    await writeJson(storage, manifestKey(first.build_id), Manifest, earlier);
    second = await build(SECOND, ["AAPL", "WMT", "HD", "DIS", "MCD", "TXN", "UAA", "UA", "JNJ", "MRVL"], logs);
  }, 120_000);
  afterAll(() => [overlay, data, ...mirrors].forEach(removeDir));

  it("the first build covered every company; the second failed each spoiled one and rebuilt the healthy one", () => {
    expect(first).toMatchObject({ failed: 0, covered: 9 });
    expect(second).toMatchObject({ failed: 9, kept_previous: 8, covered: 1, not_covered: { source_failed: 1 } });
  });

  it.each(SPOILED.map((s) => [s.ticker, s] as const))("%s: the manifest names the file and the defect, and the documents it had are kept", async (ticker, spoil) => {
    const storage = openStorage(data);
    const manifest = (await readJson(storage, manifestKey(second.build_id), Manifest))!;
    const entry = manifest.tickers[ticker]!;
    expect(entry.input_defect?.file).toBe(spoil.file);
    expect(entry.input_defect?.defect).toMatch(spoil.defect);
    expect(entry.error).toContain(spoil.file);
    expect(entry.error).toContain(entry.input_defect!.defect);
    if (ticker === "TXN") {
      expect(entry).toMatchObject({ covered: false, reason: "source_failed" });
      return;
    }
    expect(entry).toMatchObject({ covered: true, documents_from: first.build_id });
    // Kept by reference: the very documents the first build published, still readable.
    const before = (await readJson(storage, manifestKey(first.build_id), Manifest))!;
    expect(entry.documents).toEqual(before.tickers[ticker]!.documents);
    for (const kind of ["filings", "earnings", "insiders"] as const) expect(await readText(storage, documentKeyOf(manifest, ticker, kind))).not.toBeNull();
    // Logged as it happened, with the same words.
    expect(logs.lines.some((l) => l.event === "company_failed" && String(l.fields.error).includes(entry.input_defect!.defect))).toBe(true);
  });

  it("UA shares Under Armour's CIK: it failed with UAA, on the same file", async () => {
    const manifest = (await readJson(openStorage(data), manifestKey(second.build_id), Manifest))!;
    expect(manifest.tickers.UA!.input_defect).toEqual(manifest.tickers.UAA!.input_defect);
  });

  it("MRVL, untouched, was rebuilt and has no defect", async () => {
    const manifest = (await readJson(openStorage(data), manifestKey(second.build_id), Manifest))!;
    expect(manifest.tickers.MRVL).toMatchObject({ covered: true, freshness: { built_at: SECOND().toISOString() } });
    expect(manifest.tickers.MRVL!.input_defect).toBeUndefined();
    expect(manifest.tickers.MRVL!.documents_from).toBeUndefined();
  });

  it("`audit` reports each as a finding (file and defect) and exits 1", async () => {
    const report = await auditSnapshot(openStorage(data));
    for (const spoil of SPOILED) expect(report.findings.some((f) => f.startsWith(`${spoil.ticker}: failed: ${spoil.file}: `))).toBe(true);
    expect(report.findings).toHaveLength(SPOILED.length + 1); // and UA
    const out: string[] = [];
    const log = console.log;
    console.log = (line: string) => void out.push(line);
    const code = await main(["audit", "--data", data]).finally(() => (console.log = log));
    expect(code).toBe(1);
    expect(out.filter((l) => l.startsWith("FINDING "))).toHaveLength(SPOILED.length + 1);
  });
});
