// Company facts as the derivations read them: the parser (parse/companyfacts.ts) given the concepts earnings and the
// statements use, of which a covered company must report some income-statement concept.
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
