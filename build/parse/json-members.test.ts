import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isObjectAt, JsonDefect, JsonScanError, parseDocumentStrict, parseStrict, parseValue, scanDocument, scanObject, valueEnd } from "./json-members.ts";

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
    // Millions of members outgrow the skipping regex's backtracking stack (V8 throws a RangeError): still skipped whole,
    // and still refused when cut short.
    const huge = `[${'"x",'.repeat(3_000_000)}"x"]`;
    expect(valueEnd(huge, 0, { room: 7, path: "v" })).toBe(huge.length);
    expect(() => valueEnd(huge.slice(0, -1), 0, { room: 7, path: "v" })).toThrow(JsonScanError);
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

describe("strict reading: repeated keys and nesting", () => {
  /** A JSON value and how deep it nests (objects and arrays counted). */
  const depthOf = (value: unknown): number =>
    typeof value !== "object" || value === null ? 0 : 1 + Math.max(0, ...Object.values(value as object).map(depthOf));
  const strict = (text: string, maxDepth = Infinity) => parseDocumentStrict(text, maxDepth);

  it("reads any JSON value as JSON.parse does, colons inside strings and all, when nothing repeats", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(...layouts), (value, space) => {
        const text = JSON.stringify(value, null, space as string | number | undefined);
        expect(strict(text)).toEqual(JSON.parse(text));
        expect(strict(text, depthOf(value))).toEqual(JSON.parse(text)); // exactly as deep as allowed
      }),
      { numRuns: 2000 },
    );
  });

  it("finds a key repeated in any object, at any depth, and names it with its place", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: "binary", maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 6 }),
        fc.jsonValue({ maxDepth: 2 }),
        fc.array(fc.constantFrom("object", "array"), { maxLength: 4 }),
        fc.nat(),
        (object, again, wrappers, pick) => {
          const keys = Object.keys(object);
          const key = keys[pick % keys.length]!;
          // The object with `key` once more at its end (the case where JSON.parse silently keeps the second).
          let text = `${JSON.stringify(object).slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(again)}}`;
          let place = "";
          for (const w of wrappers) {
            text = w === "object" ? `{"a":1,"in":${text}}` : `[0,${text}]`;
            place = (w === "object" ? ".in" : "[1]") + place; // each wrapper is one step further from the root
          }
          expect(() => strict(text)).toThrow(JsonDefect);
          expect(() => strict(text)).toThrow(`duplicate key ${JSON.stringify(key)} in (root)${place}`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("finds a repeated key even where colons inside strings, written plain or escaped, make up for the lost member's", () => {
    // The parsed value keeps "a" once and the string's colon: as many colons as the text, had the escape not been seen.
    expect(() => strict('{"a":1,"a":2,"b":"\\u003a"}')).toThrow('duplicate key "a" in (root)');
    expect(() => strict('{"t":"06:01:36","t":"06:01:36"}')).toThrow('duplicate key "t" in (root)');
    expect(strict('{"t":"2024-11-01T06:01:36.000Z","u":"\\u003A"}')).toEqual({ t: "2024-11-01T06:01:36.000Z", u: ":" });
  });

  it("the scanner refuses a repeated key in every object it walks, even when it skips the values", () => {
    expect(() => scanDocument('{"a":{"x":1},"b":2,"a":[]}', () => undefined)).toThrow('duplicate key "a" in (root)');
    const text = '{"facts":{"dei":{},"us-gaap":{},"dei":{}}}';
    expect(() => scanDocument(text, (key, start) => (key === "facts" ? scanObject(text, start, () => undefined, { room: 3, path: "facts" }) : undefined))).toThrow(
      'duplicate key "dei" in facts',
    );
    // Escaped spellings of one key are one key.
    expect(() => scanDocument('{"a":1,"\\u0061":2}', () => undefined)).toThrow('duplicate key "a"');
  });

  it("counts nesting from where the caller stands: as deep as allowed is read, one level more is refused", () => {
    // Depths either side of the single regex's reach (8 levels) and far beyond it, where the bracket loop counts.
    const deep = (n: number) => '{"a":'.repeat(n - 1) + "[]" + "}".repeat(n - 1);
    for (const [text, depth] of [["[]", 1], ['{"a":[{}]}', 3], ['[[["x"]]]', 3], ['{"s":"[[[[[[[[["}', 1], [deep(8), 8], [deep(9), 9], [deep(40), 40]] as const) {
      expect(valueEnd(text, 0, { room: depth, path: "v" })).toBe(text.length);
      expect(() => valueEnd(text, 0, { room: depth - 1, path: "v" })).toThrow(JsonDefect);
      expect(parseStrict(text, 0, { room: depth, path: "v" }).value).toEqual(JSON.parse(text));
    }
    expect(() => parseStrict("[".repeat(100_000) + "]".repeat(100_000), 0, { room: 7, path: "v" })).toThrow("nesting deeper than EDGAR's files have, in v (offset 7)");
    expect(valueEnd(deep(5_000), 0)).toBe(deep(5_000).length); // no limit given: any depth is skipped
  });

  it("text after the value, or no JSON at all, is still a syntax error", () => {
    expect(() => strict('{"a":1} x')).toThrow(SyntaxError);
    expect(() => strict("<html>")).toThrow(SyntaxError);
    expect(() => strict("")).toThrow(SyntaxError);
  });
});

