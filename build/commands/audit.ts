// `dataset audit`: is the published snapshot sound? Reads only; returns findings (empty when sound).
import type { Storage } from "unstorage";
import { EarningsHistory, LATEST, periodAsOf } from "../../schemas/earnings-history.ts";
import { expandHistory, financialAsOf, StoredFinancialsHistory } from "../../schemas/financials-history.ts";
import { FINANCIAL_INVARIANTS } from "../../schemas/financials.ts";
import {
  DOCUMENT_KINDS,
  DOCUMENT_SCHEMAS,
  LATER_KINDS,
  type Counts,
  type DocumentKind,
  type EarningsDocument,
  type FinancialsDocument,
  type ManifestTicker,
} from "../../schemas/snapshot.ts";
import { readText } from "../../storage/json.ts";
import { createHash } from "node:crypto";
import type { z } from "zod";
import { CrossIndex, MarketFilingsDay, MarketInsidersDay, ScreenDocument, type CrossManifest, type CrossRef } from "../../schemas/cross.ts";
import { documentKeyOf } from "../../storage/layout.ts";
import { METRIC_CONCEPTS } from "../derive/concepts.ts";
import { checkFinancials } from "../derive/financial-invariants.ts";
import { checkInvariants, countExceptions } from "../derive/invariants.ts";
import { documentDigest } from "../publish/digest.ts";
import { readPublished } from "../publish/snapshot.ts";
import { describeFailure, failureOf } from "./failure.ts";

/** The manifest's count of each kind's rows (a company's screen document has none: it holds timelines by frame). */
const COUNT_OF: Partial<Record<DocumentKind, keyof Counts>> = {
  filings: "filings",
  earnings: "earnings_periods",
  insiders: "insider_transactions",
  financials: "financials_periods",
  segments: "segment_periods",
};

/** The audit's verdict. */
export interface AuditReport {
  build_id: string | null;
  tickers: number;
  covered: number;
  findings: string[];
  /** Tickers whose company failed in the build that last tried it: each is a finding too (failure.ts). */
  failed: string[];
  /**
   * Sound but worth a look: covered tickers the latest build carried forward without trying them (outside its
   * --tickers), and marked series exceptions; `dataset audit --strict` fails on them too.
   */
  warnings: string[];
}

/**
 * Checks that current.json names a complete snapshot: a manifest, and for every covered ticker each of its
 * documents where the manifest says (often an earlier publish's folder), valid against its schema, with the content
 * hash the manifest states and as many rows as it counts; no documents for a ticker that is not covered; and no
 * company failed (issue 39: one that keeps its previous documents serves stale ones): each failed ticker is a finding
 * naming the file or accession, the reason the manifest records and since when its documents are stale. Warnings name
 * covered tickers the latest build carried forward without failing on them. Earnings
 * and financials documents also pass their series invariants (earningsFindings, financialsFindings): a broken one is a
 * finding, a marked exception a warning (with `strict`, a finding). A ticker carried from a snapshot published before
 * the financials existed (its manifest entry does not name /financials) is not asked for them.
 */
export async function auditSnapshot(storage: Storage, options: { strict?: boolean } = {}): Promise<AuditReport> {
  let published;
  try {
    published = await readPublished(storage);
  } catch (error) {
    return { build_id: null, tickers: 0, covered: 0, findings: [(error as Error).message], failed: [], warnings: [] };
  }
  if (!published) return { build_id: null, tickers: 0, covered: 0, findings: ["current.json is missing: nothing is published"], failed: [], warnings: [] };
  const { manifest, pointer } = published;
  const findings: string[] = [];
  const failed: string[] = [];
  const warnings: string[] = [];
  if (manifest.build_id !== pointer.build_id) findings.push(`current.json names ${pointer.build_id} but its manifest says ${manifest.build_id}`);
  let covered = 0;
  // The follower's publishes leave tickers it did not touch as the latest build made them: that build is the yardstick.
  const lastBuild = manifest.builds?.[0] ?? { build_id: manifest.build_id, built_at: manifest.built_at };
  for (const [ticker, entry] of Object.entries(manifest.tickers)) {
    for (const kind of DOCUMENT_KINDS) {
      const key = documentKeyOf(manifest, ticker, kind);
      if (entry.covered && LATER_KINDS.has(kind) && (kind === "financials" ? entry.endpoints["/financials"] === undefined : !entry.documents?.[kind])) continue;
      if (!entry.covered) {
        if (entry.documents?.[kind] || (await storage.hasItem(key))) findings.push(`${ticker}: not covered (${entry.reason}) but ${key} exists`);
        continue;
      }
      let doc;
      try {
        doc = await readDocument(storage, key, kind, entry.documents?.[kind]?.sha256 ?? null, (finding) => findings.push(`${ticker}: ${finding}`));
      } catch (error) {
        findings.push(`${ticker}: ${(error as Error).message}`);
        continue;
      }
      if (!doc) {
        findings.push(`${ticker}: covered but ${key} is missing`);
        continue;
      }
      const counted = COUNT_OF[kind];
      const rows = "data" in doc ? doc.data.length : null;
      if (counted && rows !== entry.counts[counted]) findings.push(`${ticker}: ${kind}.json has ${rows} rows, the manifest counts ${entry.counts[counted]}`);
      // With --strict a ticker's marked exceptions are findings (issue 14 "a finding with --strict").
      const marked = options.strict ? findings : warnings;
      if (kind === "earnings") earningsFindings(ticker, doc as EarningsDocument, entry, findings, marked);
      if (kind === "financials") financialsFindings(ticker, doc as FinancialsDocument, entry, findings, marked);
    }
    // A failed company is a finding even when it kept its documents (issue 39): they are stale, and only a person
    // can tell a passing outage from a file that fails every build.
    const failure = failureOf(entry);
    if (failure) {
      failed.push(ticker);
      findings.push(`${ticker}: ${describeFailure(failure)}`);
    }
    if (entry.covered) covered++;
    const builtAt = entry.freshness.built_at;
    if (!failure && entry.covered && builtAt !== null && builtAt < lastBuild.built_at) {
      warnings.push(`${ticker}: not rebuilt by ${lastBuild.build_id}, serves documents built ${builtAt}${entry.documents_from ? ` (from ${entry.documents_from})` : ""}`);
    }
  }
  if (manifest.cross) await crossFindings(storage, manifest.cross, findings);
  return { build_id: pointer.build_id, tickers: Object.keys(manifest.tickers).length, covered, findings, failed, warnings };
}

/**
 * The cross-company documents (issue 40): each one the manifest names is there, holds the content hash it names, and
 * passes its schema whole (the builder assembles them from parts validated where they were made); a screen lists each
 * company once, with its states in date order; a feed day holds only its own day's rows, as many as the manifest counts.
 */
async function crossFindings(storage: Storage, cross: CrossManifest, findings: string[]): Promise<void> {
  const read = async <T extends z.ZodType>(ref: CrossRef, schema: T): Promise<z.output<T> | null> => {
    const text = await readText(storage, ref.key);
    if (text === null) return void findings.push(`cross-company: ${ref.key} is missing`), null;
    if (createHash("sha256").update(text).digest("hex").slice(0, 32) !== ref.sha256) findings.push(`cross-company: ${ref.key} does not hold the content the manifest names (hash ${ref.sha256})`);
    const parsed = schema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
    findings.push(`cross-company: ${ref.key}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).slice(0, 3).join("; ")}`);
    return null;
  };
  await read(cross.index, CrossIndex);
  for (const [frame, byMetric] of Object.entries(cross.screens)) {
    for (const [metric, ref] of Object.entries(byMetric)) {
      const doc = await read(ref!, ScreenDocument);
      if (!doc) continue;
      const tickers = doc.companies.map((c) => c.ticker);
      if (doc.frame !== frame || doc.metric !== metric) findings.push(`cross-company: ${ref!.key} holds ${doc.frame} ${doc.metric}`);
      if (new Set(tickers).size !== tickers.length) findings.push(`cross-company: ${ref!.key} lists a company twice`);
      if (tickers.length !== ref!.rows) findings.push(`cross-company: ${ref!.key} has ${tickers.length} companies, the manifest counts ${ref!.rows}`);
      for (const c of doc.companies) if (c.states.some((state, i) => i > 0 && state[0] <= c.states[i - 1]![0])) findings.push(`cross-company: ${ref!.key}: ${c.ticker}'s states are not in date order`);
    }
  }
  for (const [feed, days, schema] of [["filings", cross.market_filings, MarketFilingsDay], ["insiders", cross.market_insiders, MarketInsidersDay]] as const) {
    for (const [day, ref] of Object.entries(days)) {
      const doc = await read(ref, schema);
      if (!doc) continue;
      const dayOf = (row: (typeof doc.data)[number]) => ("transaction_date" in row ? row.transaction_date : row.filed_at);
      if (doc.day !== day || doc.data.some((row) => dayOf(row) !== day)) findings.push(`cross-company: ${ref.key} holds ${feed} of another day than ${day}`);
      if (doc.data.length !== ref.rows) findings.push(`cross-company: ${ref.key} has ${doc.data.length} rows, the manifest counts ${ref.rows}`);
    }
  }
}

/**
 * A document as stored, checked against its schema; when the manifest states its content hash, a document that does
 * not have it is a finding of its own (then its content is checked as it is).
 */
async function readDocument(storage: Storage, key: string, kind: DocumentKind, sha256: string | null, finding: (text: string) => void) {
  const text = await readText(storage, key);
  if (text === null) return null;
  if (sha256 !== null) {
    let actual: string;
    try {
      actual = documentDigest(new TextEncoder().encode(text)).sha256;
    } catch (error) {
      actual = (error as Error).message;
    }
    if (actual !== sha256) finding(`${key} does not hold the content the manifest names (hash ${sha256}): it was changed after publishing`);
  }
  const parsed = DOCUMENT_SCHEMAS[kind].safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${key}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).slice(0, 3).join("; ")}`);
  return parsed.data;
}

/** The earnings series invariants over a published document (issue 14 "Enforced and audited"). */
function earningsFindings(ticker: string, doc: EarningsDocument, entry: ManifestTicker, findings: string[], warnings: string[]): void {
  seriesFindings(ticker, "earnings", "earnings periods", { findings, warnings }, {
    rows: doc.data,
    violations: checkInvariants(doc.data, METRIC_CONCEPTS),
    counts: countExceptions(doc.data),
    manifest: entry.earnings_exceptions,
    history: doc.history,
    read: (text) => EarningsHistory.parse(JSON.parse(text)),
    asOf: (row, history) => periodAsOf(row, history, LATEST, false),
  });
}

/** The statements' invariants over a published financials document (issue 18), as the earnings'. */
function financialsFindings(ticker: string, doc: FinancialsDocument, entry: ManifestTicker, findings: string[], warnings: string[]): void {
  seriesFindings(ticker, "financials", "financials rows", { findings, warnings }, {
    rows: doc.data,
    violations: checkFinancials(doc.data),
    counts: countExceptions(doc.data, FINANCIAL_INVARIANTS),
    manifest: entry.financials_exceptions,
    history: doc.history,
    read: (text) => expandHistory(StoredFinancialsHistory.parse(JSON.parse(text))),
    asOf: (row, history) => financialAsOf(row, history, LATEST, false),
  });
}

/**
 * A series document against its invariants: an unmarked violation is a finding, marked exceptions are one warning per
 * ticker; the history section must parse, align with the rows and read back, as of today, to the rows themselves; the
 * manifest's exception counts must be the document's.
 */
function seriesFindings<R extends { period_start: string; period_end: string }, H>(
  ticker: string,
  kind: string,
  what: string,
  out: { findings: string[]; warnings: string[] },
  doc: {
    rows: R[];
    violations: readonly { rule: string; marked: boolean; message: string }[];
    counts: Record<string, number>;
    manifest: Record<string, number> | undefined;
    history: string | undefined;
    read: (text: string) => H[];
    asOf: (row: R, history: H) => unknown;
  },
): void {
  for (const v of doc.violations) if (!v.marked) out.findings.push(`${ticker}: ${kind} invariant ${v.rule} broken and not marked: ${v.message}`);
  if (doc.counts.periods! > 0) {
    const rules = Object.entries(doc.counts).filter(([rule, n]) => rule !== "periods" && n > 0).map(([rule, n]) => `${rule} ${n}`);
    out.warnings.push(`${ticker}: ${doc.counts.periods} ${what} carry marked exceptions (${rules.join(", ")})`);
  }
  if (doc.manifest && JSON.stringify(doc.manifest) !== JSON.stringify(doc.counts)) {
    out.findings.push(`${ticker}: the manifest counts ${kind} exceptions ${JSON.stringify(doc.manifest)}, the document ${JSON.stringify(doc.counts)}`);
  }
  if (doc.history === undefined) return;
  let history: H[];
  try {
    history = doc.read(doc.history);
  } catch (error) {
    out.findings.push(`${ticker}: ${kind} history section unreadable: ${(error as Error).message.slice(0, 200)}`);
    return;
  }
  if (history.length !== doc.rows.length) {
    out.findings.push(`${ticker}: ${kind} history has ${history.length} entries for ${doc.rows.length} rows`);
    return;
  }
  const differs = doc.rows.findIndex((row, i) => JSON.stringify(doc.asOf(row, history[i]!)) !== JSON.stringify(row));
  if (differs >= 0) out.findings.push(`${ticker}: ${kind} row ${differs} (${doc.rows[differs]!.period_start}..${doc.rows[differs]!.period_end}) is not its history read as of today`);
}
