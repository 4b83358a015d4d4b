import { describe, expect, it } from "vitest";
import { FilingItem } from "../../schemas/filing.ts";
import { describeEdgar, listEdgar, readEdgar } from "../../test/_edgar.ts";
import { EdgarParseError, MalformedInputError } from "../errors.ts";
import { mergeFilings, parseSubmissions, parseSubmissionsPage } from "./submissions.ts";

describeEdgar("parseSubmissions on every submissions file of the mirror", () => {
  const mains = listEdgar("submissions").filter((f) => !f.includes("-submissions-"));

  it.each(mains)("%s: one valid item per row, unique, newest first", (file) => {
    const text = readEdgar(`submissions/${file}`);
    const rows = (JSON.parse(text) as { filings: { recent: { accessionNumber: string[] } } }).filings.recent.accessionNumber.length;
    const subs = parseSubmissions(text, { path: file });
    expect(subs.filings).toHaveLength(rows);
    expect(new Set(subs.filings.map((f) => f.accession_number)).size).toBe(rows);
    for (const f of subs.filings) FilingItem.parse(f);
    for (let i = 1; i < subs.filings.length; i++) {
      const [a, b] = [subs.filings[i - 1]!, subs.filings[i]!];
      expect((a.accepted_at ?? a.filed_at) >= (b.accepted_at ?? b.filed_at)).toBe(true);
    }
  });

  it("Apple: the 8-K of 2026-02-24 with its items as a list and absolute URLs", () => {
    // submissions/CIK0000320193.json, recent row for 0001140361-26-006577 (items "5.07,9.01").
    const subs = parseSubmissions(readEdgar("submissions/CIK0000320193.json"));
    expect(subs).toMatchObject({ cik: 320193, name: "Apple Inc.", tickers: ["AAPL"], fiscalYearEnd: "0926" });
    const eightK = subs.filings.find((f) => f.accession_number === "0001140361-26-006577");
    expect(eightK).toEqual({
      accession_number: "0001140361-26-006577",
      form: "8-K",
      filed_at: "2026-02-24",
      accepted_at: "2026-02-24T16:55:58.000Z",
      report_date: "2026-02-24",
      primary_document: "ef20060722_8k.htm",
      primary_document_description: "8-K",
      url: "https://www.sec.gov/Archives/edgar/data/320193/000114036126006577/ef20060722_8k.htm",
      index_url: "https://www.sec.gov/Archives/edgar/data/320193/000114036126006577/0001140361-26-006577-index.htm",
      items: ["5.07", "9.01"],
      size: 415164,
      is_xbrl: true,
      is_inline_xbrl: true,
      file_number: "001-36743",
      act: "34",
    });
    // The newest row of the file is a Form 4 accepted 2026-02-26T18:34:19Z, rendered through its XSL folder.
    expect(subs.filings[0]).toMatchObject({ accession_number: "0001059235-26-000004", form: "4", items: [] });
    expect(subs.filings[0]!.url).toBe("https://www.sec.gov/Archives/edgar/data/320193/000105923526000004/xslF345X05/wk-form4_1772148856.xml");
    expect(subs.olderPages).toEqual([{ name: "CIK0000320193-submissions-001.json", filingFrom: "1994-01-26", filingTo: "2015-03-11" }]);
  });

  it("Tesla: the recent block and its older page merge into one history", () => {
    // CIK0001318605.json: 1,002 recent rows naming page -001; the page holds 720 rows filed 2005-02-17..2018-02-12.
    const main = parseSubmissions(readEdgar("submissions/CIK0001318605.json"));
    expect(main.olderPages.map((p) => p.name)).toEqual(["CIK0001318605-submissions-001.json"]);
    const page = parseSubmissionsPage(readEdgar("submissions/CIK0001318605-submissions-001.json"), main.cik);
    expect(page).toHaveLength(720);
    const all = mergeFilings(main.filings, page, page);
    expect(all).toHaveLength(1002 + 720);
    expect(all.at(-1)!.filed_at).toBe("2005-02-17");
    expect(all[0]!.filed_at >= "2026-02-01").toBe(true);
  });

  it("a registrant with no filings at all has an empty history, not an error", () => {
    // CIK0000350001.json: EDGAR's test entity with zero filings (PROVENANCE.md).
    expect(parseSubmissions(readEdgar("submissions/CIK0000350001.json")).filings).toEqual([]);
  });
});

describe("parseSubmissions on bad input", () => {
  const good = {
    cik: "0000000042",
    name: "X",
    filings: { recent: { accessionNumber: ["0000000042-24-000001"], filingDate: ["2024-01-02"], form: ["10-K"] }, files: [] },
  };

  it("accepts the minimal shape, with nulls for the columns EDGAR left out", () => {
    const [item] = parseSubmissions(good).filings;
    expect(item).toMatchObject({ accepted_at: null, report_date: null, url: null, items: [], size: null, is_xbrl: false });
  });

  it("names the CIK or path when the text is truncated, the shape is wrong or columns disagree", () => {
    expect(() => parseSubmissions('{"cik":"42","filings":{"rec', { cik: 42 })).toThrow(/CIK 42: not valid JSON/);
    expect(() => parseSubmissions({ cik: 42 }, { path: "submissions/CIK0000000042.json" })).toThrow(
      /submissions\/CIK0000000042\.json: not a submissions file: filings/,
    );
    const ragged = structuredClone(good);
    (ragged.filings.recent as Record<string, unknown>).form = ["10-K", "10-Q"];
    expect(() => parseSubmissions(ragged)).toThrow(/CIK 42: column form has 2 entries/);
    const badDate = structuredClone(good);
    badDate.filings.recent.filingDate = ["2024-02-30"];
    expect(() => parseSubmissions(badDate)).toThrow(EdgarParseError);
    expect(() => parseSubmissionsPage("<html>Traffic Limit</html>", 42)).toThrow(/CIK 42: not valid JSON/);
  });

  // Defects EDGAR never produces fail the company (errors.ts MalformedInputError), naming where they are.
  it.each([
    ["a repeated key", JSON.stringify(good).replace('"name":"X"', '"name":"X","name":"Y"'), /duplicate key "name" in \(root\)/],
    ["a repeated column", JSON.stringify(good).replace('"form":["10-K"]', '"form":["10-K"],"form":["4"]'), /duplicate key "form" in \(root\)\.filings\.recent/],
    ["nesting deeper than EDGAR's", JSON.stringify({ ...good, addresses: { mailing: { street: [["x"]] } } }), /nesting deeper than EDGAR's files have/],
    ["an impossible filingDate", JSON.stringify(good).replace("2024-01-02", "2024-02-30"), /impossible filingDate "2024-02-30" at row 0/],
    ["an impossible reportDate", JSON.stringify({ ...good, filings: { ...good.filings, recent: { ...good.filings.recent, reportDate: ["2023-13-31"] } } }), /impossible date "2023-13-31" in reportDate at row 0/],
    ["an impossible acceptance time", JSON.stringify({ ...good, filings: { ...good.filings, recent: { ...good.filings.recent, acceptanceDateTime: ["2024-01-02T25:00:00.000Z"] } } }), /impossible acceptanceDateTime/],
    ["an older page with reversed dates", JSON.stringify({ ...good, filings: { ...good.filings, files: [{ name: "CIK0000000042-submissions-001.json", filingFrom: "2020-01-01", filingTo: "2019-01-01" }] } }), /files\[0\]: reversed dates, filingFrom 2020-01-01 after filingTo 2019-01-01/],
  ])("%s is a MalformedInputError naming the file", (_name, text, defect) => {
    const parse = () => parseSubmissions(text, { cik: 42, path: "submissions/CIK0000000042.json" });
    expect(parse).toThrow(MalformedInputError);
    expect(parse).toThrow(/^CIK 42, (accession [\d-]+, )?submissions\/CIK0000000042\.json: /);
    expect(parse).toThrow(defect);
  });

  it("an older page: a repeated column or deeper nesting is a MalformedInputError", () => {
    const page = JSON.stringify(good.filings.recent);
    expect(() => parseSubmissionsPage(page.replace('"form":', '"form":["4"],"form":'), 42)).toThrow(/duplicate key "form" in \(root\)/);
    expect(() => parseSubmissionsPage(page.replace('"form":["10-K"]', '"form":[["10-K"]]'), 42)).toThrow(MalformedInputError);
    expect(parseSubmissionsPage(page, 42)).toHaveLength(1);
  });
});
