// Needs the whole shared mirror (../shared/edgar; skipped, visibly, without it): each fixture is what cut-edgar.ts makes
// of the mirror's file today (so a change to the concepts the builder reads fails here until the fixtures are re-cut),
// and a cut company facts file derives the very same earnings and statements as the whole file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { deriveEarningsBase } from "../build/derive/earnings.ts";
import { deriveFinancials } from "../build/derive/statements.ts";
import { readCompanyFacts } from "../build/derive/company-facts.ts";
import { parseSubmissions } from "../build/parse/submissions.ts";
import { describeMirror, EDGAR_DIR, FILINGS, MIRROR, readEdgar } from "./_edgar.ts";
import { fixtureBytes, originBytes, readFixtureProvenance } from "./fixtures/cut-edgar.ts";

const lines = readFixtureProvenance(readFileSync(join(EDGAR_DIR, "PROVENANCE.md"), "utf8"));

describeMirror("the fixtures against the whole shared mirror", () => {
  // A capture of a dynamic page (the latest-filings feed) has no mirror file: it is kept as captured. Periodic reports'
  // XBRL come from the shared filings set (issue 43), checked where it is there.
  const fromFilings = (how: string) => how === "xbrl" || how === "labels";
  it.each(lines.filter((l) => l.how !== "capture" && (!fromFilings(l.how) || FILINGS.present)))("$path ($how): what cut-edgar.ts makes of the mirror's file", ({ path, how }) => {
    const made = fixtureBytes(how, originBytes(how, path, MIRROR.dir, FILINGS.dir), path);
    expect(made.equals(readFileSync(join(EDGAR_DIR, path)))).toBe(true);
  });

  it.each(lines.filter((l) => l.how === "facts"))("$path: the cut derives the same earnings as the whole file", ({ path }) => {
    const whole = deriveEarningsBase(readCompanyFacts(MIRROR.read(path))).series;
    expect(deriveEarningsBase(readCompanyFacts(readEdgar(path))).series).toEqual(whole);
    expect(whole.periods.length).toBeGreaterThan(0);
  });

  it.each(lines.filter((l) => l.how === "facts"))("$path: the cut derives the same statements (balance sheet, cash flow, TTM) as the whole file", ({ path }) => {
    const statements = (text: string) => {
      const facts = readCompanyFacts(text);
      return deriveFinancials(facts, deriveEarningsBase(facts));
    };
    const whole = statements(MIRROR.read(path));
    expect(statements(readEdgar(path))).toEqual(whole);
    expect(whole.periods.some((p) => p.balance?.total_assets) && whole.periods.some((p) => p.cash_flow?.operating_cash_flow)).toBe(true);
  });

  it.each(lines.filter((l) => l.how === "submissions"))("$path: the cut holds the newest filings of the merged file, in order", ({ path }) => {
    const whole = parseSubmissions(MIRROR.read(path));
    const cut = parseSubmissions(readEdgar(path));
    expect(cut.filings.length).toBeGreaterThanOrEqual(1000);
    expect(whole.filings.slice(0, cut.filings.length)).toEqual(cut.filings);
  });
});
