import { describe, expect, it } from "vitest";
import { InsiderTransaction, OwnershipFiling, TRANSACTION_CODES } from "../../schemas/insider.ts";
import { describeEdgar, listOwnershipXml, readEdgar } from "../../test/_edgar.ts";
import { EdgarParseError, MalformedInputError } from "../errors.ts";
import { parseOwnershipXml } from "./form4.ts";

// Files under Archives/edgar/unknown/ carry no recorded accession (PROVENANCE.md): they get this obvious placeholder.
const PLACEHOLDER = "0000000000-00-000000";
const ACC = "0000000001-26-000001";

/** The dashed accession of a mirror path `Archives/edgar/data/<cik>/<18 digits>/<file>`, else the placeholder. */
function accessionOf(path: string): string {
  const m = /^Archives\/edgar\/data\/\d+\/(\d{10})(\d{2})(\d{6})\//.exec(path);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : PLACEHOLDER;
}

/** Transaction rows of one table, cut out of the raw text by regex: an independent count of what the parser must find. */
function rawRows(xml: string, tag: "nonDerivativeTransaction" | "derivativeTransaction"): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => m[1]!);
}

function parseMirror(path: string) {
  return parseOwnershipXml(readEdgar(path), { accession: accessionOf(path), filedAt: "2026-05-29" });
}

describeEdgar("parseOwnershipXml on every ownership XML of the mirror", () => {
  const files = listOwnershipXml();

  it("finds the ownership files (this suite is not vacuous)", () => {
    expect(files.length).toBeGreaterThanOrEqual(60);
  });

  it.each(files)("%s: one valid record per transaction row, in document order, footnotes resolved", (path) => {
    const xml = readEdgar(path);
    const filing = parseMirror(path);
    OwnershipFiling.parse(filing);
    const raw = [...rawRows(xml, "nonDerivativeTransaction"), ...rawRows(xml, "derivativeTransaction")];
    const count = (re: RegExp) => xml.match(re)?.length ?? 0;
    expect(filing.transactions).toHaveLength(count(/<nonDerivativeTransaction>/g) + count(/<derivativeTransaction>/g));
    expect(filing.holdings_count).toBe(count(/<nonDerivativeHolding>/g) + count(/<derivativeHolding>/g));
    expect(filing.owners).toHaveLength(count(/<reportingOwner>/g));
    filing.transactions.forEach((t, i) => {
      InsiderTransaction.parse(t);
      expect(t.source_accession).toBe(accessionOf(path));
      expect(t.owners).toEqual(filing.owners);
      const text = raw[i]!;
      expect(t.transaction_code).toBe(/<transactionCode>([^<]*)</.exec(text)?.[1] ?? null);
      // Every footnoteId anywhere under the row, once per id, with its text from <footnotes>.
      const ids = new Set([...text.matchAll(/<footnoteId id="([^"]+)"/g)].map((m) => m[1]!));
      expect(new Set(t.footnotes.map((f) => f.id))).toEqual(ids);
      for (const f of t.footnotes) expect(f.text.length).toBeGreaterThan(0);
    });
  });

  it("a price given only by footnote is null and carries that footnote, on every such row of the mirror", () => {
    let seen = 0;
    for (const path of files) {
      const xml = readEdgar(path);
      const raw = [...rawRows(xml, "nonDerivativeTransaction"), ...rawRows(xml, "derivativeTransaction")];
      const filing = parseMirror(path);
      raw.forEach((text, i) => {
        const price = /<transactionPricePerShare>([\s\S]*?)<\/transactionPricePerShare>/.exec(text)?.[1] ?? "";
        const note = /<footnoteId id="([^"]+)"/.exec(price)?.[1];
        if (/<value>\s*[^<\s]/.test(price) || !note) return;
        seen++;
        const t = filing.transactions[i]!;
        expect(t.price_per_share).toBeNull();
        expect(t.value).toBeNull();
        expect(t.footnotes.find((f) => f.id === note)?.fields).toContain("price_per_share");
      });
    }
    expect(seen).toBeGreaterThanOrEqual(3); // Visa 0001403161-26-000058 has three
  });

  it("the 10b5-1 flag follows <aff10b5One> where present and is null where a pre-X0508 schema lacks it", () => {
    const absent: string[] = [];
    for (const path of files) {
      const xml = readEdgar(path);
      const filing = parseMirror(path);
      const raw = /<aff10b5One>\s*([^<]*?)\s*<\/aff10b5One>/.exec(xml)?.[1];
      const expected = raw === undefined ? null : raw === "1" || raw === "true";
      for (const t of filing.transactions) expect(t.is_10b5_1).toBe(expected);
      if (raw === undefined) {
        absent.push(path);
        expect(filing.schema_version! < "X0508").toBe(true);
      }
    }
    expect(absent).toContain("Archives/edgar/data/320193/000032019322000061/wf-form4_165187623819106.xml");
  });

  it("Bank of America / Merrill Lynch joint filing: both owners on every row", () => {
    // Archives/edgar/data/1074769/000007085826000320/0000070858-26-000320.xml (issuer NUVEEN NEW YORK QUALITY MUNI, NAN).
    const filing = parseMirror("Archives/edgar/data/1074769/000007085826000320/0000070858-26-000320.xml");
    expect(filing.transactions.map((t) => [t.transaction_code, t.shares, t.price_per_share])).toEqual([
      ["P", 3000, 11.28],
      ["S", 3000, 11.375],
    ]);
    for (const t of filing.transactions) {
      expect(t.owners.map((o) => [o.cik, o.name, o.is_ten_percent_owner])).toEqual([
        [70858, "BANK OF AMERICA CORP /DE/", true],
        [728612, "MERRILL LYNCH, PIERCE, FENNER & SMITH INC.", true],
      ]);
      expect(t.nature_of_ownership).toBe("See Footnotes");
      expect(t.footnotes.map((f) => [f.id, f.fields])).toEqual([
        ["F1", ["nature_of_ownership"]],
        ["F2", ["nature_of_ownership"]],
        ["F3", ["nature_of_ownership"]],
      ]);
      expect(t.footnotes[0]!.text).toMatch(/^This statement is jointly filed by Bank of America Corporation and Merrill Lynch, Pierce, Fenner & Smith Incorporated \("Merrill Lynch"\)/);
    }
    const other = parseMirror("Archives/edgar/data/1170299/000007085826000322/0000070858-26-000322.xml");
    expect(other.owners.map((o) => o.cik)).toEqual([70858, 728612]);
  });
});

describeEdgar("parseOwnershipXml: rows checked by eye against the XML", () => {
  it("Amazon, Jassy (X0609): weighted-average sales with footnoted prices and an RSU exercise", () => {
    // Archives/edgar/data/1018724/000137454526000008/0001374545-26-000008.xml
    const filing = parseMirror("Archives/edgar/data/1018724/000137454526000008/0001374545-26-000008.xml");
    expect(filing).toMatchObject({ form: "4", schema_version: "X0609", period_of_report: "2026-05-21", holdings_count: 2 });
    expect(filing.issuer).toEqual({ cik: 1018724, name: "AMAZON COM INC", ticker: "AMZN" });
    expect(filing.owners).toEqual([
      { cik: 1374545, name: "Jassy Andrew R", is_director: true, is_officer: true, officer_title: "President and CEO", is_ten_percent_owner: false, is_other: false, other_text: null },
    ]);
    expect(filing.transactions.map((t) => `${t.is_derivative ? "II" : "I"}${t.row}:${t.transaction_code}`)).toEqual([
      "I0:M", "I1:S", "I2:S", "I3:S", "I4:S", "I5:S", "II0:M",
    ]);
    const sale = filing.transactions[1]!;
    expect(sale).toMatchObject({
      source_accession: "0001374545-26-000008",
      filed_at: "2026-05-29",
      security_title: "Common Stock, par value $.01  per share",
      transaction_date: "2026-05-21",
      transaction_description: TRANSACTION_CODES.S,
      shares: 5206,
      price_per_share: 261.9528,
      value: 1363726.2768, // 5206 × 261.9528
      acquired_disposed: "D",
      shares_owned_after: 2220560,
      ownership: "D",
      is_10b5_1: true,
      derivative: null,
      superseded_by: null,
    });
    expect(sale.footnotes.map((f) => [f.id, f.fields])).toEqual([["F1", ["transaction_code"]], ["F2", ["price_per_share"]]]);
    expect(sale.footnotes[0]!.text).toMatch(/^This transaction was effected pursuant to a Rule 10b5-1 trading plan/);
    expect(sale.footnotes[1]!.text).toMatch(/^Represents the weighted average sale price. The highest price .* was \$262.46/);
    const rsu = filing.transactions[6]!;
    expect(rsu).toMatchObject({
      security_title: "Restricted Stock Unit Award",
      shares: 50000,
      price_per_share: 0,
      value: null, // derivative rows never get shares × price (pitfall 32)
      acquired_disposed: "D",
      shares_owned_after: 950000,
      derivative: {
        conversion_or_exercise_price: 0,
        exercise_date: "2023-05-21",
        expiration_date: "2031-02-21",
        underlying_security_title: "Common Stock, par value $.01  per share",
        underlying_security_shares: 50000,
        underlying_security_value: null,
      },
    });
    expect(rsu.footnotes.map((f) => [f.id, f.fields])).toEqual([["F7", ["conversion_or_exercise_price"]], ["F8", ["exercise_date"]]]);
  });

  it("Apple, Adams (X0306, before the 10b5-1 checkbox): is_10b5_1 null, the plan only in a footnote", () => {
    // Archives/edgar/data/320193/000032019322000061/wf-form4_165187623819106.xml
    const filing = parseMirror("Archives/edgar/data/320193/000032019322000061/wf-form4_165187623819106.xml");
    expect(filing.transactions).toHaveLength(7);
    expect(filing.transactions[0]).toMatchObject({
      source_accession: "0000320193-22-000061",
      security_title: "Common Stock",
      transaction_date: "2022-05-04",
      transaction_code: "S",
      shares: 9136,
      price_per_share: 159.94,
      shares_owned_after: 468198,
      is_10b5_1: null,
    });
    expect(filing.transactions[0]!.owners[0]).toMatchObject({ cik: 1462356, name: "Adams Katherine L.", officer_title: "SVP, GC and Secretary", other_text: null });
    expect(filing.transactions[0]!.footnotes.map((f) => [f.id, f.fields, f.text.slice(0, 38)])).toEqual([
      ["F1", ["security_title"], "This transaction was made pursuant to "],
      ["F2", ["price_per_share"], "This transaction was executed in multi"],
    ]);
    expect(filing.transactions[1]).toMatchObject({ shares: 5316, price_per_share: 160.82, shares_owned_after: 462882 });
  });

  it("Visa, Taneja (X0508): prices and derivative dates given only by footnote are null with the footnote", () => {
    // Archives/edgar/data/1403161/000140316126000058/0001403161-26-000058.xml
    const [m, f, award, exercise] = parseMirror("Archives/edgar/data/1403161/000140316126000058/0001403161-26-000058.xml").transactions;
    expect(m).toMatchObject({ transaction_code: "M", shares: 35537, price_per_share: null, value: null, shares_owned_after: 267649, is_10b5_1: false });
    expect(m!.footnotes).toEqual([
      { id: "F1", text: "Each restricted stock unit represents a contingent right to receive one share of Visa Inc. common stock or a cash equivalent of its value.", fields: ["price_per_share"] },
    ]);
    expect(f).toMatchObject({ transaction_code: "F", shares: 17610, price_per_share: 314.08, value: 5530948.8, shares_owned_after: 250039 });
    expect(award).toMatchObject({ is_derivative: true, row: 0, transaction_code: "A", security_title: "Performance Share Award", shares_owned_after: 35537 });
    expect(award!.derivative).toMatchObject({ conversion_or_exercise_price: null, exercise_date: null, expiration_date: null, underlying_security_shares: 35537 });
    expect(award!.footnotes.map((n) => [n.id, n.fields])).toEqual([
      ["F1", ["conversion_or_exercise_price", "price_per_share"]],
      ["F2", ["exercise_date", "expiration_date"]],
    ]);
    expect(exercise).toMatchObject({ is_derivative: true, row: 1, transaction_code: "M", acquired_disposed: "D", shares_owned_after: 0 });
  });

  it("TSMC (X0609): a Form 5 transaction reported early on a Form 4 (timeliness E), after a holding row", () => {
    // Archives/edgar/data/1046179/000104617926000288/0001046179-26-000288.xml
    const filing = parseMirror("Archives/edgar/data/1046179/000104617926000288/0001046179-26-000288.xml");
    expect(filing.transactions[0]).toMatchObject({
      row: 0,
      security_title: "American Depositary Shares (TSM)",
      transaction_code: "P",
      transaction_form_type: "5",
      timeliness: "E",
      equity_swap_involved: false,
      shares: 10,
      price_per_share: 391.8064,
      shares_owned_after: 100,
    });
    expect(filing.owners[0]).toMatchObject({ is_officer: true, officer_title: "VP" });
  });

  it("Snowflake Form 3 (X0206): holdings only, no transaction records", () => {
    // Archives/edgar/unknown/snowflake_form3_2020-09-15.xml — accession unknown, placeholder used.
    const filing = parseMirror("Archives/edgar/unknown/snowflake_form3_2020-09-15.xml");
    expect(filing).toMatchObject({ accession: PLACEHOLDER, form: "3", schema_version: "X0206", period_of_report: "2020-09-15", transactions: [], holdings_count: 6 });
    expect(filing.owners[0]).toMatchObject({ cik: 1246215, name: "GARRETT MARK", is_director: true });
  });

  it("SunPower Form 3 with noSecuritiesOwned: no rows, no holdings, the flag set", () => {
    // Archives/edgar/unknown/sunpower_form3_nosecurities_2021-12-31.xml — accession unknown, placeholder used.
    const filing = parseMirror("Archives/edgar/unknown/sunpower_form3_nosecurities_2021-12-31.xml");
    expect(filing).toMatchObject({ form: "3", no_securities_owned: true, transactions: [], holdings_count: 0, issuer: { cik: 867773, ticker: "SPWR" } });
  });

  it("Snowflake Form 5 (X0306, no XML declaration): a gift with a multi-line footnote kept as one line", () => {
    // Archives/edgar/unknown/snowflake_form5_2022-01-31.xml — accession unknown, placeholder used.
    const filing = parseMirror("Archives/edgar/unknown/snowflake_form5_2022-01-31.xml");
    expect(filing).toMatchObject({ form: "5", holdings_count: 2 });
    expect(filing.transactions).toHaveLength(1);
    const gift = filing.transactions[0]!;
    expect(gift).toMatchObject({
      source_accession: PLACEHOLDER,
      form: "5",
      transaction_form_type: "5",
      transaction_date: "2021-12-23",
      transaction_code: "G",
      transaction_description: "Bona fide gift",
      shares: 61386,
      price_per_share: 0,
      acquired_disposed: "D",
      shares_owned_after: 54666,
      is_10b5_1: null,
    });
    expect(gift.footnotes).toEqual([
      { id: "F1", text: "Represents shares that the Reporting Person transferred for no consideration.", fields: ["transaction_code"] },
      { id: "F2", text: "Includes shares to be issued in connection with the vesting of one or more restricted stock units.", fields: ["shares_owned_after"] },
    ]);
  });
});

/** A small ownership document of our own; every part can be replaced to build one case. */
function ownershipXml(parts: { head?: string; issuer?: string; owners?: string; tableI?: string; tableII?: string; footnotes?: string } = {}): string {
  return [
    `<?xml version="1.0"?>`,
    `<ownershipDocument>`,
    parts.head ?? `<schemaVersion>X0609</schemaVersion><documentType>4</documentType><periodOfReport>2026-05-21</periodOfReport><aff10b5One>0</aff10b5One>`,
    parts.issuer ?? `<issuer><issuerCik>0000000111</issuerCik><issuerName>ISSUER &amp; CO</issuerName><issuerTradingSymbol>ISS</issuerTradingSymbol></issuer>`,
    parts.owners ?? owner("0000000222", "Doe Jane", "<isDirector>1</isDirector>"),
    `<nonDerivativeTable>${parts.tableI ?? ""}</nonDerivativeTable>`,
    `<derivativeTable>${parts.tableII ?? ""}</derivativeTable>`,
    `<footnotes>${parts.footnotes ?? ""}</footnotes>`,
    `<ownerSignature><signatureName>/s/ Jane Doe</signatureName><signatureDate>2026-05-22</signatureDate></ownerSignature>`,
    `</ownershipDocument>`,
  ].join("\n");
}

function owner(cik: string, name: string, relationship: string): string {
  return `<reportingOwner><reportingOwnerId><rptOwnerCik>${cik}</rptOwnerCik><rptOwnerName>${name}</rptOwnerName></reportingOwnerId><reportingOwnerRelationship>${relationship}</reportingOwnerRelationship></reportingOwner>`;
}

function row(tag: "nonDerivativeTransaction" | "derivativeTransaction", inner: { coding?: string | null; price?: string; extra?: string } = {}): string {
  const coding = inner.coding === null ? "" : `<transactionCoding><transactionFormType>4</transactionFormType><transactionCode>${inner.coding ?? "S"}</transactionCode><equitySwapInvolved>0</equitySwapInvolved></transactionCoding>`;
  return `<${tag}><securityTitle><value>Common Stock</value></securityTitle><transactionDate><value>2026-05-21</value></transactionDate>${coding}<transactionAmounts><transactionShares><value>100</value></transactionShares><transactionPricePerShare>${inner.price ?? "<value>10.5</value>"}</transactionPricePerShare><transactionAcquiredDisposedCode><value>D</value></transactionAcquiredDisposedCode></transactionAmounts>${inner.extra ?? ""}<postTransactionAmounts><sharesOwnedFollowingTransaction><value>900</value></sharesOwnedFollowingTransaction></postTransactionAmounts><ownershipNature><directOrIndirectOwnership><value>D</value></directOrIndirectOwnership></ownershipNature></${tag}>`;
}

const parse = (xml: string, filedAt: string | null = "2026-05-23") => parseOwnershipXml(xml, { accession: ACC, filedAt });

describe("parseOwnershipXml on small documents of our own", () => {
  it("single-row tables are read as tables: one record each, one holding counted, one owner, one footnote", () => {
    const filing = parse(
      ownershipXml({
        tableI: row("nonDerivativeTransaction", { price: `<value>10.5</value><footnoteId id="F1"/>` }),
        tableII: `${row("derivativeTransaction", { coding: "M" })}<derivativeHolding><securityTitle><value>Option</value></securityTitle></derivativeHolding>`,
        footnotes: `<footnote id="F1">Weighted average.</footnote>`,
      }),
    );
    expect(filing.transactions.map((t) => [t.is_derivative, t.row, t.transaction_code, t.value])).toEqual([
      [false, 0, "S", 1050],
      [true, 0, "M", null],
    ]);
    expect(filing.holdings_count).toBe(1);
    expect(filing.owners).toEqual([
      { cik: 222, name: "Doe Jane", is_director: true, is_officer: false, officer_title: null, is_ten_percent_owner: false, is_other: false, other_text: null },
    ]);
    expect(filing.transactions[0]!.footnotes).toEqual([{ id: "F1", text: "Weighted average.", fields: ["price_per_share"] }]);
    expect(filing.transactions[0]).toMatchObject({ filed_at: "2026-05-23", issuer_cik: 111, issuer_name: "ISSUER & CO", issuer_ticker: "ISS", derivative: null });
    expect(filing.transactions[1]!.derivative).toEqual({
      conversion_or_exercise_price: null,
      exercise_date: null,
      expiration_date: null,
      underlying_security_title: null,
      underlying_security_shares: null,
      underlying_security_value: null,
    });
  });

  it("a row without <transactionCoding> does not sink the filing: code and meaning null (pitfall 33)", () => {
    const [t] = parse(ownershipXml({ tableI: row("nonDerivativeTransaction", { coding: null }) })).transactions;
    expect(t).toMatchObject({ transaction_code: null, transaction_description: null, transaction_form_type: null, equity_swap_involved: null, shares: 100, shares_owned_after: 900 });
  });

  it("every official code carries its meaning; an unknown code is kept with a null meaning", () => {
    const codes = [...Object.keys(TRANSACTION_CODES), "Q"];
    const filing = parse(ownershipXml({ tableI: codes.map((c) => row("nonDerivativeTransaction", { coding: c })).join("") }));
    expect(Object.keys(TRANSACTION_CODES)).toHaveLength(20);
    expect(filing.transactions.map((t) => [t.transaction_code, t.transaction_description])).toEqual(
      codes.map((c) => [c, (TRANSACTION_CODES as Record<string, string>)[c] ?? null]),
    );
  });

  it("footnotes: cited from many fields once per id, markup and entities kept as text, undefined ids kept", () => {
    const extra = `<transactionTimeliness><value>L</value><footnoteId id="F1"/></transactionTimeliness><deemedExecutionDate><value>2026-05-20</value></deemedExecutionDate>`;
    const [t] = parse(
      ownershipXml({
        tableI: row("nonDerivativeTransaction", { price: `<footnoteId id="F1"/><footnoteId id="F2"/>`, extra }),
        footnotes: `<footnote id="F1">Price range <b>$10.00</b> to $11.00 &amp; more &#169;;
          see &lt;note&gt;.</footnote><footnote id="F2"><![CDATA[Raw <text>]]></footnote>`,
      }).replace("<securityTitle><value>Common Stock</value>", `<securityTitle><value>Common Stock</value><footnoteId id="F9"/>`),
    ).transactions;
    expect(t).toMatchObject({ price_per_share: null, value: null, timeliness: "L", deemed_execution_date: "2026-05-20" });
    expect(t!.footnotes).toEqual([
      { id: "F9", text: "", fields: ["security_title"] },
      { id: "F1", text: "Price range $10.00 to $11.00 & more ©; see <note>.", fields: ["price_per_share", "timeliness"] },
      { id: "F2", text: "Raw <text>", fields: ["price_per_share"] },
    ]);
  });

  it("roles and flags accept 1/0 and true/false; 10b5-1 null when the element is absent", () => {
    const owners = owner("333", "Fund LP", "<isDirector>false</isDirector><isOfficer>0</isOfficer><isTenPercentOwner>true</isTenPercentOwner><isOther>1</isOther><otherText>Member of 13(d) group</otherText>");
    const withFlag = parse(ownershipXml({ owners, head: `<documentType>4</documentType><aff10b5One>true</aff10b5One>`, tableI: row("nonDerivativeTransaction") }));
    expect(withFlag.owners[0]).toMatchObject({ cik: 333, is_director: false, is_officer: false, is_ten_percent_owner: true, is_other: true, other_text: "Member of 13(d) group" });
    expect(withFlag.transactions[0]!.is_10b5_1).toBe(true);
    const without = parse(ownershipXml({ head: `<schemaVersion>X0609</schemaVersion><documentType>4</documentType>`, tableI: row("nonDerivativeTransaction") }));
    expect(without.transactions[0]!.is_10b5_1).toBeNull();
  });

  it("dates drop time-zone suffixes; numbers tolerate thousands separators", () => {
    const xml = ownershipXml({ tableI: row("nonDerivativeTransaction", { price: "<value>1,234.50</value>" }) })
      .replace("<value>2026-05-21</value></transactionDate>", "<value>2026-05-21-05:00</value></transactionDate>")
      .replace("<periodOfReport>2026-05-21</periodOfReport>", "");
    const filing = parse(xml, null);
    expect(filing.transactions[0]).toMatchObject({ transaction_date: "2026-05-21", price_per_share: 1234.5, value: 123450, period_of_report: null, filed_at: null });
  });

  // EDGAR validates ownership XML against its schema (dates are xs:date, single elements occur once): these defects
  // are never filed, so a document carrying one is not EDGAR's, and a lenient reading would publish other data.
  it.each([
    ["an impossible date", (xml: string) => xml.replace("<periodOfReport>2026-05-21</periodOfReport>", "<periodOfReport>2026-02-30</periodOfReport>"), /impossible date "2026-02-30" in <periodOfReport>/],
    ["a date that is no date", (xml: string) => xml.replace("<value>2026-05-21</value></transactionDate>", "<value>May 21</value></transactionDate>"), /impossible date "May 21" in <transactionDate>/],
    ["a repeated single element", (xml: string) => xml.replace("<transactionShares><value>100</value></transactionShares>", "<transactionShares><value>100</value></transactionShares><transactionShares><value>1</value></transactionShares>"), /<transactionShares> repeated in <transactionAmounts>/],
    ["a repeated value", (xml: string) => xml.replace("<value>100</value>", "<value>100</value><value>1</value>"), /<value> repeated in <transactionShares>/],
    ["a repeated issuer", (xml: string) => xml.replace("</issuer>", "</issuer><issuer><issuerCik>0000000999</issuerCik></issuer>"), /<issuer> repeated in <ownershipDocument>/],
    ["nesting deeper than EDGAR's", (xml: string) => xml.replace("<value>100</value>", "<value><a>100</a></value>"), /nested deeper than EDGAR's 6 levels/],
  ])("%s is a MalformedInputError naming the accession, the file and the defect", (_name, spoil, defect) => {
    const xml = spoil(ownershipXml({ tableI: row("nonDerivativeTransaction") }));
    const error = (() => {
      try {
        parseOwnershipXml(xml, { accession: ACC, filedAt: "2026-05-23", path: "Archives/edgar/data/111/000000000126000001/form4.xml" });
      } catch (e) {
        return e as Error;
      }
      throw new Error("parsed without complaint");
    })();
    expect(error).toBeInstanceOf(MalformedInputError);
    expect(error.message).toMatch(/^accession 0000000001-26-000001, Archives\/edgar\/data\/111\/000000000126000001\/form4\.xml: /);
    expect(error.message).toMatch(defect);
  });

  it("EDGAR's deepest elements (six levels) are read", () => {
    const filing = parse(ownershipXml({ tableII: row("derivativeTransaction", { extra: `<underlyingSecurity><underlyingSecurityShares><value>5</value><footnoteId id="F1"/></underlyingSecurityShares></underlyingSecurity>` }), footnotes: `<footnote id="F1">x</footnote>` }));
    expect(filing.transactions[0]!.derivative?.underlying_security_shares).toBe(5);
  });

  it("tolerates a stray & and a missing XML declaration (pitfall 42)", () => {
    const xml = ownershipXml({ tableI: row("nonDerivativeTransaction") })
      .replace(`<?xml version="1.0"?>`, "")
      .replace("ISSUER &amp; CO", "AT&T INC");
    expect(parse(xml).issuer.name).toBe("AT&T INC");
  });

  it("remarks keep their text across child markup (the indentation squeeze stops before them)", () => {
    const xml = ownershipXml().replace("<ownerSignature>", "<remarks>Joint <b>filer</b> <i>remarks</i> &amp; more</remarks>\n<ownerSignature>").replace(/<footnotes><\/footnotes>/, "");
    expect(parse(xml).remarks).toBe("Joint filer remarks & more");
  });

  it("an amendment keeps its form and date of original submission", () => {
    const head = `<documentType>4/A</documentType><periodOfReport>2026-05-21</periodOfReport><dateOfOriginalSubmission>2026-05-22</dateOfOriginalSubmission>`;
    const filing = parse(ownershipXml({ head, tableI: row("nonDerivativeTransaction") }));
    expect(filing).toMatchObject({ form: "4/A", date_of_original_submission: "2026-05-22" });
    expect(filing.transactions[0]).toMatchObject({ form: "4/A", date_of_original_submission: "2026-05-22", superseded_by: null });
  });
});

describe("parseOwnershipXml refuses bad input with an EdgarParseError naming the accession", () => {
  const cases: [string, string][] = [
    ["an HTML page", "<html><body>Too Many Requests</body></html>"],
    ["an empty body", ""],
    ["a truncated document", ownershipXml({ tableI: row("nonDerivativeTransaction") }).slice(0, 700)],
    ["a document without issuerCik", ownershipXml().replace("<issuerCik>0000000111</issuerCik>", "")],
    ["a document without documentType", ownershipXml().replace("<documentType>4</documentType>", "")],
    ["a document without reporting owner", ownershipXml({ owners: "" })],
    ["rows the parser merged (an unclosed row)", ownershipXml({ tableI: row("nonDerivativeTransaction").replace("</nonDerivativeTransaction>", "") + row("nonDerivativeTransaction") })],
  ];
  it.each(cases)("%s", (_name, xml) => {
    expect(() => parse(xml)).toThrow(EdgarParseError);
    expect(() => parse(xml)).toThrow(`accession ${ACC}`);
  });

  describeEdgar("on a real file", () => {
    it("Amazon 0001374545-26-000008 cut in half is refused, not half-read", () => {
      const xml = readEdgar("Archives/edgar/data/1018724/000137454526000008/0001374545-26-000008.xml");
      expect(() => parseOwnershipXml(xml.slice(0, xml.length / 2), { accession: "0001374545-26-000008" })).toThrow(/accession 0001374545-26-000008: truncated/);
    });
  });
});
