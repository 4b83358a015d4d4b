// `dataset audit`: is the published snapshot sound? Reads only; returns findings (empty when sound).
import type { Storage } from "unstorage";
import { DOCUMENT_KINDS, DOCUMENT_SCHEMAS, type Counts, type DocumentKind } from "../schemas/snapshot.ts";
import { readJson } from "../storage/json.ts";
import { documentKey } from "../storage/layout.ts";
import { readPublished } from "./publish/snapshot.ts";

const COUNT_OF: Record<DocumentKind, keyof Counts> = {
  filings: "filings",
  earnings: "earnings_periods",
  insiders: "insider_transactions",
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
 * match; no documents for a ticker that is not covered; and no company failed on malformed EDGAR input.
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
    }
    // Malformed input is a finding even when earlier documents were kept: EDGAR never produces it, so someone must look.
    if (entry.input_defect) {
      const served = entry.covered ? `serves documents from ${entry.documents_from ?? "an earlier build"}` : "not covered";
      findings.push(`${ticker}: ${entry.input_defect.file}: ${entry.input_defect.defect} (the company failed in ${manifest.build_id}; ${served})`);
    }
    if (entry.covered) covered++;
    const builtAt = entry.freshness.built_at;
    if (entry.covered && builtAt !== null && builtAt < manifest.built_at) {
      warnings.push(`${ticker}: not rebuilt by ${manifest.build_id}, serves documents built ${builtAt}${entry.documents_from ? ` (from ${entry.documents_from})` : ""}${entry.error ? `: ${entry.error}` : ""}`);
    }
  }
  return { build_id: pointer.build_id, tickers: Object.keys(manifest.tickers).length, covered, findings, warnings };
}
