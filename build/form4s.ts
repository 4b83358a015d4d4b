// Form 4s of one issuer: found in its submissions, parsed once and cached in storage by accession
// (a filed Form 4 never changes), fetched only when not cached. A missing document is recorded, not fatal.
import type { Storage } from "unstorage";
import type { FilingItem } from "../schemas/filing.ts";
import { OwnershipFiling } from "../schemas/insider.ts";
import { readJson, writeJson } from "../storage/json.ts";
import { form4CacheKey } from "../storage/layout.ts";
import { EdgarParseError } from "./errors.ts";
import { parseOwnershipXml } from "./parse/form4.ts";
import { ownershipXmlPath } from "./sources/paths.ts";
import { SourceNotFoundError, type Source } from "./sources/source.ts";

/** The insider forms the /insiders endpoint serves. */
export const INSIDER_FORMS = new Set(["4", "4/A"]);

/** What loading an issuer's Form 4s found, for the manifest. */
export interface Form4Load {
  filings: OwnershipFiling[];
  cached: number;
  fetched: number;
  /** Accessions whose XML the source does not have (404), or whose primary document is not XML. */
  missing: string[];
  /** Accessions whose XML is not a readable ownership document. */
  unreadable: string[];
}

/** Loads every Form 4 and 4/A filed on or after `since`; source errors other than 404 propagate (the ticker failed). */
export async function loadForm4s(source: Source, storage: Storage, cik: number, filings: FilingItem[], since: string): Promise<Form4Load> {
  const wanted = filings.filter((f) => INSIDER_FORMS.has(f.form.toUpperCase()) && f.filed_at >= since);
  const out: Form4Load = { filings: [], cached: 0, fetched: 0, missing: [], unreadable: [] };
  await Promise.all(
    wanted.map(async (filing) => {
      const key = form4CacheKey(filing.accession_number);
      const cached = await readJson(storage, key, OwnershipFiling).catch(() => null);
      if (cached) {
        out.cached++;
        out.filings.push(cached);
        return;
      }
      let path: string;
      try {
        path = ownershipXmlPath(cik, filing.accession_number, filing.primary_document ?? "");
      } catch {
        out.missing.push(filing.accession_number);
        return;
      }
      let xml: string;
      try {
        xml = await source.getText(path);
      } catch (error) {
        if (error instanceof SourceNotFoundError) return void out.missing.push(filing.accession_number);
        throw error;
      }
      out.fetched++;
      try {
        const parsed = parseOwnershipXml(xml, { accession: filing.accession_number, filedAt: filing.filed_at });
        await writeJson(storage, key, OwnershipFiling, parsed);
        out.filings.push(parsed);
      } catch (error) {
        if (!(error instanceof EdgarParseError)) throw error;
        out.unreadable.push(filing.accession_number);
      }
    }),
  );
  out.missing.sort();
  out.unreadable.sort();
  return out;
}
