// The repository's EDGAR fixtures: every file stated in their PROVENANCE.md (size and hash), nothing else, within budget.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EDGAR_DIR } from "./_edgar.ts";
import { cutCompanyFacts, FIXTURE_BUDGET_BYTES, readFixtureProvenance, sha16 } from "./fixtures/cut-edgar.ts";

const lines = readFixtureProvenance(readFileSync(join(EDGAR_DIR, "PROVENANCE.md"), "utf8"));
const files = readdirSync(EDGAR_DIR, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name !== "PROVENANCE.md")
  .map((e) => join(e.parentPath, e.name).slice(EDGAR_DIR.length + 1))
  .sort();

describe("the EDGAR fixtures (test/fixtures/edgar)", () => {
  it("are exactly the files PROVENANCE.md lists, each once", () => {
    expect(lines.map((l) => l.path).sort()).toEqual(files);
  });

  it.each(lines)("$path: the size and SHA-256 its provenance line states", ({ path, size, sha16: hash }) => {
    const bytes = readFileSync(join(EDGAR_DIR, path));
    expect(bytes.length).toBe(size);
    expect(sha16(bytes)).toBe(hash);
  });

  it("stay within 20 MB (DESIGN \"Test data\"), with room for the concepts still to come", () => {
    const total = lines.reduce((sum, l) => sum + l.size, 0);
    expect(total).toBeLessThanOrEqual(FIXTURE_BUDGET_BYTES);
  });

  it.each(lines.filter((l) => l.how === "facts"))("$path: holds no concept beyond what the builder reads (the cut is a fixed point)", ({ path }) => {
    const text = readFileSync(join(EDGAR_DIR, path), "utf8");
    expect(cutCompanyFacts(text)).toBe(text);
  });
});
