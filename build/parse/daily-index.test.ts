import { describe, expect, it } from "vitest";
import { describeEdgar, readEdgar } from "../../test/_edgar.ts";
import { dailyFormIndexPath } from "../sources/paths.ts";
import { parseDailyFormIndex } from "./daily-index.ts";

const PATH = dailyFormIndexPath("2020-03-18");

describeEdgar("daily form index (form.20200318.idx, the real file)", () => {
  const rows = parseDailyFormIndex(readEdgar(PATH), { path: PATH });

  it("reads every row: 4,084 filings under their filer CIKs, 2,040 Form 4 and 34 Form 4/A", () => {
    expect(PATH).toBe("Archives/edgar/daily-index/2020/QTR1/form.20200318.idx");
    expect(rows).toHaveLength(4084);
    expect(rows.filter((r) => r.form === "4")).toHaveLength(2040);
    expect(rows.filter((r) => r.form === "4/A")).toHaveLength(34);
    // The index lists what was disseminated that day: 3,940 rows filed on the 18th, 144 filed earlier (back to 2019-07-18).
    expect(rows.filter((r) => r.filed_at === "2020-03-18")).toHaveLength(3940);
    expect(rows.map((r) => r.filed_at).sort()[0]).toBe("2019-07-18");
  });

  it("splits the columns of rows checked by eye, form types with spaces included", () => {
    // Line 11, the first row; line 275, the first Form 4 (10x Genomics); line 2315, the first 4/A (Arena Pharmaceuticals).
    expect(rows[0]).toEqual({
      form: "1-A",
      company: "DLP Positive Note Fund LLC",
      cik: 1806014,
      filed_at: "2020-03-18",
      accession: "0001140361-20-006155",
    });
    expect(rows[2]).toMatchObject({ form: "1-A POS", company: "Belpointe REIT, Inc.", cik: 1749817 });
    expect(rows.find((r) => r.accession === "0000899243-20-008928")).toMatchObject({ form: "4", company: "10x Genomics, Inc.", cik: 1770787 });
    expect(rows.find((r) => r.form === "4/A")).toMatchObject({ company: "ARENA PHARMACEUTICALS INC", cik: 1080709, accession: "0001209191-20-019882" });
    expect(rows.at(-1)).toMatchObject({ form: "X-17A-5/A", company: "USA FINANCIAL SECURITIES CORPORATION", cik: 1105608 });
  });
});

describe("daily form index, malformed", () => {
  it("names the file when the text is not an index, and the line when a row does not fit", () => {
    expect(() => parseDailyFormIndex("<html>Not Found</html>", { path: PATH })).toThrow(/form\.20200318\.idx: not a daily form index/);
    const text = "Form Type   Company Name   CIK   Date Filed  File Name\n" + "-".repeat(40) + "\n4           Someone    12   2020031\n";
    expect(() => parseDailyFormIndex(text, { path: PATH })).toThrow(/form\.20200318\.idx: line 3 does not fit/);
  });
});
