import { describe, expect, it } from "vitest";
import { MalformedInputError } from "../errors.ts";
import { decodeText } from "./decode.ts";

describe("decodeText: EDGAR's bytes as text", () => {
  const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));

  it("ASCII and UTF-8 (accents, CJK, emoji, a BOM) read as they are", () => {
    for (const text of ['{"name":"Apple Inc."}', '{"name":"Nestlé S.A. — 台積電 🚀"}', "\uFEFF{}"]) expect(decodeText(Buffer.from(text), "submissions/CIK0000000001.json")).toBe(text);
  });

  it.each([
    ["a stray byte", bytes('{"name":"A', [0xff], '"}'), 10, "0xff"],
    ["a lone continuation byte", bytes('{"a":"', [0x80], '"}'), 6, "0x80"],
    ["a truncated sequence", bytes('{"a":"', [0xe2, 0x82], '"}'), 6, "0xe2"],
    ["an overlong encoding of '/'", bytes('{"a":"', [0xc0, 0xaf], '"}'), 6, "0xc0"],
    ["an encoded surrogate", bytes('{"a":"', [0xed, 0xa0, 0x80], '"}'), 6, "0xed"],
    ["latin1 text in a JSON file", Buffer.from('{"name":"Société"}', "latin1"), 13, "0xe9"],
  ])("%s in JSON or ownership XML is a MalformedInputError naming the file, the byte and its offset", (_name, data, offset, byte) => {
    for (const path of ["api/xbrl/companyfacts/CIK0000000001.json", "Archives/edgar/data/1/000000000126000001/form4.xml"]) {
      const read = () => decodeText(data, path);
      expect(read).toThrow(MalformedInputError);
      expect(read).toThrow(`${path}: not valid UTF-8: byte ${byte} at offset ${offset}`);
    }
  });

  it("ownership XML that declares a single-byte charset is read in it", () => {
    const xml = Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?><ownershipDocument><rptOwnerName>Müller</rptOwnerName></ownershipDocument>`, "latin1");
    expect(decodeText(xml, "Archives/edgar/data/1/000000000126000001/form4.xml")).toContain("<rptOwnerName>Müller</rptOwnerName>");
    // Declaring UTF-8 does not excuse bytes that are not.
    const lying = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><a>Müller</a>`, "latin1");
    expect(() => decodeText(lying, "Archives/edgar/data/1/000000000126000001/form4.xml")).toThrow(MalformedInputError);
  });

  it("other files (a full submission's text, indexes) are read leniently: their legacy bytes sit in parts never read", () => {
    expect(decodeText(bytes("<SEC-DOCUMENT>", [0x93], "quoted", [0x94]), "Archives/edgar/data/1/0000000001-26-000001.txt")).toBe("<SEC-DOCUMENT>\uFFFDquoted\uFFFD");
  });
});
