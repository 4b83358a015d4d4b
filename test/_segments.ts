// Test-side segments of a company from real EDGAR files: every periodic report's XBRL a folder holds (the fixtures'
// cuts, or the shared filings set), read as the builder reads them, labelled by the company's own earnings.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SegmentFiling } from "../schemas/segments.ts";
import { readCompanyFacts } from "../build/derive/company-facts.ts";
import { deriveEarningsBase } from "../build/derive/earnings.ts";
import { deriveSegments, type SegmentSeries } from "../build/derive/segments.ts";
import { parseMemberLabels } from "../build/parse/label-linkbase.ts";
import { readSegmentFiling } from "../build/pipeline/segment-documents.ts";
import { companyFactsPath } from "../build/sources/paths.ts";
import { accessionOfFolder, EDGAR_DIR } from "./_edgar-files.ts";

/**
 * The periodic reports of the sets, by accession: form and filing date as EDGAR's submissions list them (Alphabet's
 * submissions are not in the shared mirror: its 10-K's are from its EDGAR index page).
 */
export const REPORTS: Readonly<Record<string, { form: string; filed_at: string }>> = {
  "0000320193-22-000108": { form: "10-K", filed_at: "2022-10-28" },
  "0000320193-23-000077": { form: "10-Q", filed_at: "2023-08-04" },
  "0000320193-23-000106": { form: "10-K", filed_at: "2023-11-03" },
  "0000320193-24-000123": { form: "10-K", filed_at: "2024-11-01" },
  "0000320193-25-000057": { form: "10-Q", filed_at: "2025-05-02" },
  "0000320193-25-000073": { form: "10-Q", filed_at: "2025-08-01" },
  "0000104169-25-000021": { form: "10-K", filed_at: "2025-03-14" },
  "0000354950-25-000085": { form: "10-K", filed_at: "2025-03-21" },
  "0001652044-25-000014": { form: "10-K", filed_at: "2025-02-05" },
};

/** Each XBRL document of a company under `root` (EDGAR's layout), by accession: the inline one where both forms are there. */
export function xbrlDocuments(cik: number, root = EDGAR_DIR): { accession: string; path: string; text: string }[] {
  const folder = join(root, "Archives/edgar/data", String(cik));
  if (!existsSync(folder)) return [];
  const out: { accession: string; path: string; text: string }[] = [];
  for (const sub of readdirSync(folder).sort()) {
    const names = readdirSync(join(folder, sub)).filter((n) => n.endsWith(".htm") || n.endsWith("_htm.xml"));
    const name = names.find((n) => n.endsWith(".htm")) ?? names[0];
    if (!name) continue;
    const accession = accessionOfFolder(sub);
    const path = `Archives/edgar/data/${cik}/${sub}/${name}`;
    out.push({ accession, path, text: readFileSync(join(root, path), "utf8") });
  }
  return out;
}

/** A document read as the builder reads it. */
export function segmentFilingOf(doc: { accession: string; path: string; text: string }): SegmentFiling {
  const report = REPORTS[doc.accession];
  if (!report) throw new Error(`${doc.accession}: not one of the reports the sets hold`);
  return readSegmentFiling(doc.text, doc.path.endsWith(".htm") ? "inline" : "instance", { accession: doc.accession, ...report, document: doc.path });
}

/** A company's segments from the fixtures (its company facts label them; label linkbases beside its documents name its members). */
export function fixtureSegments(cik: number): SegmentSeries & { filings: SegmentFiling[] } {
  const filings = xbrlDocuments(cik).map((doc) => {
    const filing = segmentFilingOf(doc);
    const labels = join(EDGAR_DIR, doc.path.replace(/[^/]+$/, ""), `${(filing.schema ?? "").replace(/\.xsd$/, "")}_lab.xml`);
    return existsSync(labels) ? { ...filing, labels: parseMemberLabels(readFileSync(labels, "utf8"), {}) } : filing;
  });
  const facts = readCompanyFacts(readFileSync(join(EDGAR_DIR, companyFactsPath(cik)), "utf8"), { cik });
  const periods = deriveEarningsBase(facts).series.periods;
  return { ...deriveSegments(filings, periods), filings };
}
