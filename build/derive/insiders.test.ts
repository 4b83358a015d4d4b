import { describe, expect, it } from "vitest";
import { InsiderTransaction, OwnershipFiling } from "../../schemas/insider.ts";
import { describeEdgar, listOwnershipXml, readEdgar } from "../../test/_edgar.ts";
import { parseOwnershipXml } from "../parse/form4.ts";
import { applyAmendments } from "./insiders.ts";

const ISSUER = 111;

interface FilingSpec {
  accession: string;
  form?: string;
  filedAt: string;
  original?: string;
  issuer?: number;
  owners?: number[];
  period?: string;
  /** Transaction dates, one row each. */
  rows?: string[];
  holdings?: number;
}

/** A parsed ownership filing as the parser returns it, validated by the schema so the fixture cannot drift. */
function filing(spec: FilingSpec): OwnershipFiling {
  const form = spec.form ?? "4";
  const owners = (spec.owners ?? [222]).map((cik) => ({
    cik, name: `Owner ${cik}`, is_director: true, is_officer: false, officer_title: null, is_ten_percent_owner: false, is_other: false, other_text: null,
  }));
  const issuer = { cik: spec.issuer ?? ISSUER, name: "Issuer Inc", ticker: "ISS" };
  const period = spec.period ?? spec.rows?.[0] ?? spec.filedAt;
  const transactions = (spec.rows ?? []).map((date, row) =>
    InsiderTransaction.parse({
      source_accession: spec.accession, form, filed_at: spec.filedAt, period_of_report: period,
      issuer_cik: issuer.cik, issuer_name: issuer.name, issuer_ticker: issuer.ticker, row, is_derivative: false,
      security_title: "Common Stock", transaction_date: date, deemed_execution_date: null, transaction_code: "S",
      transaction_description: "sale", transaction_form_type: "4", equity_swap_involved: false, timeliness: null,
      shares: 100, price_per_share: 10, value: 1000, acquired_disposed: "D", shares_owned_after: 0, value_owned_after: null,
      ownership: "D", nature_of_ownership: null, derivative: null, owners, footnotes: [], is_10b5_1: null,
      date_of_original_submission: spec.original ?? null, superseded_by: null,
    }),
  );
  return OwnershipFiling.parse({
    accession: spec.accession, form, filed_at: spec.filedAt, schema_version: "X0609", period_of_report: period,
    date_of_original_submission: spec.original ?? null, not_subject_to_section16: false, no_securities_owned: false,
    issuer, owners, transactions, holdings_count: spec.holdings ?? 0, remarks: null,
  });
}

/** accession → superseded_by, one entry per row (rows of one filing always share it). */
function supersession(rows: InsiderTransaction[]): Record<string, string | null> {
  return Object.fromEntries(rows.map((r) => [`${r.source_accession}#${r.row}`, r.superseded_by]));
}

describe("applyAmendments", () => {
  it("a 4/A supersedes the original of the same owner filed on its dateOfOriginalSubmission, not another owner's", () => {
    const mine = filing({ accession: "0000000001-26-000001", filedAt: "2026-03-02", owners: [222], rows: ["2026-02-27", "2026-02-27"] });
    const theirs = filing({ accession: "0000000001-26-000002", filedAt: "2026-03-02", owners: [333], rows: ["2026-02-27"] });
    const amendment = filing({ accession: "0000000001-26-000009", form: "4/A", filedAt: "2026-03-10", original: "2026-03-02", owners: [222], rows: ["2026-02-27"] });
    expect(supersession(applyAmendments([mine, theirs, amendment], ISSUER))).toEqual({
      "0000000001-26-000001#0": "0000000001-26-000009",
      "0000000001-26-000001#1": "0000000001-26-000009",
      "0000000001-26-000002#0": null,
      "0000000001-26-000009#0": null,
    });
  });

  it("a joint amendment matches on any common owner CIK", () => {
    const original = filing({ accession: "0000000001-26-000001", filedAt: "2026-03-02", owners: [70858, 728612], rows: ["2026-02-27"] });
    const amendment = filing({ accession: "0000000001-26-000009", form: "4/A", filedAt: "2026-03-10", original: "2026-03-02", owners: [728612], rows: ["2026-02-27"] });
    expect(applyAmendments([original, amendment], ISSUER).find((r) => r.source_accession === original.accession)?.superseded_by).toBe(amendment.accession);
  });

  it("a holdings-only 4/A does not wipe the original's transactions (pitfall 37)", () => {
    const original = filing({ accession: "0000000001-26-000001", filedAt: "2026-03-02", rows: ["2026-02-27"] });
    const holdingsOnly = filing({ accession: "0000000001-26-000009", form: "4/A", filedAt: "2026-03-10", original: "2026-03-02", holdings: 2 });
    const rows = applyAmendments([original, holdingsOnly], ISSUER);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.superseded_by).toBeNull();
  });

  it("a 4/A does not supersede a Form 3 the same owner filed that day, nor anything filed after it", () => {
    const form3 = filing({ accession: "0000000001-26-000001", form: "3", filedAt: "2026-03-02", rows: ["2026-02-27"] });
    const amendment = filing({ accession: "0000000001-26-000009", form: "4/A", filedAt: "2026-03-02", original: "2026-03-02", rows: ["2026-02-27"] });
    const later = filing({ accession: "0000000001-26-000010", filedAt: "2026-03-02", rows: ["2026-02-27"] });
    expect(applyAmendments([form3, amendment, later], ISSUER).every((r) => r.superseded_by === null)).toBe(true);
  });

  it("chained amendments: every amended row points at the latest amendment", () => {
    const original = filing({ accession: "0000000001-26-000001", filedAt: "2026-03-02", rows: ["2026-02-27"] });
    const first = filing({ accession: "0000000001-26-000005", form: "4/A", filedAt: "2026-03-05", original: "2026-03-02", rows: ["2026-02-27"] });
    // The second cites the first amendment's date; a third cites the original's date again.
    const second = filing({ accession: "0000000001-26-000007", form: "4/A", filedAt: "2026-03-07", original: "2026-03-05", rows: ["2026-02-27"] });
    expect(supersession(applyAmendments([second, original, first], ISSUER))).toEqual({
      "0000000001-26-000001#0": "0000000001-26-000007",
      "0000000001-26-000005#0": "0000000001-26-000007",
      "0000000001-26-000007#0": null,
    });
    const third = filing({ accession: "0000000001-26-000008", form: "4/A", filedAt: "2026-03-08", original: "2026-03-02", rows: ["2026-02-27"] });
    expect(supersession(applyAmendments([original, first, third], ISSUER))).toEqual({
      "0000000001-26-000001#0": "0000000001-26-000008",
      "0000000001-26-000005#0": "0000000001-26-000008",
      "0000000001-26-000008#0": null,
    });
  });

  it("of two same-day filings by one owner, the amendment replaces the one with its period of report", () => {
    const a = filing({ accession: "0000000001-26-000001", filedAt: "2026-03-02", period: "2026-02-26", rows: ["2026-02-26"] });
    const b = filing({ accession: "0000000001-26-000002", filedAt: "2026-03-02", period: "2026-02-27", rows: ["2026-02-27"] });
    const amendment = filing({ accession: "0000000001-26-000009", form: "4/A", filedAt: "2026-03-10", original: "2026-03-02", period: "2026-02-27", rows: ["2026-02-27"] });
    const rows = supersession(applyAmendments([a, b, amendment], ISSUER));
    expect(rows["0000000001-26-000001#0"]).toBeNull();
    expect(rows["0000000001-26-000002#0"]).toBe("0000000001-26-000009");
  });

  it("keeps only the requested issuer's filings, once per accession (pitfall 29)", () => {
    const own = filing({ accession: "0000000001-26-000001", filedAt: "2026-03-02", rows: ["2026-02-27"] });
    const other = filing({ accession: "0000000001-26-000002", filedAt: "2026-03-02", issuer: 999, owners: [111], rows: ["2026-02-27"] });
    const rows = applyAmendments([own, other, own], ISSUER);
    expect(rows.map((r) => [r.source_accession, r.issuer_cik])).toEqual([["0000000001-26-000001", ISSUER]]);
  });

  it("keeps a predecessor's filings as the issuer's own (build/predecessors.ts), and still no other issuer's", () => {
    const own = filing({ accession: "0000000001-26-000001", filedAt: "2026-08-03", rows: ["2026-07-30"] });
    const earlier = filing({ accession: "0000000001-26-000002", filedAt: "2026-03-02", issuer: 110, rows: ["2026-02-27"] });
    const other = filing({ accession: "0000000001-26-000003", filedAt: "2026-03-02", issuer: 999, owners: [111], rows: ["2026-02-27"] });
    const rows = applyAmendments([own, earlier, other], ISSUER, [110]);
    expect(rows.map((r) => [r.source_accession, r.issuer_cik])).toEqual([
      ["0000000001-26-000001", ISSUER],
      ["0000000001-26-000002", 110],
    ]);
    expect(applyAmendments([own, earlier, other], ISSUER).map((r) => r.source_accession)).toEqual(["0000000001-26-000001"]);
  });

  it("sorts newest first: transaction date, then filed date, accession, table, row", () => {
    const old = filing({ accession: "0000000001-26-000003", filedAt: "2026-01-05", rows: ["2026-01-02", "2026-01-02"] });
    const recent = filing({ accession: "0000000001-26-000001", filedAt: "2026-03-02", rows: ["2026-02-27", "2026-03-01"] });
    const sameDay = filing({ accession: "0000000001-26-000002", filedAt: "2026-03-04", rows: ["2026-03-01"] });
    expect(applyAmendments([old, recent, sameDay], ISSUER).map((r) => `${r.source_accession}#${r.row}`)).toEqual([
      "0000000001-26-000002#0",
      "0000000001-26-000001#1",
      "0000000001-26-000001#0",
      "0000000001-26-000003#0",
      "0000000001-26-000003#1",
    ]);
  });

  it("does not change the filings it is given", () => {
    const original = filing({ accession: "0000000001-26-000001", filedAt: "2026-03-02", rows: ["2026-02-27"] });
    const amendment = filing({ accession: "0000000001-26-000009", form: "4/A", filedAt: "2026-03-10", original: "2026-03-02", rows: ["2026-02-27"] });
    const before = structuredClone(original);
    applyAmendments([original, amendment], ISSUER);
    expect(original).toEqual(before);
  });
});

describeEdgar("applyAmendments on the real Form 4s of the mirror", () => {
  it("Amazon (CIK 1018724): every row of its three Form 4s, valid, newest first, none superseded", () => {
    const filings = listOwnershipXml()
      .filter((p) => p.startsWith("Archives/edgar/data/1018724/"))
      .map((p) => parseOwnershipXml(readEdgar(p), { accession: p.split("/")[4]!.replace(/^(\d{10})(\d{2})(\d{6})$/, "$1-$2-$3"), filedAt: "2026-05-29" }));
    expect(filings).toHaveLength(3);
    // The Apple filing in the same list names another issuer: it must be dropped (pitfall 29).
    const apple = parseOwnershipXml(readEdgar("Archives/edgar/data/320193/000114036126017175/form4.xml"), { accession: "0001140361-26-017175" });
    const rows = applyAmendments([...filings, apple], 1018724);
    expect(rows).toHaveLength(7 + 10 + 13);
    for (const r of rows) InsiderTransaction.parse(r);
    expect(rows.every((r) => r.issuer_cik === 1018724 && r.superseded_by === null)).toBe(true);
    const dates = rows.map((r) => r.transaction_date ?? "");
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it("a real Form 4 amended: Jassy's filing re-declared as its own 4/A (the mirror holds no real 4/A) supersedes every original row, and only those", () => {
    const path = "Archives/edgar/data/1018724/000137454526000008/0001374545-26-000008.xml";
    const xml = readEdgar(path);
    const original = parseOwnershipXml(xml, { accession: "0001374545-26-000008", filedAt: "2026-05-22" });
    // What EDGAR's X0609 schema has a 4/A add: its form, and the date of the original submission after the period.
    const amendedXml = xml
      .replace("<documentType>4</documentType>", "<documentType>4/A</documentType>")
      .replace(/(<periodOfReport>[^<]*<\/periodOfReport>)/, "$1\n    <dateOfOriginalSubmission>2026-05-22</dateOfOriginalSubmission>");
    const amendment = parseOwnershipXml(amendedXml, { accession: "0001374545-26-000011", filedAt: "2026-06-01" });
    expect(amendment).toMatchObject({ form: "4/A", date_of_original_submission: "2026-05-22" });
    const other = parseOwnershipXml(readEdgar("Archives/edgar/data/1018724/000155797926000006/0001557979-26-000006.xml"), { accession: "0001557979-26-000006", filedAt: "2026-05-22" });
    const rows = applyAmendments([original, amendment, other], 1018724);
    const of = (accession: string) => rows.filter((r) => r.source_accession === accession);
    expect(of(original.accession).length).toBe(original.transactions.length);
    expect(of(original.accession).every((r) => r.superseded_by === amendment.accession)).toBe(true);
    expect(of(amendment.accession).every((r) => r.superseded_by === null && r.form === "4/A")).toBe(true);
    // Another owner's filing of that day is untouched.
    expect(of(other.accession).every((r) => r.superseded_by === null)).toBe(true);
  });
});
