// Every value the earnings and the statements attribute to a filing is that filing's own fact: for each periodic
// report whose XBRL the real files hold, every value (served or only listed) whose accession is the report's — and
// each term of a sum of its lines — is a fact of its document with the same concept, period and value, undimensioned.
import { expect, it } from "vitest";
import type { PeriodHistory } from "../../schemas/earnings-history.ts";
import type { FinancialPeriodHistory } from "../../schemas/financials-row-history.ts";
import { BALANCE_METRICS, type StatementHistoryEntry } from "../../schemas/financials.ts";
import { padCik } from "../../schemas/primitives.ts";
import { describeEdgar, describeFilings, EDGAR_DIR, FILINGS, MIRROR } from "../../test/_edgar.ts";
import { accessionOfFolder, edgarFiles, type EdgarFiles } from "../../test/_edgar-files.ts";
import { parseInlineXbrl } from "../parse/inline-xbrl.ts";
import { parseXbrlInstance } from "../parse/xbrl-instance.ts";
import type { XbrlDocument } from "../parse/xbrl.ts";
import { COMPANY_FACTS_FOLDER, companyFactsPath, filerFolderPath } from "../sources/paths.ts";
import { readCompanyFacts } from "./company-facts.ts";
import { deriveEarningsBase } from "./earnings.ts";
import { deriveFinancials } from "./statements.ts";

/** A periodic report's XBRL as EDGAR names it: the inline primary document or an instance (`aapl-20230930_htm.xml`). */
const XBRL_DOCUMENT = /^[a-z]+-\d{8}(\.htm|_htm\.xml|\.xml)$/;
const INSTANTS: ReadonlySet<string> = new Set(BALANCE_METRICS);
type Histories = PeriodHistory | FinancialPeriodHistory;
type Span = { period_start: string; period_end: string };

const fixtures = edgarFiles(EDGAR_DIR);

/** A document's plain facts (no dimension) by concept and period: `concept|start|end`, an instant's start empty. */
function plainFacts(doc: XbrlDocument): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const fact of doc.facts) {
    const context = doc.contexts.get(fact.context)!;
    if (fact.value === null || context.typed || Object.keys(context.dims).length) continue;
    const key = `${fact.concept}|${context.start ?? ""}|${context.end}`;
    out.set(key, [...(out.get(key) ?? []), fact.value]);
  }
  return out;
}

interface Traced {
  accession: string;
  document: string;
  /** Values the earnings and the statements attribute to the filing, each term of a sum counted. */
  checked: number;
  /** Those the document has no fact for, or another value: `metric concept period: value (filed …)`. */
  unfound: string[];
}

/** Every report of `facts`' companies whose XBRL `archives` holds, traced. */
function trace(facts: EdgarFiles, archives: EdgarFiles): Traced[] {
  const out: Traced[] = [];
  const withFacts = new Set(facts.list(COMPANY_FACTS_FOLDER));
  for (const cik of archives.list("Archives/edgar/data").map(Number)) {
    if (!withFacts.has(`CIK${padCik(cik)}.json`)) continue;
    const companyFacts = readCompanyFacts(facts.read(companyFactsPath(cik)), { cik });
    const earnings = deriveEarningsBase(companyFacts);
    const financials = deriveFinancials(companyFacts, earnings);
    for (const folder of archives.list(filerFolderPath(cik))) {
      const accession = accessionOfFolder(folder);
      for (const document of archives.list(`${filerFolderPath(cik)}${folder}`).filter((name) => XBRL_DOCUMENT.test(name))) {
        const text = archives.read(`${filerFolderPath(cik)}${folder}/${document}`);
        const doc = document.endsWith(".htm") ? parseInlineXbrl(text, { path: document }) : parseXbrlInstance(text, { path: document });
        const filed = plainFacts(doc);
        const traced: Traced = { accession, document, checked: 0, unfound: [] };
        for (const series of [earnings.series, financials]) traceSeries(series, filed, traced);
        out.push(traced);
      }
    }
  }
  return out;
}

/** Traces each value of the earnings or statements series attributed to `traced`'s filing to `filed`, its plain facts. */
function traceSeries({ periods, history }: { periods: readonly Span[]; history: readonly Histories[] }, filed: Map<string, number[]>, traced: Traced): void {
  periods.forEach((row, i) => {
    const { metrics, filed: listed = {} } = history[i]!;
    for (const [metric, entries] of [...Object.entries(metrics), ...Object.entries(listed)]) {
      for (const entry of (entries ?? []) as StatementHistoryEntry[]) {
        if (entry.accession !== traced.accession || (entry.derived && !entry.components?.length)) continue;
        // A value corrected for a unit-scale slip was filed as its correction says; a sum's terms carry their sign.
        const terms = entry.components?.length ? entry.components : [{ concept: entry.concept, value: entry.scale_corrected?.value_as_filed ?? entry.value }];
        for (const term of terms) {
          const period = INSTANTS.has(metric) ? `|${entry.as_of ?? row.period_end}` : `${row.period_start}|${row.period_end}`;
          const values = filed.get(`${term.concept}|${period}`) ?? [];
          traced.checked++;
          if (!values.includes(Math.abs(term.value)) && !values.includes(term.value)) traced.unfound.push(`${metric} ${term.concept} ${period}: ${term.value} (filed ${values.join(", ") || "nothing"})`);
        }
      }
    }
  });
}

describeEdgar("the earnings and the statements against the fixtures' own filings", () => {
  it("every value attributed to a report whose XBRL the fixtures hold is that report's fact: concept, period, value", () => {
    const traced = trace(fixtures, fixtures);
    // Apple's 10-Ks for fiscal 2022-2024 and three 10-Qs, Walmart's, Home Depot's and Alphabet's latest 10-Ks.
    expect(traced.map((t) => t.document).sort()).toEqual(
      expect.arrayContaining(["aapl-20220924_htm.xml", "aapl-20230930_htm.xml", "aapl-20240928.htm", "goog-20241231.htm", "hd-20250202.htm", "wmt-20250131.htm"]),
    );
    for (const t of traced) {
      expect(t.unfound, `${t.accession} ${t.document}`).toEqual([]);
      // A 10-K's three years of income statement and cash flows and two balance sheets; a 10-Q's quarter and year to date.
      expect(t.checked, `${t.accession} ${t.document}`).toBeGreaterThanOrEqual(40);
    }
  });
});

describeFilings("the earnings and the statements against the shared filings set", () => {
  const title = "every value attributed to a report of the set is its fact, Apple's 10-Ks of 2010 and 2015 included";
  it.skipIf(!MIRROR.present)(MIRROR.present ? title : `${title} [skipped: the whole EDGAR mirror ${MIRROR.dir} is absent]`, () => {
    const traced = trace(MIRROR, FILINGS);
    expect(traced.map((t) => t.document)).toEqual(expect.arrayContaining(["aapl-20100925.xml", "aapl-20150926.xml"]));
    for (const t of traced) {
      expect(t.unfound, `${t.accession} ${t.document}`).toEqual([]);
      expect(t.checked, `${t.accession} ${t.document}`).toBeGreaterThanOrEqual(40);
    }
  });
});
