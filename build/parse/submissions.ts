// Submissions JSON (data.sec.gov/submissions/CIK##########.json and its older pages) → filing items.
// Pure: text or object in, records out. URLs are absolute (www.sec.gov Archives, written by sources/paths.ts), items a list.
import { z } from "zod";
import type { FilingItem } from "../../schemas/filing.ts";
import { isIsoDate, isIsoDateTime, toCik } from "../../schemas/primitives.ts";
import { EdgarParseError, MalformedInputError, notJsonError, type ParseSubject } from "../errors.ts";
import { filingDocumentPath, filingFolderPath, filingIndexPath, liveUrl } from "../sources/paths.ts";
import { JsonDefect, parseDocumentStrict } from "./json-members.ts";

const ACCESSION = /^\d{10}-\d{2}-\d{6}$/;
/** EDGAR's nesting, objects and arrays counted: the file, `filings`, `recent`, a column (or `files`, a page entry). */
const MAX_DEPTH = 4;
/** An older page is one level of columns. */
const PAGE_MAX_DEPTH = 2;

// EDGAR's columnar block, loose: parallel arrays, one entry per filing (recent block and older pages alike).
// Columns are checked to be arrays here and cell by cell in readBlock, which visits every cell anyway: a zod
// pass over each column would copy ~15 arrays of up to a few thousand cells per company.
const Column = z.custom<unknown[]>(Array.isArray, "expected an array");
const FilingsBlock = z.looseObject({
  accessionNumber: Column,
  filingDate: Column,
  form: Column,
  reportDate: Column.optional(),
  acceptanceDateTime: Column.optional(),
  act: Column.optional(),
  fileNumber: Column.optional(),
  items: Column.optional(),
  size: Column.optional(),
  isXBRL: Column.optional(),
  isInlineXBRL: Column.optional(),
  primaryDocument: Column.optional(),
  primaryDocDescription: Column.optional(),
});
type FilingsBlock = z.infer<typeof FilingsBlock>;

const SubmissionsFile = z.looseObject({
  cik: z.union([z.string(), z.number()]),
  name: z.string().nullable().optional(),
  entityType: z.string().nullable().optional(),
  tickers: z.array(z.string()).optional(),
  exchanges: z.array(z.string().nullable()).optional(),
  sic: z.string().nullable().optional(),
  sicDescription: z.string().nullable().optional(),
  fiscalYearEnd: z.string().nullable().optional(),
  filings: z.object({
    recent: FilingsBlock,
    files: z.array(z.looseObject({ name: z.string(), filingFrom: z.string().optional(), filingTo: z.string().optional() })).optional(),
  }),
});

/** The company part of a submissions file and the filings of its recent block. */
export interface Submissions {
  cik: number;
  name: string;
  entityType: string | null;
  tickers: string[];
  /** Each ticker's exchange, aligned with `tickers` (null where EDGAR gives none). */
  exchanges: (string | null)[];
  /** The Standard Industrial Classification code (four digits), and its description; null when EDGAR gives none. */
  sic: string | null;
  sicDescription: string | null;
  /** MMDD, e.g. "0926" for Apple; null for individuals. */
  fiscalYearEnd: string | null;
  filings: FilingItem[];
  /** The older pages (`CIK##########-submissions-001.json`) and the filing dates they span, fetched separately. */
  olderPages: OlderPage[];
}

/** An older submissions page named by the main file. */
export interface OlderPage {
  name: string;
  filingFrom: string | null;
  filingTo: string | null;
}

/** Parses a company's main submissions file. */
export function parseSubmissions(input: string | unknown, subject: ParseSubject = {}): Submissions {
  const raw = typeof input === "string" ? parseStrictText(input, MAX_DEPTH, subject) : input;
  const parsed = SubmissionsFile.safeParse(raw);
  if (!parsed.success) throw shapeError(subject, parsed.error);
  const file = parsed.data;
  const cik = toCik(file.cik);
  if (cik === null) throw new EdgarParseError(subject, `bad cik ${JSON.stringify(file.cik)}`);
  return {
    cik,
    name: file.name ?? "",
    entityType: file.entityType ?? null,
    tickers: file.tickers ?? [],
    exchanges: file.exchanges ?? [],
    sic: file.sic && /^\d{4}$/.test(file.sic) ? file.sic : null,
    sicDescription: file.sicDescription || null,
    fiscalYearEnd: file.fiscalYearEnd || null,
    filings: sortNewestFirst(readBlock(file.filings.recent, cik, { ...subject, cik })),
    olderPages: (file.filings.files ?? []).map((f, i) => olderPage(f, i, subject)),
  };
}

function olderPage(f: { name: string; filingFrom?: string | undefined; filingTo?: string | undefined }, i: number, subject: ParseSubject): OlderPage {
  const [from, to] = [strictDate(f.filingFrom, subject, `files[${i}].filingFrom`), strictDate(f.filingTo, subject, `files[${i}].filingTo`)];
  if (from !== null && to !== null && from > to) throw new MalformedInputError(subject, `files[${i}]: reversed dates, filingFrom ${from} after filingTo ${to}`);
  return { name: f.name, filingFrom: from, filingTo: to };
}

/** Parses an older page: the same columns as the recent block, at the top level. */
export function parseSubmissionsPage(input: string | unknown, cik: number, subject: ParseSubject = {}): FilingItem[] {
  const named = { cik, ...subject };
  const raw = typeof input === "string" ? parseStrictText(input, PAGE_MAX_DEPTH, named) : input;
  const parsed = FilingsBlock.safeParse(raw);
  if (!parsed.success) throw shapeError(named, parsed.error);
  return readBlock(parsed.data, cik, named);
}

/** Merges pages into one list without duplicates, newest first (acceptance time, then accession). */
export function mergeFilings(...pages: FilingItem[][]): FilingItem[] {
  const byAccession = new Map<string, FilingItem>();
  for (const page of pages) for (const f of page) if (!byAccession.has(f.accession_number)) byAccession.set(f.accession_number, f);
  return sortNewestFirst([...byAccession.values()]);
}

/** Newest first: acceptance time (filing date when EDGAR has none), then accession, both descending. */
export function sortNewestFirst(filings: FilingItem[]): FilingItem[] {
  const key = (f: FilingItem) => f.accepted_at ?? `${f.filed_at}T00:00:00.000Z`;
  return filings.sort((a, b) => cmp(key(b), key(a)) || cmp(b.accession_number, a.accession_number));
}

function readBlock(block: FilingsBlock, cik: number, subject: ParseSubject): FilingItem[] {
  const n = block.accessionNumber.length;
  for (const [column, values] of Object.entries(block)) {
    if (Array.isArray(values) && values.length !== n) {
      throw new EdgarParseError(subject, `column ${column} has ${values.length} entries, accessionNumber has ${n}`);
    }
  }
  const out: FilingItem[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const accession = block.accessionNumber[i];
    const filedAt = block.filingDate[i];
    const form = block.form[i];
    if (typeof accession !== "string" || !ACCESSION.test(accession)) {
      throw new EdgarParseError(subject, `bad accession number ${JSON.stringify(accession)} at row ${i}`);
    }
    if (typeof filedAt !== "string") throw new EdgarParseError({ ...subject, accession }, `bad filingDate ${JSON.stringify(filedAt)}`);
    if (!isIsoDate(filedAt)) throw new MalformedInputError({ ...subject, accession }, `impossible filingDate ${JSON.stringify(filedAt)} at row ${i}`);
    if (typeof form !== "string") throw new EdgarParseError({ ...subject, accession }, `bad form ${JSON.stringify(form)}`);
    const folder = filingFolderPath(cik, accession);
    const primary = text(block.primaryDocument?.[i]);
    out[i] = {
      accession_number: accession,
      form,
      filed_at: filedAt,
      accepted_at: dateTime(block.acceptanceDateTime?.[i], subject, accession, i),
      report_date: strictDate(block.reportDate?.[i], subject, `reportDate at row ${i}`, accession),
      primary_document: primary,
      primary_document_description: text(block.primaryDocDescription?.[i]),
      url: primary ? liveUrl(filingDocumentPath(folder, primary)) : null,
      index_url: liveUrl(filingIndexPath(folder, accession)),
      items: (text(block.items?.[i]) ?? "").split(",").map((s) => s.trim()).filter(Boolean),
      size: typeof block.size?.[i] === "number" ? (block.size[i] as number) : null,
      is_xbrl: block.isXBRL?.[i] === 1 || block.isXBRL?.[i] === true,
      is_inline_xbrl: block.isInlineXBRL?.[i] === 1 || block.isInlineXBRL?.[i] === true,
      file_number: text(block.fileNumber?.[i]),
      act: text(block.act?.[i]),
    };
  }
  return out;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/**
 * A date as EDGAR writes it, or null when blank; an impossible one (2023-02-30, or not a date at all) is a defect (of
 * the filing `accession`, when given).
 */
function strictDate(value: unknown, subject: ParseSubject, where: string, accession?: string): string | null {
  const t = text(value);
  if (t === null) return null;
  if (!isIsoDate(t)) throw new MalformedInputError(accession === undefined ? subject : { ...subject, accession }, `impossible date ${JSON.stringify(t)} in ${where}`);
  return t;
}

/** An acceptance time, or null when blank; one that is not a real instant is a defect of the filing. */
function dateTime(value: unknown, subject: ParseSubject, accession: string, row: number): string | null {
  const t = text(value);
  if (t === null) return null;
  if (!isIsoDateTime(t)) throw new MalformedInputError({ ...subject, accession }, `impossible acceptanceDateTime ${JSON.stringify(t)} at row ${row}`);
  return t;
}

/** JSON text, strictly (json-members.ts): a repeated key or nesting deeper than EDGAR's is a defect. */
function parseStrictText(input: string, maxDepth: number, subject: ParseSubject): unknown {
  try {
    return parseDocumentStrict(input, maxDepth);
  } catch (error) {
    if (error instanceof JsonDefect) throw new MalformedInputError(subject, error.message);
    throw notJsonError(input, subject, error);
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function shapeError(subject: ParseSubject, error: z.ZodError): EdgarParseError {
  const issue = error.issues[0];
  return new EdgarParseError(subject, `not a submissions file: ${issue?.path.join(".") || "(root)"} ${issue?.message}`);
}
