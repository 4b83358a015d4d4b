// Form 4s of one issuer: found in its submissions (and, between runs, in EDGAR's daily indexes), parsed once and
// cached in storage by accession (a filed Form 4 never changes), fetched only when not cached. A 404 is recorded.
import type { Storage } from "unstorage";
import type { FilingItem } from "../../schemas/filing.ts";
import { OwnershipFiling } from "../../schemas/insider.ts";
import { readJson, writeJson } from "../../storage/json.ts";
import { form4CacheKey } from "../../storage/layout.ts";
import { EdgarParseError, MalformedInputError } from "../errors.ts";
import type { DailyIndexRow } from "../parse/daily-index.ts";
import { ownershipXmlFromSubmission } from "../parse/full-submission.ts";
import { INSIDER_FORMS } from "../forms.ts";
import { fullSubmissionPath, ownershipXmlPath } from "../sources/paths.ts";
import { SourceNotFoundError, type Source } from "../sources/source.ts";
import type { Compute } from "./compute.ts";

/** What loading an issuer's Form 4s found, for the manifest. */
export interface Form4Load {
  filings: OwnershipFiling[];
  cached: number;
  fetched: number;
  /** Accessions whose XML the source does not have (404), or whose primary document is not XML. */
  missing: string[];
  /** Accessions whose XML is not a readable ownership document. */
  unreadable: string[];
  /** Not cached, filed before the last run's index coverage, so not fetched again (missing or unreadable then). */
  not_retried?: number;
}

/** The daily-index view of one issuer since the last run (see form4-index.ts). */
export interface IncrementalForm4s {
  /**
   * The last run's coverage: uncached Form 4s filed on or before it are not fetched again. Null for a company the
   * last run did not rebuild: everything its submissions list is a candidate (the indexed ones are added).
   */
  after: string | null;
  /** Its Form 4 rows in the daily indexes read this run. */
  indexed: DailyIndexRow[];
}

/**
 * Loads every Form 4 and 4/A filed on or after `since`: from the cache, else fetched. With `incremental`, the
 * fetch candidates are only the indexed ones and those filed after the last coverage; an indexed filing the
 * submissions do not list yet is read from its full submission text. Source errors other than 404 propagate, and
 * so do MalformedInputErrors (a Form 4 with a duplicate element or an impossible date fails its company).
 */
export async function loadForm4s(
  source: Source,
  storage: Storage,
  compute: Pick<Compute, "form4">,
  cik: number,
  filings: FilingItem[],
  since: string,
  incremental?: IncrementalForm4s,
): Promise<Form4Load> {
  const wanted = new Map<string, Wanted>();
  for (const f of filings) {
    if (INSIDER_FORMS.has(f.form.toUpperCase()) && f.filed_at >= since) wanted.set(f.accession_number, { accession: f.accession_number, filed_at: f.filed_at, primary: f.primary_document ?? "" });
  }
  for (const row of incremental?.indexed ?? []) {
    if (!wanted.has(row.accession) && row.filed_at >= since) wanted.set(row.accession, { accession: row.accession, filed_at: row.filed_at, primary: null });
  }
  const indexed = new Set(incremental?.indexed.map((r) => r.accession));
  const out: Form4Load = { filings: [], cached: 0, fetched: 0, missing: [], unreadable: [] };
  const after = incremental?.after ?? null;
  if (after !== null) out.not_retried = 0;
  await Promise.all(
    [...wanted.values()].map(async (filing) => {
      const key = form4CacheKey(filing.accession);
      const cached = await readJson(storage, key, OwnershipFiling).catch(() => null);
      if (cached) {
        out.cached++;
        out.filings.push(cached);
        return;
      }
      if (after !== null && filing.filed_at <= after && !indexed.has(filing.accession)) return void out.not_retried!++;
      let xml: string;
      let path: string;
      try {
        ({ xml, path } = await fetchXml(source, cik, filing));
      } catch (error) {
        if (error instanceof SourceNotFoundError || error instanceof NotXmlError) return void out.missing.push(filing.accession);
        if (!(error instanceof EdgarParseError) || error instanceof MalformedInputError) throw error;
        out.fetched++; // a full submission without ownership XML: fetched, and unreadable
        return void out.unreadable.push(filing.accession);
      }
      out.fetched++;
      try {
        const parsed = await compute.form4(xml, { accession: filing.accession, filedAt: filing.filed_at, path });
        await writeJson(storage, key, OwnershipFiling, parsed);
        out.filings.push(parsed);
      } catch (error) {
        // Not an ownership document is listed; a defect EDGAR never produces fails the company (errors.ts says why).
        if (!(error instanceof EdgarParseError) || error instanceof MalformedInputError) throw error;
        out.unreadable.push(filing.accession);
      }
    }),
  );
  out.missing.sort();
  out.unreadable.sort();
  return out;
}

/** Several loads as one (a company's own Form 4s and its predecessors'). */
export function mergeLoads(loads: readonly Form4Load[]): Form4Load {
  const out: Form4Load = { filings: [], cached: 0, fetched: 0, missing: [], unreadable: [] };
  for (const load of loads) {
    out.filings.push(...load.filings);
    out.cached += load.cached;
    out.fetched += load.fetched;
    out.missing.push(...load.missing);
    out.unreadable.push(...load.unreadable);
    if (load.not_retried !== undefined) out.not_retried = (out.not_retried ?? 0) + load.not_retried;
  }
  out.missing.sort();
  out.unreadable.sort();
  return out;
}

interface Wanted {
  accession: string;
  filed_at: string;
  /** The primary document the submissions name; null when only the daily index names the filing. */
  primary: string | null;
}

class NotXmlError extends Error {}

/** The raw XML and its path: by its primary document, or (named only by the index) out of the full submission text. */
async function fetchXml(source: Source, cik: number, filing: Wanted): Promise<{ xml: string; path: string }> {
  if (filing.primary === null) {
    const path = fullSubmissionPath(cik, filing.accession);
    return { xml: ownershipXmlFromSubmission(await source.getText(path), { accession: filing.accession }), path };
  }
  let path: string;
  try {
    path = ownershipXmlPath(cik, filing.accession, filing.primary);
  } catch (error) {
    throw new NotXmlError((error as Error).message);
  }
  return { xml: await source.getText(path), path };
}
