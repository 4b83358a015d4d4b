// Company facts as the derivations read them: the parser (parse/companyfacts.ts) given the concepts earnings and the
// statements use, of which a covered company must report some income-statement concept; and one company's facts
// from several CIKs (a predecessor's history, build/predecessors.ts) made one.
import { parseCompanyFacts, type CompanyFacts, type ConceptSelection } from "../parse/companyfacts.ts";
import { EARNINGS_CONCEPTS } from "./concepts.ts";
import { STATEMENT_CONCEPTS } from "./statement-concepts.ts";

/** The concepts read: earnings' and the statements' (issue 18); earnings' are the ones a company must report. */
export const COMPANY_FACTS_SELECTION: ConceptSelection = {
  kept: new Set([...EARNINGS_CONCEPTS, ...STATEMENT_CONCEPTS]),
  required: EARNINGS_CONCEPTS,
};

/** A company facts file's selected concepts (throws the parser's typed errors). */
export function readCompanyFacts(text: string, subject: { cik?: number | string; path?: string } = {}): CompanyFacts {
  return parseCompanyFacts(text, COMPANY_FACTS_SELECTION, subject);
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
