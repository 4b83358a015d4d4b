import { describe, expect, it } from "vitest";
import { describeEdgar, listEdgar, readEdgar } from "../../test/_edgar.ts";
import { EARNINGS_READ } from "../derive/concepts.ts";
import { STATEMENT_CONCEPTS } from "../derive/statement-concepts.ts";
import { EdgarParseError, MalformedInputError, NoXbrlHistoryError } from "../errors.ts";
import { COMPANY_FACTS_SELECTION, readCompanyFacts } from "../derive/company-facts.ts";
import { parseCompanyFacts } from "./companyfacts.ts";

const FOLDER = "api/xbrl/companyfacts";

describeEdgar("parseCompanyFacts on every company facts file of the mirror", () => {
  it.each(listEdgar(FOLDER))("%s: keeps exactly the earnings and statement concepts, every fact of them, as filed", (file) => {
    const text = readEdgar(`${FOLDER}/${file}`);
    const raw = JSON.parse(text) as { facts: Record<string, Record<string, { units: Record<string, unknown[]> }>> };
    const facts = parseCompanyFacts(text, COMPANY_FACTS_SELECTION);
    expect(facts.cik).toBe(Number(file.slice(3, 13)));
    const expected = Object.entries(raw.facts)
      .filter(([taxonomy]) => taxonomy === "us-gaap" || taxonomy === "ifrs-full" || taxonomy === "dei")
      .flatMap(([taxonomy, concepts]) => Object.keys(concepts).map((name) => `${taxonomy}:${name}`))
      .filter((key) => EARNINGS_READ.has(key) || STATEMENT_CONCEPTS.has(key))
      .sort();
    expect(Object.keys(facts.concepts).sort()).toEqual(expected);
    for (const key of expected) {
      const [taxonomy, name] = key.split(":") as [string, string];
      const units = raw.facts[taxonomy]![name]!.units;
      for (const unit of Object.keys(units)) expect(facts.concepts[key]![unit]).toHaveLength(units[unit]!.length);
    }
  });

  it.each(listEdgar(FOLDER))("%s: the derivations read every fact but those of periodic amendments that state no balance sheet", (file) => {
    const text = readEdgar(`${FOLDER}/${file}`);
    type Fact = { accn: string; form: string };
    const raw = JSON.parse(text) as { facts: Record<string, Record<string, { units: Record<string, Fact[]> }>> };
    const all = (concept: string) => {
      const [taxonomy, name] = concept.split(":") as [string, string];
      return Object.values(raw.facts[taxonomy]?.[name]?.units ?? {}).flat();
    };
    const balanceSheets = new Set(["us-gaap:Assets", "us-gaap:LiabilitiesAndStockholdersEquity", "ifrs-full:Assets", "ifrs-full:EquityAndLiabilities"].flatMap((c) => all(c).map((f) => f.accn)));
    const statementless = (f: Fact) => /^(10-K|10-Q|20-F|40-F|10-KT|10-QT)\/A$/.test(f.form) && !balanceSheets.has(f.accn);
    const parsed = parseCompanyFacts(text, COMPANY_FACTS_SELECTION);
    const read = readCompanyFacts(text);
    for (const concept of Object.keys(parsed.concepts)) {
      const kept = all(concept).filter((f) => !statementless(f)).length;
      expect(Object.values(read.concepts[concept] ?? {}).flat(), concept).toHaveLength(kept);
    }
  });

  it("Disney's Part III 10-K/A of 2024-01-24: its cover counts and pay-versus-performance net income are left out, nothing else", () => {
    // api/xbrl/companyfacts/CIK0001744489.json: 0001744489-24-000064 has dei:EntityCommonStockSharesOutstanding,
    // dei:EntityPublicFloat and us-gaap:NetIncomeLoss for fiscal 2021–2023, and no balance sheet.
    const text = readEdgar(`${FOLDER}/CIK0001744489.json`);
    const accessions = (facts: ReturnType<typeof readCompanyFacts>) => new Set(Object.values(facts.concepts).flatMap((units) => Object.values(units).flat().map((f) => f.accn)));
    const before = accessions(parseCompanyFacts(text, COMPANY_FACTS_SELECTION));
    const after = accessions(readCompanyFacts(text));
    // Its 10-K/A of 2023-01-24 (0001193125-23-014219), Part III too, has only its cover in company facts.
    expect([...before].filter((a) => !after.has(a)).sort()).toEqual(["0001193125-23-014219", "0001744489-24-000064"]);
    expect(after.has("0001744489-23-000216")).toBe(true);
  });

  it("TSMC (20-F filer): ifrs-full concepts in TWD and USD", () => {
    // api/xbrl/companyfacts/CIK0001046179.json: taxonomies dei and ifrs-full only.
    const facts = readCompanyFacts(readEdgar(`${FOLDER}/CIK0001046179.json`), { cik: "0001046179" });
    expect(facts.entityName).toBe("Taiwan Semiconductor Manufacturing Company Limited");
    expect(Object.keys(facts.concepts["ifrs-full:Revenue"]!).sort()).toEqual(["TWD", "USD"]);
    // The cover page's shares outstanding is the one dei concept read.
    expect(Object.keys(facts.concepts).every((k) => k.startsWith("ifrs-full:") || k === "dei:EntityCommonStockSharesOutstanding")).toBe(true);
    expect(facts.concepts["dei:EntityCommonStockSharesOutstanding"]?.shares?.length).toBeGreaterThan(0);
  });

  it.each(listEdgar(FOLDER))("%s: reads the same as from a whole JSON.parse, however the text is laid out", (file) => {
    // The scan keeps member spans only; re-laying the same JSON out with whitespace must not change a single fact.
    const text = readEdgar(`${FOLDER}/${file}`);
    const pretty = JSON.stringify(JSON.parse(text), null, "\t").replace(/\n/g, "\r\n");
    expect(readCompanyFacts(pretty)).toEqual(readCompanyFacts(text));
  });

  it("truncated JSON is an EdgarParseError naming the CIK, not a crash", () => {
    const text = readEdgar(`${FOLDER}/CIK0000320193.json`);
    const error = catchError(() => readCompanyFacts(text.slice(0, text.length / 2), { cik: "0000320193" }));
    expect(error).toBeInstanceOf(EdgarParseError);
    expect(error.message).toContain("CIK 320193");
    expect(error.message).toContain("not valid JSON");
  });
});

describe("parseCompanyFacts on bad input", () => {
  const minimal = (facts: unknown, cik: unknown = 1234) => ({ cik, entityName: "Example Corp", facts });
  const revenue = { label: "Revenues", units: { USD: [fact()] } };

  it.each([
    ["not JSON (an HTML error page)", "<html>Traffic Limit</html>"],
    ["an array", "[]"],
    ["null", "null"],
    ["a string", '"facts"'],
    ["no facts", JSON.stringify({ cik: 1234, entityName: "Example Corp" })],
    ["facts not an object", JSON.stringify(minimal([1, 2]))],
    ["us-gaap not an object", JSON.stringify(minimal({ "us-gaap": 7 }))],
    ["a concept without units", JSON.stringify(minimal({ "us-gaap": { Revenues: { label: "Revenues" } } }))],
    ["a fact without accn", JSON.stringify(minimal({ "us-gaap": { Revenues: { units: { USD: [{ ...fact(), accn: undefined }] } } } }))],
    ["a fact with a text value", JSON.stringify(minimal({ "us-gaap": { Revenues: { units: { USD: [{ ...fact(), val: "12" }] } } } }))],
  ])("%s → EdgarParseError naming the CIK", (_name, text) => {
    const error = catchError(() => readCompanyFacts(text, { cik: 1234 }));
    expect(error).toBeInstanceOf(EdgarParseError);
    expect(error).not.toBeInstanceOf(NoXbrlHistoryError);
    expect(error.message).toContain("CIK 1234");
  });

  it("names the CIK from the file when the caller gave none, and the concept that is malformed", () => {
    const error = catchError(() => readCompanyFacts(JSON.stringify(minimal({ "us-gaap": { NetIncomeLoss: { units: { USD: [{}] } } } }, "0000001234"))));
    expect(error).toBeInstanceOf(EdgarParseError);
    expect(error.message).toMatch(/^CIK 1234: us-gaap:NetIncomeLoss: /);
  });

  it("a file for another company is refused", () => {
    const error = catchError(() => readCompanyFacts(JSON.stringify(minimal({ "us-gaap": { Revenues: revenue } }, 999)), { cik: 1234 }));
    expect(error).toBeInstanceOf(EdgarParseError);
    expect(error.message).toContain("the file is for CIK 999");
  });

  it("a zero-padded CIK in the file is read as a number", () => {
    expect(readCompanyFacts(JSON.stringify(minimal({ "us-gaap": { Revenues: revenue } }, "0000001234"))).cik).toBe(1234);
  });

  it.each([
    ["only dei facts", { dei: { EntityPublicFloat: { units: { USD: [{ end: "2024-06-30", val: 1, accn: "0000001234-24-000001" }] } } } }],
    ["empty us-gaap", { "us-gaap": {} }],
    ["us-gaap without any income-statement concept", { "us-gaap": { Assets: { units: { USD: [fact()] } } } }],
  ])("%s → NoXbrlHistoryError naming the CIK", (_name, facts) => {
    const error = catchError(() => readCompanyFacts(JSON.stringify(minimal(facts))));
    expect(error).toBeInstanceOf(NoXbrlHistoryError);
    expect(error.message).toContain("CIK 1234");
  });
});

describe("parseCompanyFacts refuses what EDGAR never produces (MalformedInputError naming file and place)", () => {
  const file = (facts: unknown) => JSON.stringify({ cik: 1234, entityName: "Example Corp", facts });
  const revenues = (...facts: object[]) => ({ "us-gaap": { Revenues: { label: "Revenues", units: { USD: facts } } } });
  const spoil = (text: string, from: string, to: string) => {
    expect(text).toContain(from);
    return text.replace(from, to);
  };

  it.each([
    ["a repeated top-level key", spoil(file(revenues(fact())), '"entityName":', '"cik":1234,"entityName":'), /duplicate key "cik" in \(root\)/],
    ["a repeated taxonomy (JSON.parse would keep the empty one)", `{"cik":1234,"entityName":"Example Corp","facts":{"us-gaap":${JSON.stringify(revenues(fact())["us-gaap"])},"us-gaap":{}}}`, /duplicate key "us-gaap" in facts$/],
    ["a repeated concept", spoil(file(revenues(fact())), '"us-gaap":{', '"us-gaap":{"Revenues":{"units":{"USD":[]}},'), /duplicate key "Revenues" in facts\.us-gaap$/],
    ["a repeated unit", spoil(file(revenues(fact())), '"units":{', '"units":{"USD":[],'), /duplicate key "USD" in facts\.us-gaap\.Revenues\.units$/],
    ["a repeated field of a fact", spoil(file(revenues(fact(), fact())), '"val":100', '"val":100,"val":1'), /duplicate key "val" in facts\.us-gaap\.Revenues\.units\.USD\[0\]$/],
    ["an impossible end", file(revenues(fact(), { ...fact(), end: "2023-02-29" })), /facts\.us-gaap\.Revenues\.units\.USD\[1\]: impossible date \(start "2023-01-01", end "2023-02-29"/],
    ["an impossible filing date", file(revenues({ ...fact(), filed: "2024-00-10" })), /USD\[0\]: impossible date .*filed "2024-00-10"/],
    ["a duration ending before it starts", file(revenues({ ...fact(), start: "2024-01-01" })), /USD\[0\]: reversed dates: start after end \(start "2024-01-01", end "2023-12-31"/],
    ["nesting deeper than EDGAR's, where nothing is read", file({ ...revenues(fact()), dei: { X: { units: { USD: [{ val: [[1]] }] } } } }), /nesting deeper than EDGAR's files have, in facts/],
    ["nesting deeper than EDGAR's, in a concept read", file(revenues({ ...fact(), frame: [[{}]] })), /nesting deeper than EDGAR's files have, in facts\.us-gaap\.Revenues/],
  ])("%s", (_name, text, defect) => {
    const error = catchError(() => readCompanyFacts(text, { cik: 1234, path: "api/xbrl/companyfacts/CIK0000001234.json" }));
    expect(error).toBeInstanceOf(MalformedInputError);
    expect(error.message).toMatch(/^CIK 1234, api\/xbrl\/companyfacts\/CIK0000001234\.json: /);
    expect((error as MalformedInputError).defect).toMatch(defect);
  });

  it("EDGAR's own shapes pass: one-day durations, leap days, instants, a colon inside a label", () => {
    const facts = readCompanyFacts(file(revenues({ ...fact(), start: "2024-02-29", end: "2024-02-29" }, { ...fact(), start: undefined })).replace('"label":"Revenues"', '"label":"Revenues: total"'));
    expect(facts.concepts["us-gaap:Revenues"]!.USD).toHaveLength(2);
  });

  it("a repeated key inside a value the builder never reads is not looked for: finding it would cost the full parse the scanner avoids", () => {
    const text = spoil(file({ ...revenues(fact()), dei: { EntityPublicFloat: { units: { USD: [] } } } }), '"units":{"USD":[]}', '"units":{},"units":{"USD":[]}');
    expect(readCompanyFacts(text).concepts["us-gaap:Revenues"]).toBeDefined();
  });
});

function fact() {
  return { start: "2023-01-01", end: "2023-12-31", val: 100, accn: "0000001234-24-000001", fy: 2023, fp: "FY", form: "10-K", filed: "2024-02-01" };
}

function catchError(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error("expected an error, none was thrown");
}
