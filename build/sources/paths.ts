// EDGAR paths, the only module that writes them (same layout under www.sec.gov, data.sec.gov or a mirror root).
// Constants and pure functions only, importing nothing but schemas/: parsers read it too, so it must never fetch.
import { padCik } from "../../schemas/primitives.ts";

/** SEC's ticker → CIK map. */
export const TICKERS_PATH = "files/company_tickers.json";
/** The folder of every company's submissions files (a bulk archive: submissions.zip). */
export const SUBMISSIONS_FOLDER = "submissions/";
/** The folder of every company's XBRL company facts (a bulk archive: companyfacts.zip). */
export const COMPANY_FACTS_FOLDER = "api/xbrl/companyfacts/";
/** A document name that needs no percent-encoding in a URL (nearly all of them: `aapl-20240928.htm`). */
const SAFE_DOCUMENT = /^[\w.\-/]+$/;

/** A company's main submissions file. */
export function submissionsPath(cik: number): string {
  return `${SUBMISSIONS_FOLDER}CIK${padCik(cik)}.json`;
}

/** An older submissions page, by the name the main file gives in `filings.files`. */
export function submissionsPagePath(name: string): string {
  if (!/^CIK\d{10}-submissions-\d{3}\.json$/.test(name)) throw new Error(`unexpected submissions page name "${name}"`);
  return `${SUBMISSIONS_FOLDER}${name}`;
}

/** A company's XBRL company facts. */
export function companyFactsPath(cik: number): string {
  return `${COMPANY_FACTS_FOLDER}CIK${padCik(cik)}.json`;
}

/** A company's folder of filings: where its Form 4s come from, as a whole. */
export function filerFolderPath(cik: number): string {
  return `Archives/edgar/data/${cik}/`;
}

/** A filing's folder (`Archives/edgar/data/320193/000032019324000123/`): its documents and its index page. */
export function filingFolderPath(cik: number, accession: string): string {
  return `${filerFolderPath(cik)}${accession.replace(/-/g, "")}/`;
}

/** A document of a filing, percent-encoded where its name needs it (`primaryDocument` of the submissions). */
export function filingDocumentPath(folder: string, document: string): string {
  return `${folder}${SAFE_DOCUMENT.test(document) ? document : document.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * The plain XBRL instance EDGAR extracts from an inline filing and publishes beside it (issue 43.3): the primary
 * document's name with `.htm` made `_htm.xml` (`…/aapl-20230930.htm` → `…/aapl-20230930_htm.xml`).
 */
export function extractedInstancePath(primaryPath: string): string {
  if (!/\.html?$/i.test(primaryPath)) throw new Error(`"${primaryPath}" is not an HTML primary document`);
  return primaryPath.replace(/\.(html?)$/i, "_$1.xml");
}

/**
 * A filing's label linkbase, named after the schema its XBRL names (EDGAR Filer Manual 5.2: `aapl-20250329.xsd` →
 * `aapl-20250329_lab.xml`), in the filing's folder.
 */
export function labelLinkbasePath(folder: string, schema: string): string {
  const base = schema.split("/").pop() ?? "";
  if (!/^[\w.\-]+\.xsd$/i.test(base)) throw new Error(`"${schema}" is not a schema file name`);
  return `${folder}${base.replace(/\.xsd$/i, "_lab.xml")}`;
}

/** A filing's index page (`…/000032019324000123/0000320193-24-000123-index.htm`), the page EDGAR links a filing to. */
export function filingIndexPath(folder: string, accession: string): string {
  return `${folder}${accession}-index.htm`;
}

/**
 * The raw ownership XML of a Form 3/4/5: `primaryDocument` names the XSL rendering (`xslF345X05/form4.xml`);
 * the raw file is its base name at the root of the filing folder (pitfall 30).
 */
export function ownershipXmlPath(cik: number, accession: string, primaryDocument: string): string {
  const base = primaryDocument.split("/").pop() ?? "";
  if (!/^[\w.\-]+\.xml$/i.test(base)) throw new Error(`accession ${accession}: primary document "${primaryDocument}" is not an XML file`);
  return `${filingFolderPath(cik, accession)}${base}`;
}

/** A filing's full submission text (every document of it, SEC header first). */
export function fullSubmissionPath(cik: number, accession: string): string {
  if (!/^\d{10}-\d{2}-\d{6}$/.test(accession)) throw new Error(`"${accession}" is not an accession number`);
  return `${filerFolderPath(cik)}${accession}.txt`;
}

/** EDGAR's daily form index for one day (`Archives/edgar/daily-index/2026/QTR4/form.20261120.idx`). */
export function dailyFormIndexPath(date: string): string {
  const [year, month, day] = date.split("-");
  const quarter = Math.ceil(Number(month) / 3);
  return `Archives/edgar/daily-index/${year}/QTR${quarter}/form.${year}${month}${day}.idx`;
}

/** EDGAR's largest page of the latest-filings feed (it serves 10, 20, 40, 80 or 100 entries; other counts round down). */
export const FEED_PAGE_SIZE = 100;

/**
 * A page of EDGAR's latest-filings feed (`getcurrent`) as Atom, newest first: `type` is a form type ("" for every
 * form), `start` the entries to skip. Every entity a filing names (filer, issuer, reporting owner…) is an entry.
 */
export function currentFeedPath(type: string, start: number, count = FEED_PAGE_SIZE): string {
  if (!Number.isInteger(start) || start < 0) throw new Error(`bad feed offset ${start}`);
  return `cgi-bin/browse-edgar?action=getcurrent&type=${encodeURIComponent(type)}&company=&dateb=&owner=include&start=${start}&count=${count}&output=atom`;
}

/** Which live host serves a path: data.sec.gov for the JSON APIs, www.sec.gov for files and Archives. */
export function liveUrl(path: string): string {
  const host = path.startsWith(SUBMISSIONS_FOLDER) || path.startsWith("api/") ? "https://data.sec.gov" : "https://www.sec.gov";
  return `${host}/${path}`;
}
