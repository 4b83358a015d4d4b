import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isObjectAt, JsonScanError, parseValue, scanDocument, scanObject } from "./json-members.ts";

// Any JSON object, members of every kind, strings with quotes, backslashes and non-ASCII text.
const anyObject = fc.dictionary(fc.string({ unit: "binary" }), fc.jsonValue(), { maxKeys: 8 });
const layouts = [undefined, 0, 1, 2, "\t", " \r\n "] as const;

/** Every member of a document as [key, parsed value], read by the scanner. */
function members(text: string): [string, unknown][] {
  const out: [string, unknown][] = [];
  scanDocument(text, (key, start) => {
    const { value, end } = parseValue(text, start);
    out.push([key, value]);
    return end;
  });
  return out;
}

/** The keys of a document, every value skipped by the scanner. */
function keys(text: string): string[] {
  const out: string[] = [];
  scanDocument(text, (key) => void out.push(key));
  return out;
}

describe("scanDocument", () => {
  it("visits every member with the value JSON.parse gives, in any layout, whether read or skipped", () => {
    fc.assert(
      fc.property(anyObject, fc.constantFrom(...layouts), (object, space) => {
        const text = ` ${JSON.stringify(object, null, space as string | number | undefined)}\n`;
        expect(members(text)).toEqual(Object.entries(JSON.parse(text)));
        expect(keys(text)).toEqual(Object.keys(object));
      }),
      { numRuns: 2000 },
    );
  });

  it("walks into a nested object from its member's start, skipping the rest", () => {
    const text = '{"cik":320193,"facts":{"dei":{"a":[1,{"}":"]"}]},"us-gaap":{"Revenues":{"units":{}}}},"tail":"{"}';
    const seen: string[] = [];
    scanDocument(text, (key, start) => {
      if (key !== "facts") return;
      expect(isObjectAt(text, start)).toBe(true);
      return scanObject(text, start, (taxonomy) => void seen.push(taxonomy));
    });
    expect(seen).toEqual(["dei", "us-gaap"]);
  });

  it("keeps escaped quotes and backslashes inside strings, and decodes escaped keys", () => {
    const text = String.raw`{"a\"b":"x\\","c":"\"}{","d\u0041":[ "\\\"" ]}`;
    expect(members(text)).toEqual([
      ['a"b', "x\\"],
      ["c", '"}{'],
      ["dA", ['\\"']],
    ]);
  });

  it("skips long values whole: a string of escapes, a long array, many short strings", () => {
    const inner = { s: '\\"'.repeat(200_000), n: Array.from({ length: 200_000 }, (_, i) => i), t: Array.from({ length: 50_000 }, () => "x") };
    const text = JSON.stringify({ skipped: inner, kept: 1 });
    expect(members(text).map(([key]) => key)).toEqual(["skipped", "kept"]);
    expect(keys(text)).toEqual(["skipped", "kept"]);
  });

  it("never accepts a truncated object, wherever it is cut", () => {
    fc.assert(
      fc.property(anyObject.filter((o) => Object.keys(o).length > 0), fc.double({ min: 0, max: 1, noNaN: true }), (object, at) => {
        const text = JSON.stringify(object);
        const cut = text.slice(0, Math.floor(at * (text.length - 1)));
        expect(() => keys(cut)).toThrow(SyntaxError);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ["an array", "[1,2]"],
    ["a string", '"x"'],
    ["an empty text", ""],
    ["a missing colon", '{"a" 1}'],
    ["a missing comma", '{"a":1 "b":2}'],
    ["a missing value", '{"a":,"b":2}'],
    ["a bare key", "{a:1}"],
    ["text after the object", '{"a":1} {"b":2}'],
    ["an unterminated string", '{"a":"xyz}'],
    ["an unterminated array", '{"a":[1,[2]}'],
  ])("%s → JsonScanError with the offset", (_name, text) => {
    expect(() => keys(text)).toThrow(JsonScanError);
    expect(() => keys(text)).toThrow(/at offset \d+/);
  });
});
