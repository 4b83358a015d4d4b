// Issue 20: every EDGAR path from sources/paths.ts, and paths.ts a module parsers may import (constants and pure
// functions over schemas/ alone).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { filingDocumentPath, filingFolderPath, filingIndexPath, liveUrl, ownershipXmlPath } from "./paths.ts";

const BUILD = join(import.meta.dirname, "..");
/** What only an EDGAR path contains: its folders, its hosts. */
const EDGAR_PATH = /Archives\/|files\/company_tickers|api\/xbrl\/|["'`/]submissions\/|cgi-bin\/|daily-index\/|sec\.gov/g;

describe("EDGAR paths", () => {
  it("are written in paths.ts alone: no other module of the builder spells one in its code", () => {
    const written = builderModules()
      .filter((f) => f !== "sources/paths.ts" && !/\.(test|contract)\.ts$/.test(f))
      .flatMap((f) => [...new Set(code(f).match(EDGAR_PATH) ?? [])].map((fragment) => `${f}: ${fragment}`));
    expect(written).toEqual([]);
  });

  it("paths.ts imports nothing but schemas/, and it is all that parsers import from sources/", () => {
    expect(imports("sources/paths.ts").filter((m) => !m.startsWith("../../schemas/"))).toEqual([]);
    const parsers = builderModules().filter((f) => f.startsWith("parse/"));
    expect(parsers.flatMap(imports).filter((m) => m.startsWith("../sources/") && m !== "../sources/paths.ts")).toEqual([]);
  });

  it("a filing's document and index page, on www.sec.gov (Apple's 10-K 0000320193-24-000123)", () => {
    const folder = filingFolderPath(320193, "0000320193-24-000123");
    expect(liveUrl(filingDocumentPath(folder, "aapl-20240928.htm"))).toBe("https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm");
    expect(liveUrl(filingIndexPath(folder, "0000320193-24-000123"))).toBe("https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/0000320193-24-000123-index.htm");
    expect(filingDocumentPath(folder, "ex 99#1.htm")).toBe(`${folder}ex%2099%231.htm`);
    expect(ownershipXmlPath(320193, "0000320193-24-000123", "xslF345X05/wk-form4.xml")).toBe(`${folder}wk-form4.xml`);
  });
});

/** Every module under build/, as a path from it. */
function builderModules(): string[] {
  return readdirSync(BUILD, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
}

/** A module's code without its comments (which may name EDGAR's files); `//` after a colon is a URL, not a comment. */
function code(file: string): string {
  return readFileSync(join(BUILD, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
}

/** The modules a file imports, as written. */
function imports(file: string): string[] {
  return [...code(file).matchAll(/^import[^;]*?from "([^"]+)"/gm)].map((m) => m[1]!);
}
