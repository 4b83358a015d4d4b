// `dataset audit`: is the published snapshot sound? Reads only; returns findings (empty when sound).
import type { Storage } from "unstorage";
import { EarningsHistory, LATEST, periodAsOf } from "../schemas/earnings-history.ts";
import { DOCUMENT_KINDS, DOCUMENT_SCHEMAS, type Counts, type DocumentKind, type EarningsDocument, type ManifestTicker } from "../schemas/snapshot.ts";
import { readJson } from "../storage/json.ts";
import { documentKey } from "../storage/layout.ts";
import { METRIC_CONCEPTS } from "./derive/concepts.ts";
import { checkInvariants, countExceptions } from "./derive/invariants.ts";
import { readPublished } from "./publish/snapshot.ts";

const COUNT_OF: Record<DocumentKind, keyof Counts> = {
  filings: "filings",
  earnings: "earnings_periods",
  insiders: "insider_transactions",
  financials: "financials_periods",
};

/** The audit's verdict. */
export interface AuditReport {
  build_id: string | null;
  tickers: number;
  covered: number;
  findings: string[];
  /**
   * Sound but worth a look: covered tickers the latest run did not rebuild (kept from an earlier snapshot after a
   * source failure — legitimate, so not a finding; `dataset audit --strict` fails on them too).
   */
  warnings: string[];
}

/**
 * Checks that current.json names a complete snapshot: a manifest, and for every covered ticker its three
 * documents, each valid against its schema, with as many rows as the manifest counts and endpoints that
 * match; and no documents for a ticker that is not covered. Earnings documents also pass the series invariants
 * (earningsFindings): a broken one is a finding, a marked exception a warning (`--strict` fails on it).
 */
export async function auditSnapshot(storage: Storage): Promise<AuditReport> {
  let published;
  try {
    published = await readPublished(storage);
  } catch (error) {
    return { build_id: null, tickers: 0, covered: 0, findings: [(error as Error).message], warnings: [] };
  }
  if (!published) return { build_id: null, tickers: 0, covered: 0, findings: ["current.json is missing: nothing is published"], warnings: [] };
  const { manifest, pointer } = published;
  const findings: string[] = [];
  const warnings: string[] = [];
  if (manifest.build_id !== pointer.build_id) findings.push(`current.json names ${pointer.build_id} but its manifest says ${manifest.build_id}`);
  let covered = 0;
  for (const [ticker, entry] of Object.entries(manifest.tickers)) {
    for (const kind of DOCUMENT_KINDS) {
      const key = documentKey(pointer.build_id, ticker, kind);
      if (!entry.covered) {
        if (await storage.hasItem(key)) findings.push(`${ticker}: not covered (${entry.reason}) but ${key} exists`);
        continue;
      }
      let doc;
      try {
        doc = await readJson(storage, key, DOCUMENT_SCHEMAS[kind]);
      } catch (error) {
        findings.push(`${ticker}: ${(error as Error).message}`);
        continue;
      }
      if (!doc) {
        findings.push(`${ticker}: covered but ${key} is missing`);
        continue;
      }
      const expected = entry.counts[COUNT_OF[kind]];
      if (doc.data.length !== expected) findings.push(`${ticker}: ${kind}.json has ${doc.data.length} rows, the manifest counts ${expected}`);
      if (kind === "earnings") earningsFindings(ticker, doc as EarningsDocument, entry, findings, warnings);
    }
    if (entry.covered) covered++;
    const builtAt = entry.freshness.built_at;
    if (entry.covered && builtAt !== null && builtAt < manifest.built_at) {
      warnings.push(`${ticker}: not rebuilt by ${manifest.build_id}, serves documents built ${builtAt}${entry.documents_from ? ` (from ${entry.documents_from})` : ""}${entry.error ? `: ${entry.error}` : ""}`);
    }
  }
  return { build_id: pointer.build_id, tickers: Object.keys(manifest.tickers).length, covered, findings, warnings };
}

/**
 * The earnings series invariants over a published document (issue 14 "Enforced and audited"): an unmarked violation
 * is a finding, marked exceptions are one warning per ticker; the history section must parse, align with the rows and
 * read back, as of today, to the rows themselves; the manifest's exception counts must be the document's.
 */
function earningsFindings(ticker: string, doc: EarningsDocument, entry: ManifestTicker, findings: string[], warnings: string[]): void {
  for (const v of checkInvariants(doc.data, METRIC_CONCEPTS)) {
    if (!v.marked) findings.push(`${ticker}: earnings invariant ${v.rule} broken and not marked: ${v.message}`);
  }
  const counts = countExceptions(doc.data);
  if (counts.periods > 0) {
    const rules = Object.entries(counts).filter(([rule, n]) => rule !== "periods" && n > 0).map(([rule, n]) => `${rule} ${n}`);
    warnings.push(`${ticker}: ${counts.periods} earnings periods carry marked exceptions (${rules.join(", ")})`);
  }
  if (entry.earnings_exceptions && JSON.stringify(entry.earnings_exceptions) !== JSON.stringify(counts)) {
    findings.push(`${ticker}: the manifest counts earnings exceptions ${JSON.stringify(entry.earnings_exceptions)}, the document ${JSON.stringify(counts)}`);
  }
  if (doc.history === undefined) return;
  let history;
  try {
    history = EarningsHistory.parse(JSON.parse(doc.history));
  } catch (error) {
    findings.push(`${ticker}: earnings history section unreadable: ${(error as Error).message.slice(0, 200)}`);
    return;
  }
  if (history.length !== doc.data.length) {
    findings.push(`${ticker}: earnings history has ${history.length} entries for ${doc.data.length} rows`);
    return;
  }
  const differs = doc.data.findIndex((row, i) => JSON.stringify(periodAsOf(row, history[i]!, LATEST, false)) !== JSON.stringify(row));
  if (differs >= 0) findings.push(`${ticker}: earnings row ${differs} (${doc.data[differs]!.period_start}..${doc.data[differs]!.period_end}) is not its history read as of today`);
}
