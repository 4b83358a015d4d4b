import { describe, expect, it } from "vitest";
import { XbrlDocumentError } from "../errors.ts";
import { parseInlineXbrl } from "./inline-xbrl.ts";
import { readNumber } from "./ixt-formats.ts";
import { parseXbrlInstance } from "./xbrl-instance.ts";

const ROOT =
  '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL" xmlns:xbrli="http://www.xbrl.org/2003/instance" ' +
  'xmlns:xbrldi="http://xbrl.org/2006/xbrldi" xmlns:iso4217="http://www.xbrl.org/2003/iso4217" xmlns:us-gaap="http://fasb.org/us-gaap/2024" ' +
  'xmlns:usgaap="http://fasb.org/us-gaap/2024" xmlns:srt="http://fasb.org/srt/2024" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
  'xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12" xmlns:link="http://www.xbrl.org/2003/linkbase" xmlns:xlink="http://www.w3.org/1999/xlink">';
const RESOURCES =
  '<ix:resources><xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>' +
  '<xbrli:context id="fy"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000320193</xbrli:identifier></xbrli:entity>' +
  "<xbrli:period><xbrli:startDate>2023-10-01</xbrli:startDate><xbrli:endDate>2024-09-28</xbrli:endDate></xbrli:period></xbrli:context>" +
  '<xbrli:context id="china"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000320193</xbrli:identifier>' +
  '<xbrli:segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">aapl:GreaterChinaSegmentMember</xbrldi:explicitMember></xbrli:segment></xbrli:entity>' +
  "<xbrli:period><xbrli:startDate>2023-10-01</xbrli:startDate><xbrli:endDate>2024-09-28</xbrli:endDate></xbrli:period></xbrli:context></ix:resources>";

/** An inline document around `body`, its header holding `hidden` facts, as EDGAR's (Workiva's) are laid out. */
function inline(body: string, hidden = ""): string {
  return (
    `<?xml version='1.0' encoding='ASCII'?>\n<!--XBRL Document Created with the Workiva Platform-->\n${ROOT}<head><title>t</title></head><body>` +
    `<div style="display:none"><ix:header><ix:hidden>${hidden}</ix:hidden>` +
    `<ix:references><link:schemaRef xlink:type="simple" xlink:href="aapl-20240928.xsd"/></ix:references>${RESOURCES}</ix:header></div>` +
    `<div>${body}</div></body></html>\n`
  );
}

const fact = (attrs: string, text: string) => `<ix:nonFraction unitRef="usd" contextRef="china" decimals="-6" name="us-gaap:OperatingIncomeLoss" ${attrs}>${text}</ix:nonFraction>`;
const values = (text: string) => parseInlineXbrl(text, { accession: "0000320193-24-000123" }).facts.map((f) => f.value);

describe("inline XBRL: what a displayed number is", () => {
  it("reads scale, sign and format exactly (no float products: 383,285 at scale 6 is 383285000000)", () => {
    expect(values(inline(fact('scale="6" format="ixt:num-dot-decimal"', "383,285")))).toEqual([383285000000]);
    expect(values(inline(fact('scale="6" sign="-" format="ixt:num-dot-decimal"', "(2,439)")))).toEqual([-2439000000]);
    expect(values(inline(fact('scale="3" format="ixt:num-comma-decimal"', "1.234,5")))).toEqual([1234500]);
    expect(values(inline(fact('scale="-2" format="ixt:num-dot-decimal"', "50")))).toEqual([0.5]);
    expect(values(inline(fact('scale="6" format="ixt:fixed-zero"', "—")))).toEqual([0]);
    expect(values(inline(fact('scale="6" format="ixt-sec:numwordsen"', "no")))).toEqual([0]);
    expect(values(inline(fact('scale="0" format="ixt:num-dot-decimal"', "1,234&#160;567.25")))).toEqual([1234567.25]);
  });

  it("reads facts hidden in ix:hidden, nested ones (both facts: the parent shows the child's number), nil ones, and skips text blocks and their continuations", () => {
    const nested = `<ix:nonFraction unitRef="usd" contextRef="fy" decimals="-6" name="us-gaap:Revenues" scale="6" format="ixt:num-dot-decimal">${fact('scale="6" format="ixt:num-dot-decimal"', "27,082")}</ix:nonFraction>`;
    const hidden = fact('scale="6"', "1") + '<ix:nonNumeric contextRef="fy" name="dei:AmendmentFlag">false</ix:nonNumeric>';
    const textBlock =
      '<ix:nonNumeric contextRef="fy" name="us-gaap:SegmentReportingDisclosureTextBlock" continuedAt="c1"><p>Greater China <b>27,082</b></p></ix:nonNumeric>' +
      '<ix:continuation id="c1"><p>more <ix:exclude>page 7</ix:exclude></p></ix:continuation>';
    const nil = '<ix:nonFraction unitRef="usd" contextRef="fy" name="us-gaap:GrossProfit" xsi:nil="true"/>';
    const doc = parseInlineXbrl(inline(`<p>${nested}</p>${textBlock}${nil}`, hidden), {});
    expect(doc.facts.map((f) => [f.concept, f.context, f.value])).toEqual([
      ["us-gaap:OperatingIncomeLoss", "china", 1000000],
      ["us-gaap:OperatingIncomeLoss", "china", 27082000000],
      ["us-gaap:Revenues", "fy", 27082000000],
      ["us-gaap:GrossProfit", "fy", null],
    ]);
    expect(doc.contexts.get("china")).toEqual({ start: "2023-10-01", end: "2024-09-28", dims: { "us-gaap:StatementBusinessSegmentsAxis": "aapl:GreaterChinaSegmentMember" }, typed: false });
    expect(doc.units.get("usd")).toBe("USD");
    expect(doc.schema).toBe("aapl-20240928.xsd");
  });

  it("knows a concept by its taxonomy, whatever prefix the filer declared for it", () => {
    const doc = parseInlineXbrl(inline(fact('name="usgaap:Revenues" scale="0"', "5").replace('name="us-gaap:OperatingIncomeLoss" ', "")), {});
    expect(doc.facts[0]!.concept).toBe("us-gaap:Revenues");
  });

  it("names a number it cannot read (an unknown format) instead of guessing, and keeps the others", () => {
    const doc = parseInlineXbrl(inline(fact('scale="6" format="ixt:date-day-month-year"', "12 March 2024") + fact('scale="6"', "7")), {});
    expect(doc.facts.map((f) => f.value)).toEqual([7000000]);
    expect(doc.unreadable).toEqual([{ concept: "us-gaap:OperatingIncomeLoss", context: "china", reason: "the format ixt:date-day-month-year is not one we read" }]);
  });
});

describe("inline XBRL: a document that is not one is a named error, never a crash", () => {
  const cases: [string, string, RegExp][] = [
    ["truncated", inline(fact('scale="6"', "1")).slice(0, -200), /truncated: the document does not end with <\/html>/],
    ["an HTML page", "<!DOCTYPE html><html><body>Request Rate Threshold Exceeded</body></html>", /declares no inline XBRL namespace prefix|not an inline XBRL document/],
    ["empty", "", /not an inline XBRL document/],
    ["no resources", inline(fact('scale="6"', "1")).replace(RESOURCES, ""), /0 <ix:resources> elements/],
    ["a fact naming a context it lacks", inline(fact('scale="6"', "1").replace('contextRef="china"', 'contextRef="c-99"')), /names context "c-99", which the document does not define/],
    ["a fact never closed", inline(`<ix:nonFraction unitRef="usd" contextRef="fy" name="us-gaap:Revenues">1`), /never closed/],
    ["a context without a period", inline("").replace("<xbrli:period><xbrli:startDate>2023-10-01</xbrli:startDate><xbrli:endDate>2024-09-28</xbrli:endDate></xbrli:period></xbrli:context></ix:resources>", "</xbrli:context></ix:resources>"), /context china has no period end/],
    ["an impossible date", inline("").replace("2024-09-28</xbrli:endDate></xbrli:period></xbrli:context><xbrli:context", "2024-02-30</xbrli:endDate></xbrli:period></xbrli:context><xbrli:context"), /impossible date "2024-02-30"/],
  ];
  for (const [what, text, message] of cases) {
    it(what, () => {
      const read = () => parseInlineXbrl(text, { accession: "0000320193-24-000123", path: "Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm" });
      expect(read).toThrow(XbrlDocumentError);
      expect(read).toThrow(message);
      expect(read).toThrow(/^accession 0000320193-24-000123, Archives\/edgar\/data\/320193\/000032019324000123\/aapl-20240928\.htm: /);
    });
  }
});

describe("plain XBRL instances", () => {
  const instance = (facts: string, tail = "</xbrl>\n") =>
    '<?xml version="1.0" encoding="utf-8"?>\n<xbrl xmlns="http://www.xbrl.org/2003/instance" xmlns:us-gaap="http://fasb.org/us-gaap/2023" xmlns:xbrldi="http://xbrl.org/2006/xbrldi" ' +
    'xmlns:iso4217="http://www.xbrl.org/2003/iso4217" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:link="http://www.xbrl.org/2003/linkbase" xmlns:xlink="http://www.w3.org/1999/xlink">' +
    '<link:schemaRef xlink:href="aapl-20230930.xsd" xlink:type="simple"/><context id="c-1"><entity><identifier scheme="http://www.sec.gov/CIK">0000320193</identifier>' +
    '<segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">aapl:AmericasSegmentMember</xbrldi:explicitMember></segment></entity>' +
    '<period><startDate>2022-09-25</startDate><endDate>2023-09-30</endDate></period></context><unit id="usd"><measure>iso4217:USD</measure></unit>' +
    `${facts}${tail}`;

  it("reads facts, contexts with their members and units (the default namespace is the instance's)", () => {
    const doc = parseXbrlInstance(instance('<us-gaap:Revenues contextRef="c-1" unitRef="usd" decimals="-6">162560000000</us-gaap:Revenues><us-gaap:GrossProfit contextRef="c-1" unitRef="usd" xsi:nil="true"/>'), {});
    expect(doc.facts).toEqual([
      { concept: "us-gaap:Revenues", context: "c-1", unit: "usd", value: 162560000000, decimals: -6 },
      { concept: "us-gaap:GrossProfit", context: "c-1", unit: "usd", value: null, decimals: null },
    ]);
    expect(doc.contexts.get("c-1")!.dims).toEqual({ "us-gaap:StatementBusinessSegmentsAxis": "aapl:AmericasSegmentMember" });
    expect(doc.schema).toBe("aapl-20230930.xsd");
  });

  it("is a named error when truncated, not an instance, or naming a unit it lacks", () => {
    expect(() => parseXbrlInstance(instance("", ""), { accession: "0000320193-23-000106" })).toThrow(/truncated: the instance does not end with <\/xbrl>/);
    expect(() => parseXbrlInstance('<?xml version="1.0"?><ownershipDocument></ownershipDocument>', {})).toThrow(/its root element is <ownershipDocument>/);
    expect(() => parseXbrlInstance(instance('<us-gaap:Revenues contextRef="c-1" unitRef="eur">1</us-gaap:Revenues>'), {})).toThrow(/names unit "eur"/);
    expect(parseXbrlInstance(instance('<us-gaap:Revenues contextRef="c-1" unitRef="usd">1e9</us-gaap:Revenues>'), {}).unreadable).toEqual([
      { concept: "us-gaap:Revenues", context: "c-1", reason: 'not a decimal number: "1e9"' },
    ]);
  });
});

describe("ixt formats", () => {
  it("keep every digit of large figures and refuse what they cannot read", () => {
    expect(readNumber("9,007,199,254,740,993", "ixt:num-dot-decimal", 0, false)).toEqual({ value: 9007199254740992 });
    expect(readNumber("1 234,50", "ixt:numspacecomma", 0, true)).toEqual({ value: -1234.5 });
    expect(readNumber("5 dollars 25 cents", "ixt:num-unit-decimal", 0, false)).toEqual({ value: 5.25 });
    expect(readNumber("—", "ixt:num-dot-decimal", 6, false)).toEqual({ reason: '"—" is not a number in ixt:num-dot-decimal' });
    expect(readNumber("12", "ixt:num-dot-decimal", 400, false)).toEqual({ reason: "scale 400 is not a whole power of ten we read" });
  });
});
