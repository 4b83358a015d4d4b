// Company facts JSON (data.sec.gov/api/xbrl/companyfacts/CIK##########.json) → the earnings concepts' facts.
// Pure: text or object in, records out; validates only the concepts it keeps (never a zod pass over all ~500).
import { z } from "zod";
import { toCik } from "../../schemas/primitives.ts";
import { EARNINGS_CONCEPTS } from "../derive/concepts.ts";
import { EdgarParseError, NoXbrlHistoryError, parseJsonText, type ParseSubject } from "../errors.ts";

/** The financial-statement taxonomies earnings come from; dei, srt, invest, ecd… carry no income statement. */
const TAXONOMIES = ["us-gaap", "ifrs-full"] as const;

// EDGAR's own shapes, loose (STYLE habit 3). A fact: `start` only on durations; `fy`/`fp` describe the filing
// (pitfall 1) and may be null (pitfall 9); `frame` is sparse (pitfall 4).
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const EdgarFact = z.object({
  start: z.string().regex(DATE).optional(),
  end: z.string().regex(DATE),
  val: z.number(),
  accn: z.string().regex(/^\d{10}-\d{2}-\d{6}$/),
  fy: z.number().int().nullable().optional(),
  fp: z.string().nullable().optional(),
  form: z.string(),
  filed: z.string().regex(DATE),
  frame: z.string().optional(),
});
const EdgarConcept = z.looseObject({ units: z.record(z.string(), z.array(EdgarFact)) });
const CompanyFactsFile = z.looseObject({
  cik: z.union([z.number(), z.string()]),
  entityName: z.string().nullable().optional(),
  facts: z.record(z.string(), z.unknown()),
});

/** One fact as EDGAR reports it for one concept and unit. */
export type EdgarFact = z.infer<typeof EdgarFact>;

/** The earnings concepts of one company: taxonomy-qualified concept → unit → facts, as filed. */
export interface CompanyFacts {
  cik: number;
  entityName: string;
  /** Keyed like `us-gaap:Revenues`; only the concepts in EARNINGS_CONCEPTS that the company reported. */
  concepts: Record<string, Record<string, EdgarFact[]>>;
}

/** Parses a company facts file (text or parsed JSON), keeping only the us-gaap/ifrs-full concepts earnings need. */
export function parseCompanyFacts(input: string | unknown, subject: { cik?: number | string } = {}): CompanyFacts {
  const named: ParseSubject = subject.cik === undefined ? {} : { cik: toCik(subject.cik) ?? subject.cik };
  const raw = typeof input === "string" ? parseJsonText(input, named) : input;
  const file = CompanyFactsFile.safeParse(raw);
  if (!file.success) throw new EdgarParseError(named, `not a company facts file: ${describeIssues(file.error)}`);
  const cik = toCik(file.data.cik);
  if (cik === null) throw new EdgarParseError(named, `bad cik ${JSON.stringify(file.data.cik)}`);
  if (named.cik !== undefined && named.cik !== cik) throw new EdgarParseError(named, `the file is for CIK ${cik}`);
  const who: ParseSubject = { cik };

  const concepts: CompanyFacts["concepts"] = {};
  let financialConcepts = 0;
  for (const taxonomy of TAXONOMIES) {
    const block = file.data.facts[taxonomy];
    if (block === undefined) continue;
    if (!isPlainObject(block)) throw new EdgarParseError(who, `facts.${taxonomy} is not an object`);
    for (const name in block) {
      financialConcepts++;
      const key = `${taxonomy}:${name}`;
      if (EARNINGS_CONCEPTS.has(key)) concepts[key] = readConcept(block[name], key, who);
    }
  }
  if (financialConcepts === 0) throw new NoXbrlHistoryError(who, "no us-gaap or ifrs-full facts (no XBRL financial history)");
  if (Object.keys(concepts).length === 0) {
    throw new NoXbrlHistoryError(who, "no income-statement concepts (revenue, net income, EPS…) among its XBRL facts");
  }
  return { cik, entityName: file.data.entityName ?? "", concepts };
}

function readConcept(value: unknown, key: string, who: ParseSubject): Record<string, EdgarFact[]> {
  const parsed = EdgarConcept.safeParse(value);
  if (!parsed.success) throw new EdgarParseError(who, `${key}: ${describeIssues(parsed.error)}`);
  return parsed.data.units;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}
