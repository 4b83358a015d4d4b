import { afterAll, describe, expect, it } from "vitest";
import { describeEdgar, listEdgar, readEdgar } from "../../test/_edgar.ts";
import { openCompute } from "./compute.ts";
import { EdgarParseError, NoXbrlHistoryError } from "../errors.ts";

const ORIGIN = { source_api: "dir:test", built_at: "2026-07-01T12:00:00.000Z" };
const inline = openCompute(0);
/** A result with its document bytes as text: deep equality over megabytes of Uint8Array is very slow. */
const plain = (result: object) => ({ ...result, ...("bytes" in result && result.bytes ? { bytes: Buffer.from(result.bytes as Uint8Array).toString() } : {}) });
const threads = openCompute(2);
afterAll(() => threads.close());

describeEdgar("compute on worker threads", () => {
  const PAGES = new Set(listEdgar("submissions").filter((f) => f.includes("-submissions-")));
  // Three companies for the three kinds of file (the derivations themselves run over every file elsewhere): TSMC's IFRS
  // facts, Snowflake's January fiscal year, Apple's long US-GAAP history.
  const FACTS = ["CIK0001046179.json", "CIK0001640147.json", "CIK0000320193.json"];
  it("the three files are in the fixtures", () => expect(listEdgar("api/xbrl/companyfacts")).toEqual(expect.arrayContaining(FACTS)));
  it.each(FACTS)("%s: the same earnings document as inline", async (file) => {
    const text = readEdgar(`api/xbrl/companyfacts/${file}`);
    const cik = Number(file.slice(3, 13));
    expect(plain(await threads.facts(text, cik, ORIGIN))).toEqual(plain(await inline.facts(text, cik, ORIGIN)));
  });

  it.each(listEdgar("submissions").filter((f) => !f.includes("-submissions-")))("%s: the same filings document as inline, older pages asked for", async (file) => {
    const text = readEdgar(`submissions/${file}`);
    const cik = Number(file.slice(3, 13));
    const older = { form4Since: "2000-01-01", pages: null };
    const [left, right] = [await inline.filings(text, cik, older, ORIGIN), await threads.filings(text, cik, older, ORIGIN)];
    expect(plain(right)).toEqual(plain(left));
    // Only pages the mirror holds (Tesla's, Expedia's) can be merged; the others are asked for all the same.
    if ("need_pages" in left && left.need_pages.every((name) => PAGES.has(name))) {
      const pages = left.need_pages.map((name) => ({ name, text: readEdgar(`submissions/${name}`) }));
      const [full, fullThreads] = [await inline.filings(text, cik, { ...older, pages }, ORIGIN), await threads.filings(text, cik, { ...older, pages }, ORIGIN)];
      expect(plain(fullThreads)).toEqual(plain(full));
      expect("bytes" in full && full.filings).toBeGreaterThan(1000); // the recent block (≥ 1,000 rows when pages exist) and its pages
    }
  });
});

describe("compute errors cross threads with their type and message", () => {
  it("text that is not JSON → EdgarParseError naming the CIK", async () => {
    const error = await threads.facts("<html>Traffic Limit</html>", 1234, ORIGIN).catch((e: Error) => e);
    expect(error).toBeInstanceOf(EdgarParseError);
    expect(error).not.toBeInstanceOf(NoXbrlHistoryError);
    expect((error as EdgarParseError).message).toMatch(/^CIK 1234, api\/xbrl\/companyfacts\/CIK0000001234\.json: not valid JSON/);
    expect((error as EdgarParseError).subject).toEqual({ cik: 1234, path: "api/xbrl/companyfacts/CIK0000001234.json" });
  });

  it("facts without a financial taxonomy → NoXbrlHistoryError", async () => {
    const text = JSON.stringify({ cik: 1234, entityName: "Shell Corp", facts: { dei: {} } });
    await expect(threads.facts(text, 1234, ORIGIN)).rejects.toBeInstanceOf(NoXbrlHistoryError);
  });

  it("a document that fails its schema is refused, naming the document", async () => {
    const bad = { data: [{ not: "a transaction" }], meta: { ...ORIGIN, source_accession: null, filed_at: null } };
    await expect(threads.encode("insiders", bad)).rejects.toThrow(/^refusing to write the insiders document: data\.0\./);
    await expect(inline.encode("insiders", bad)).rejects.toThrow(/^refusing to write the insiders document: data\.0\./);
  });

  it("a closed pool refuses new work", async () => {
    const pool = openCompute(1);
    await pool.close();
    await expect(pool.encode("insiders", {})).rejects.toThrow(/closed/);
  });
});
