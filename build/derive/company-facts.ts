// Company facts as the derivations read them: the parser (parse/companyfacts.ts) given the concepts earnings and the
// statements use, of which a covered company must report some income-statement concept, less the amendments that
// carry no financial statements; and one company's facts from several CIKs (build/predecessors.ts) made one.
import { AMENDMENT_FORM, PERIODIC_FORM } from "../forms.ts";
import { parseCompanyFacts, type CompanyFacts, type ConceptSelection, type EdgarFact } from "../parse/companyfacts.ts";
import { EARNINGS_CONCEPTS, EARNINGS_READ } from "./concepts.ts";
import { STATEMENT_CONCEPTS } from "./statement-concepts.ts";

/** The concepts read: earnings' and the statements' (issue 18); the earnings metrics' are the ones a company must report. */
export const COMPANY_FACTS_SELECTION: ConceptSelection = {
  kept: new Set([...EARNINGS_READ, ...STATEMENT_CONCEPTS]),
  required: EARNINGS_CONCEPTS,
};

/** A company facts file's selected concepts, statementless amendments left out (throws the parser's typed errors). */
export function readCompanyFacts(text: string, subject: { cik?: number | string; path?: string } = {}): CompanyFacts {
  return withoutStatementlessAmendments(parseCompanyFacts(text, COMPANY_FACTS_SELECTION, subject));
}

/** A balance sheet's totals: every set of financial statements states one of them at its own date. */
const BALANCE_SHEET_TOTALS = ["us-gaap:Assets", "us-gaap:LiabilitiesAndStockholdersEquity", "ifrs-full:Assets", "ifrs-full:EquityAndLiabilities"];

/**
 * Leaves out the facts of amendments that state no balance sheet: a 10-K/A that adds Part III, or one that only
 * mends the cover page. They restate nothing. Part III's pay-versus-performance table tags each of up to five years'
 * net income with the statements' own concept: as the latest filing, it would become those years' source, and its
 * figures can be rounded or defined otherwise. Its cover counts shares on a later date, which would replace the
 * year's own count as a false restatement. Disney's 10-K/A of 2024-01-24 (0001744489-24-000064) does both.
 */
function withoutStatementlessAmendments(facts: CompanyFacts): CompanyFacts {
  const amendments = new Set<string>();
  const amending = new Map<string, boolean>(); // per form: a handful of forms among many facts
  for (const units of Object.values(facts.concepts)) {
    for (const list of Object.values(units)) {
      for (const f of list) {
        let is = amending.get(f.form);
        if (is === undefined) amending.set(f.form, (is = AMENDMENT_FORM.test(f.form) && PERIODIC_FORM.test(f.form)));
        if (is) amendments.add(f.accn);
      }
    }
  }
  for (const concept of BALANCE_SHEET_TOTALS) {
    for (const list of Object.values(facts.concepts[concept] ?? {})) for (const f of list) amendments.delete(f.accn);
  }
  if (amendments.size === 0) return facts;
  const concepts: CompanyFacts["concepts"] = {};
  for (const [concept, units] of Object.entries(facts.concepts)) {
    const kept: Record<string, EdgarFact[]> = {};
    for (const [unit, list] of Object.entries(units)) {
      const filed = list.filter((f) => !amendments.has(f.accn));
      if (filed.length) kept[unit] = filed;
    }
    if (Object.keys(kept).length) concepts[concept] = kept;
  }
  return { ...facts, concepts };
}

/**
 * One company's facts from several CIKs' files, as `cik`'s: every concept's facts of every unit together. Each fact
 * keeps its own accession, so the derivations treat a predecessor's filings as the company's earlier ones.
 */
export function mergeCompanyFacts(cik: number, parts: readonly CompanyFacts[]): CompanyFacts {
  const concepts: CompanyFacts["concepts"] = {};
  for (const part of parts) {
    for (const [concept, units] of Object.entries(part.concepts)) {
      const into = (concepts[concept] ??= {});
      for (const [unit, facts] of Object.entries(units)) into[unit] = [...(into[unit] ?? []), ...facts];
    }
  }
  const own = parts.find((p) => p.cik === cik) ?? parts.at(-1)!;
  return { cik, entityName: own.entityName, concepts };
}
