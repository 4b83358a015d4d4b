// EDGAR's latest-filings feed (`/cgi-bin/browse-edgar?action=getcurrent&output=atom`) → one record per entry.
// Pure: text in, entries out. The feed lists each filing once per entity it names ("Filer", "Issuer", "Reporting",
// "Subject", "Filed by"), newest acceptance first; an entry's `updated` is the acceptance time (US Eastern, with
// its offset), its summary the filing date and accession, its category the form type.
import { XMLParser } from "fast-xml-parser";
import { isIsoDate } from "../../schemas/primitives.ts";
import { EdgarParseError, type ParseSubject } from "../errors.ts";

/** One entry of the feed: a filing as listed under one of the entities it names. */
export interface FeedEntry {
  accession: string;
  form: string;
  cik: number;
  company: string;
  /** The entity's part in the filing: Filer, Issuer, Reporting (an insider), Subject, Filed by. */
  role: string;
  /** The filing date EDGAR gave it (YYYY-MM-DD). */
  filed_at: string;
  /** The acceptance time, UTC ISO. */
  accepted_at: string;
  index_url: string;
}

const PARSER = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => name === "entry" || name === "link" || name === "category",
  maxNestedTags: 4,
});

const ACCESSION_ID = /accession-number=(\d{10}-\d{2}-\d{6})$/;
const ENTITY = /^(.*) \((\d{1,10})\) \(([^()]+)\)$/;
const FILED = /Filed:\s*(?:<\/b>)?\s*(\d{4}-\d{2}-\d{2})/;
const ACC_NO = /AccNo:\s*(?:<\/b>)?\s*(\d{10}-\d{2}-\d{6})/;
const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Parses a feed page; anything that is not an Atom feed of filings is an error naming the path and the entry. */
export function parseCurrentFeed(text: string, subject: ParseSubject = {}): FeedEntry[] {
  if (!/<feed[\s>]/.test(text.slice(0, 2000))) throw new EdgarParseError(subject, `not an Atom feed (starts "${text.slice(0, 60).replace(/\s+/g, " ")}")`);
  let parsed: { feed?: { entry?: Record<string, unknown>[] } };
  try {
    parsed = PARSER.parse(text) as typeof parsed;
  } catch (cause) {
    throw new EdgarParseError(subject, `not well-formed XML: ${(cause as Error).message}`, { cause });
  }
  if (!parsed.feed || typeof parsed.feed !== "object") throw new EdgarParseError(subject, "no <feed> element");
  return (parsed.feed.entry ?? []).map((entry, i) => readEntry(entry, i, subject));
}

function readEntry(entry: Record<string, unknown>, i: number, subject: ParseSubject): FeedEntry {
  const fail = (what: string) => new EdgarParseError(subject, `entry ${i + 1}: ${what}`);
  const id = text(entry.id);
  const accession = ACCESSION_ID.exec(id)?.[1];
  if (!accession) throw fail(`no accession number in its id "${id.slice(0, 80)}"`);
  const form = text((entry.category as Record<string, unknown>[] | undefined)?.[0]?.["@term"]);
  if (!form) throw fail("no form type (category term)");
  const title = text(entry.title);
  const prefix = `${form} - `;
  const entity = title.startsWith(prefix) ? ENTITY.exec(title.slice(prefix.length)) : null;
  if (!entity) throw fail(`title "${title.slice(0, 100)}" is not "FORM - NAME (CIK) (ROLE)"`);
  const summary = text(entry.summary);
  const filed = FILED.exec(summary)?.[1];
  if (!filed || !isIsoDate(filed)) throw fail(`no filing date in its summary "${summary.slice(0, 100)}"`);
  const accNo = ACC_NO.exec(summary)?.[1];
  if (accNo && accNo !== accession) throw fail(`its summary names ${accNo}, its id ${accession}`);
  const updated = text(entry.updated);
  const at = OFFSET_TIME.test(updated) ? Date.parse(updated) : NaN;
  if (Number.isNaN(at)) throw fail(`acceptance time "${updated}" is not a timestamp with an offset`);
  const link = (entry.link as Record<string, unknown>[] | undefined)?.find((l) => text(l["@rel"]) !== "self");
  return {
    accession,
    form,
    cik: Number(entity[2]),
    company: entity[1]!.trim(),
    role: entity[3]!.trim(),
    filed_at: filed,
    accepted_at: new Date(at).toISOString(),
    index_url: text(link?.["@href"]),
  };
}

/** An element's text with entities decoded ("&lt;b&gt;" in the summary becomes "<b>"). */
function text(value: unknown): string {
  const raw = typeof value === "string" ? value : typeof value === "object" && value !== null ? (value as Record<string, unknown>)["#text"] : undefined;
  return typeof raw === "string" ? raw.replace(/&(lt|gt|amp|quot|apos);/g, (_, e: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" })[e]!) : "";
}
