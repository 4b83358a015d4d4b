// Company facts JSON (data.sec.gov/api/xbrl/companyfacts/CIK##########.json) → the facts of the concepts the builder reads.
// Pure: text in, records out; parses and validates only the concepts it keeps (never all ~500 of them).
import { z } from "zod";
import { isIsoDate, toCik } from "../../schemas/primitives.ts";
import { EdgarParseError, MalformedInputError, NoXbrlHistoryError, notJsonError, type ParseSubject } from "../errors.ts";
import { isObjectAt, JsonDefect, parseStrict, scanDocument, scanObject } from "./json-members.ts";

/** The financial-statement taxonomies earnings come from; dei, srt, invest, ecd… carry no income statement. */
const TAXONOMIES = ["us-gaap", "ifrs-full"] as const;
/** Also read: the cover page (dei), for the statements' shares outstanding. */
const READ: ReadonlySet<string> = new Set([...TAXONOMIES, "dei"]);

/**
 * Which concepts to read (taxonomy-qualified, `us-gaap:Revenues`): the derivations decide (derive/company-facts.ts).
 * `kept` are parsed, every other concept scanned; a company none of whose `required` concepts is reported has no
 * usable history.
 */
export interface ConceptSelection {
  kept: ReadonlySet<string>;
  required: ReadonlySet<string>;
}
/**
 * EDGAR's nesting, objects and arrays counted: the file, facts, a taxonomy, a concept, its units, a unit's facts,
 * a fact. Anything deeper is not a company facts file.
 */
const MAX_DEPTH = 7;

// EDGAR's own shapes, loose (STYLE habit 3). A fact: `start` only on durations; `fy`/`fp` describe the filing
// (pitfall 1) and may be null (pitfall 9); `frame` is sparse (pitfall 4).
// Dates are real calendar dates (zod's ISO date check costs what a shape regex did), and a duration ends on or
// after its start, as XBRL requires (a one-day duration has start = end here): anything else is a defect.
const IMPOSSIBLE_DATE = "impossible date";
const REVERSED = "reversed dates: start after end";
const DATE = z.iso.date({ error: (issue) => (issue.code === "invalid_format" ? IMPOSSIBLE_DATE : undefined) });
const EdgarFact = z
  .object({
    start: DATE.optional(),
    end: DATE,
    val: z.number(),
    accn: z.string().regex(/^\d{10}-\d{2}-\d{6}$/),
    fy: z.number().int().nullable().optional(),
    fp: z.string().nullable().optional(),
    form: z.string(),
    filed: DATE,
    frame: z.string().optional(),
  })
  .refine((fact) => fact.start === undefined || fact.start <= fact.end, { error: REVERSED });
const EdgarConcept = z.looseObject({ units: z.record(z.string(), z.array(EdgarFact)) });
const CompanyFactsFile = z.looseObject({
  cik: z.union([z.number(), z.string()]),
  entityName: z.string().nullable().optional(),
  facts: z.record(z.string(), z.unknown()),
});

/** One fact as EDGAR reports it for one concept and unit. */
export type EdgarFact = z.infer<typeof EdgarFact>;

/** The concepts the builder reads of one company: taxonomy-qualified concept → unit → facts, as filed. */
export interface CompanyFacts {
  cik: number;
  entityName: string;
  /** Keyed like `us-gaap:Revenues`; only the selection's concepts the company reported. */
  concepts: Record<string, Record<string, EdgarFact[]>>;
}

/**
 * Parses a company facts file, keeping only the selected concepts. Only those concepts' values are parsed
 * (json-members.ts): the other ~95 % of the text is scanned, never turned into objects.
 */
export function parseCompanyFacts(text: string, selection: ConceptSelection, subject: { cik?: number | string; path?: string } = {}): CompanyFacts {
  const named: ParseSubject = { ...(subject.cik === undefined ? {} : { cik: toCik(subject.cik) ?? subject.cik }), ...(subject.path ? { path: subject.path } : {}) };
  try {
    return readFacts(text, selection, named);
  } catch (error) {
    if (error instanceof JsonDefect) throw new MalformedInputError(named, error.message);
    throw error instanceof SyntaxError ? notJsonError(text, named, error) : error;
  }
}

/** A financial taxonomy's block: where it starts, the earnings concepts it holds (parsed, unchecked), its size. */
interface TaxonomyBlock {
  start: number;
  concepts: Map<string, unknown>;
  members: number;
}

function readFacts(text: string, selection: ConceptSelection, named: ParseSubject): CompanyFacts {
  if (!/^\s*\{/.test(text)) {
    JSON.parse(text); // throws for text that is not JSON at all (an HTML error page)
    throw new EdgarParseError(named, "not a company facts file: (root): expected an object");
  }
  // One pass: the header members are parsed, facts.us-gaap, facts.ifrs-full and facts.dei walked, every other value skipped.
  // Every object walked refuses a repeated key (json-members.ts), and so does every value kept.
  const header: Record<string, unknown> = {};
  const taxonomies = new Map<string, TaxonomyBlock>();
  scanDocument(
    text,
    (key, start) => {
      if (key === "cik" || key === "entityName") {
        const { value, end } = parseStrict(text, start, { room: MAX_DEPTH - 1, path: key });
        header[key] = value;
        return end;
      }
      if (key !== "facts") return;
      if (!isObjectAt(text, start)) {
        const { value, end } = parseStrict(text, start, { room: MAX_DEPTH - 1, path: key });
        header.facts = value;
        return end;
      }
      header.facts = {};
      return scanObject(
        text,
        start,
        (taxonomy, at) => {
          if (!READ.has(taxonomy)) return;
          const block: TaxonomyBlock = { start: at, concepts: new Map(), members: 0 };
          taxonomies.set(taxonomy, block);
          if (!isObjectAt(text, at)) return;
          return scanObject(
            text,
            at,
            (name, conceptAt) => {
              block.members++;
              if (!selection.kept.has(`${taxonomy}:${name}`)) return;
              const { value, end } = parseStrict(text, conceptAt, { room: MAX_DEPTH - 3, path: `facts.${taxonomy}.${name}` });
              block.concepts.set(name, value);
              return end;
            },
            { room: MAX_DEPTH - 3, path: `facts.${taxonomy}` },
          );
        },
        { room: MAX_DEPTH - 2, path: "facts" },
      );
    },
    MAX_DEPTH,
  );

  const file = CompanyFactsFile.safeParse(header);
  if (!file.success) throw new EdgarParseError(named, `not a company facts file: ${describeIssues(file.error)}`);
  const cik = toCik(file.data.cik);
  if (cik === null) throw new EdgarParseError(named, `bad cik ${JSON.stringify(file.data.cik)}`);
  if (named.cik !== undefined && named.cik !== cik) throw new EdgarParseError(named, `the file is for CIK ${cik}`);
  const who: ParseSubject = { ...named, cik };

  const concepts: CompanyFacts["concepts"] = {};
  let financialConcepts = 0;
  let earningsConcepts = 0;
  for (const [taxonomy, block] of taxonomies) {
    if (taxonomy === "dei") {
      if (!isObjectAt(text, block.start)) continue; // the cover page only adds shares outstanding: without it, none
    } else {
      if (!isObjectAt(text, block.start)) throw new EdgarParseError(who, `facts.${taxonomy} is not an object`);
      financialConcepts += block.members;
    }
    for (const [name, value] of block.concepts) {
      const key = `${taxonomy}:${name}`;
      concepts[key] = readConcept(value, key, who);
      if (selection.required.has(key)) earningsConcepts++;
    }
  }
  if (financialConcepts === 0) throw new NoXbrlHistoryError(who, "no us-gaap or ifrs-full facts (no XBRL financial history)");
  if (earningsConcepts === 0) {
    throw new NoXbrlHistoryError(who, "no income-statement concepts (revenue, net income, EPS…) among its XBRL facts");
  }
  return { cik, entityName: file.data.entityName ?? "", concepts };
}

function readConcept(value: unknown, key: string, who: ParseSubject): Record<string, EdgarFact[]> {
  const plain = plainUnits(value);
  if (plain) return plain;
  const parsed = EdgarConcept.safeParse(value);
  if (parsed.success) return parsed.data.units;
  const defect = parsed.error.issues.find((i) => i.message === IMPOSSIBLE_DATE || i.message === REVERSED);
  if (!defect) throw new EdgarParseError(who, `${key}: ${describeIssues(parsed.error)}`);
  // The fact as filed, for the message: its place in the file and the dates it carries.
  const fact = defect.path.slice(0, 3).reduce<unknown>((at, step) => (at as Record<PropertyKey, unknown>)?.[step as PropertyKey], value) as Record<string, unknown>;
  const dates = ["start", "end", "filed"].filter((f) => f in fact).map((f) => `${f} ${JSON.stringify(fact[f])}`).join(", ");
  const [units, unit, index] = defect.path;
  throw new MalformedInputError(who, `facts.${key.replace(":", ".")}.${String(units)}.${String(unit)}[${String(index)}]: ${defect.message} (${dates})`);
}

const FACT_KEYS: ReadonlySet<string> = new Set(["start", "end", "val", "accn", "fy", "fp", "form", "filed", "frame"]);
const ACCESSION = /^\d{10}-\d{2}-\d{6}$/;

/**
 * A concept's units when every fact is exactly what EdgarConcept accepts and would give back unchanged (no other
 * key): checked in one loop, as zod's object parse per fact was a third of reading a file; null sends the concept
 * through zod, which decides and names the defect.
 */
function plainUnits(value: unknown): Record<string, EdgarFact[]> | null {
  if (!isRecord(value) || !isRecord(value.units)) return null;
  const units = value.units;
  for (const unit in units) {
    const facts = units[unit];
    if (unit === "__proto__" || !Array.isArray(facts)) return null;
    for (const fact of facts) if (!isPlainFact(fact)) return null;
  }
  return units as Record<string, EdgarFact[]>;
}

function isPlainFact(fact: unknown): boolean {
  if (!isRecord(fact)) return false;
  for (const key in fact) if (!FACT_KEYS.has(key)) return false;
  const { start, end, val, accn, fy, fp, form, filed, frame } = fact;
  return (
    typeof end === "string" && isIsoDate(end) &&
    (start === undefined || (typeof start === "string" && isIsoDate(start) && start <= end)) &&
    typeof val === "number" && Number.isFinite(val) &&
    typeof accn === "string" && ACCESSION.test(accn) &&
    (fy === undefined || fy === null || (typeof fy === "number" && Number.isSafeInteger(fy))) &&
    (fp === undefined || fp === null || typeof fp === "string") &&
    typeof form === "string" &&
    typeof filed === "string" && isIsoDate(filed) &&
    (frame === undefined || typeof frame === "string")
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}
