import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Manifest } from "../../schemas/snapshot.ts";
import { readJson } from "../../storage/json.ts";
import { manifestKey } from "../../storage/layout.ts";
import { openStorage } from "../../storage/open.ts";
import { describeEdgar, makeOverlayMirror, readEdgar } from "../../test/_edgar.ts";
import { removeDir } from "../../test/_s3.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { daysBetween, MAX_INDEX_DAYS, readForm4Index } from "./form4-index.ts";
import { ownershipXmlFromSubmission } from "../parse/full-submission.ts";
import { runBuild } from "./run.ts";
import { createDirSource } from "../sources/dir.ts";
import { dailyFormIndexPath, fullSubmissionPath } from "../sources/paths.ts";

const JNJ_XML = "Archives/edgar/data/200406/000020040626000108/wk-form4_1777328237.xml";
const NEW = "0000200406-26-000200"; // synthetic: named only by the synthetic daily index of 2026-07-02
const at = (iso: string) => () => new Date(iso);

/** A full submission as EDGAR writes it (SEC header, then the document), around a real Form 4 XML. */
function fullSubmission(xml: string): string {
  return `<SEC-DOCUMENT>${NEW}.txt : 20260702\n<SEC-HEADER>synthetic header</SEC-HEADER>\n<DOCUMENT>\n<TYPE>4\n<SEQUENCE>1\n<FILENAME>form4.xml\n<TEXT>\n<XML>\n${xml}\n</XML>\n</TEXT>\n</DOCUMENT>\n</SEC-DOCUMENT>\n`;
}

/** A daily form index in EDGAR's columns (widths as in the real form.20200318.idx). */
function dailyIndex(rows: [form: string, company: string, cik: number, accession: string][]): string {
  const head = "Description:           Daily Index of EDGAR Dissemination Feed by Form Type (synthetic)\n\n";
  const columns = `${"Form Type".padEnd(12)}${"Company Name".padEnd(62)}${"CIK".padEnd(12)}${"Date Filed".padEnd(12)}File Name\n${"-".repeat(141)}\n`;
  const body = rows.map(([form, company, cik, acc]) => `${form.padEnd(12)}${company.padEnd(62)}${String(cik).padEnd(12)}20260702    edgar/data/${cik}/${acc}.txt`);
  return head + columns + body.join("\n") + "\n";
}

describeEdgar("incremental Form 4s from EDGAR's daily indexes", () => {
  let mirror: string;
  const dirs: string[] = [];
  beforeAll(() => {
    // The test overlay plus, for 2026-07-02, a daily index and one full submission (the only new Form 4 of JNJ).
    const overlay = mkdtempSync(join(tmpdir(), "overlay-incremental-"));
    cpSync(join(import.meta.dirname, "..", "..", "test", "fixtures", "overlay"), overlay, { recursive: true });
    const put = (path: string, text: string) => {
      mkdirSync(dirname(join(overlay, path)), { recursive: true });
      writeFileSync(join(overlay, path), text);
    };
    put(dailyFormIndexPath("2026-07-02"), dailyIndex([
      ["4", "JOHNSON & JOHNSON", 200406, NEW],
      ["4", "JOHNSON & JOHNSON", 200406, "0000200406-26-000108"], // already cached: not fetched again
      ["4", "SOMEONE OUTSIDE THE UNIVERSE", 1234567, "0001234567-26-000001"],
      ["8-K", "JOHNSON & JOHNSON", 200406, "0000200406-26-000201"],
    ]));
    put(fullSubmissionPath(200406, NEW), fullSubmission(readEdgar(JNJ_XML)));
    mirror = makeOverlayMirror(overlay);
    dirs.push(overlay, mirror);
  });
  afterAll(() => dirs.forEach(removeDir));
  const tempStore = () => {
    const dir = mkdtempSync(join(tmpdir(), "incremental-"));
    dirs.push(dir);
    return openStorage(dir);
  };

  const build = (storage: ReturnType<typeof openStorage>, now: () => Date, tickers = ["JNJ", "AAPL"]) => {
    const source = createDirSource(mirror);
    return runBuild({ source, storage, log: memoryLogger(), tickers, now, lookbackDays: 90 }).then(async (summary) => ({
      summary,
      source,
      manifest: (await readJson(storage, manifestKey(summary.build_id), Manifest))!,
    }));
  };

  it("a first run discovers from submissions; the next reads only the days since and fetches only the new Form 4", async () => {
    const storage = tempStore();
    const first = await build(storage, at("2026-07-01T12:00:00Z"));
    expect(first.manifest.form4_index).toEqual({ through: "2026-06-30", incremental: false, days_read: 0, days_missing: 0 });
    expect(first.manifest.tickers.JNJ!.form4).toMatchObject({ fetched: 3, cached: 0 });
    const missingBefore = first.manifest.tickers.JNJ!.form4!.missing.length;
    expect(missingBefore).toBeGreaterThan(0);

    const second = await build(storage, at("2026-07-03T12:00:00Z"));
    // 07-01 and 07-03 have no index (404, normal); 07-02's names one new JNJ Form 4, fetched from its full submission.
    expect(second.manifest.form4_index).toEqual({ through: "2026-07-02", incremental: true, days_read: 1, days_missing: 2 });
    expect(second.manifest.tickers.JNJ!.form4).toEqual({ cached: 3, fetched: 1, missing: [], unreadable: [], not_retried: missingBefore });
    expect(second.manifest.tickers.JNJ!.counts.insider_transactions).toBe(4);
    expect(second.manifest.form4_fetched).toBe(1);
    expect(second.summary).toMatchObject({ form4_fetched: 1, form4_index_days: 1 });
    // Requests: tickers, then per company facts + submissions (2 × 2), 3 daily indexes, 1 full submission.
    expect(second.source.stats.requests).toBe(1 + 4 + 3 + 1);
  });

  it("falls back to submissions for a company the last run did not rebuild", async () => {
    const storage = tempStore();
    await build(storage, at("2026-07-01T12:00:00Z"), ["AAPL"]);
    const second = await build(storage, at("2026-07-03T12:00:00Z"));
    expect(second.manifest.form4_index?.incremental).toBe(true);
    expect(second.manifest.tickers.JNJ!.form4).toMatchObject({ fetched: 4, cached: 0 });
    expect(second.manifest.tickers.JNJ!.form4!.not_retried).toBeUndefined();
  });

  it("reads no index after too long a gap (submissions again), and counts calendar days", async () => {
    expect(daysBetween("2026-02-27", "2026-03-02")).toEqual(["2026-02-28", "2026-03-01", "2026-03-02"]);
    expect(daysBetween("2026-03-02", "2026-03-02")).toEqual([]);
    const source = createDirSource(mirror);
    expect(await readForm4Index(source, "2026-01-01", "2026-07-03", memoryLogger())).toBeNull();
    expect(source.stats.requests).toBe(0);
    expect(MAX_INDEX_DAYS).toBeLessThan(90);
  });
});

describe("full submission text", () => {
  it("yields the ownership XML inside, and names the accession when there is none", () => {
    const xml = '<?xml version="1.0"?>\n<ownershipDocument><schemaVersion>X0508</schemaVersion></ownershipDocument>';
    expect(ownershipXmlFromSubmission(`<DOCUMENT>\n<TYPE>EX-99\n<TEXT>\n<XML>\n<other/>\n</XML>\n</TEXT>\n</DOCUMENT>\n<DOCUMENT>\n<TYPE>4\n<TEXT>\n<XML>\n${xml}\n</XML>`)).toBe(xml);
    expect(() => ownershipXmlFromSubmission("<SEC-DOCUMENT>no xml</SEC-DOCUMENT>", { accession: NEW })).toThrow(/accession 0000200406-26-000200: the full submission holds no ownership XML/);
  });
});
