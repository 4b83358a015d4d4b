// The XBRL of a company's periodic reports for /segments (issue 43.3): each inline filing's primary document, else
// the instance EDGAR extracts beside it, read once — its segment facts cached in the store by accession, as parsed
// Form 4s are — and the member labels of its newest filing's label linkbase. A filing that cannot be read is named,
// never the company's failure.
import type { Storage } from "unstorage";
import { z } from "zod";
import { FilingItem } from "../../schemas/filing.ts";
import { SegmentFiling } from "../../schemas/segments.ts";
import type { ManifestTicker } from "../../schemas/snapshot.ts";
import { readJson, writeJson } from "../../storage/json.ts";
import { segmentCacheKey, segmentPageCacheKey } from "../../storage/layout.ts";
import { EdgarParseError } from "../errors.ts";
import { PERIODIC_FORM } from "../forms.ts";
import type { LabelledPeriod } from "../derive/segments.ts";
import { extractedInstancePath, filerFolderPath, filingDocumentPath, filingFolderPath, labelLinkbasePath, submissionsPagePath } from "../sources/paths.ts";
import { SourceNotFoundError, textIfFound, type Source } from "../sources/source.ts";
import type { Compute } from "./compute.ts";
import type { UnreadPage } from "./documents.ts";
import type { XbrlKind } from "./segment-documents.ts";

/** The segments document of a company and what reading its filings found (ManifestTicker.segments). */
export interface SegmentsMade {
  bytes: Uint8Array;
  rows: number;
  stats: NonNullable<ManifestTicker["segments"]>;
}

/** What reading a company's segments needs of its build. */
export interface SegmentsContext {
  source: Source;
  storage: Storage;
  compute: Pick<Compute, "segmentFiling" | "memberLabels" | "segments" | "periodicPage">;
  builtAt: string;
  segmentsSince?: string | undefined;
}

/** The cache of an older page: its periodic reports with inline XBRL, or null where the source does not have it. */
const CachedPage = z.object({ reports: z.array(FilingItem).nullable() });

/**
 * Reads the company's periodic reports' XBRL (loadSegmentFilings) — those its filings document lists (`groups`) and
 * those of the older submissions pages it does not read (`pages`) — and makes its segments document, labelled by its
 * earnings' periods (`periods`).
 */
export async function makeSegments(ctx: SegmentsContext, cik: number, groups: readonly PeriodicFilings[], pages: readonly UnreadPage[], periods: readonly LabelledPeriod[]): Promise<SegmentsMade> {
  const older = await periodicFromPages(ctx, pages);
  const { filings, ...load } = await loadSegmentFilings(ctx, [...groups, ...older.groups]);
  const made = await ctx.compute.segments(filings, periods, { source_api: ctx.source.describe(filerFolderPath(cik)), built_at: ctx.builtAt });
  return { bytes: made.bytes, rows: made.rows, stats: { ...load, unlabelled: made.unlabelled, ...(older.unread.length ? { unread_pages: older.unread } : {}) } };
}

/**
 * The periodic reports of the older submissions pages the filings document did not read (documents.ts UnreadPage):
 * each page read once and what it holds cached by its name and span — a page the source lacks too (EDGAR serves every
 * page its main file names: only a mirror lacks one), so it is not asked for at every build. A page the source lacks,
 * or that cannot be read (tried again next build), is named (`unread`), never the company's failure.
 */
async function periodicFromPages(ctx: SegmentsContext, pages: readonly UnreadPage[]): Promise<{ groups: PeriodicFilings[]; unread: string[] }> {
  const groups: PeriodicFilings[] = [];
  const unread: string[] = [];
  for (const page of pages) {
    const key = segmentPageCacheKey(page.name, page.filing_from, page.filing_to);
    let cached = await readJson(ctx.storage, key, CachedPage).catch(() => null);
    if (!cached) {
      const path = submissionsPagePath(page.name);
      const text = await textIfFound(ctx.source, path);
      try {
        cached = { reports: text === null ? null : await ctx.compute.periodicPage(text, page.cik, { path }) };
        await writeJson(ctx.storage, key, CachedPage, cached);
      } catch (error) {
        if (!(error instanceof EdgarParseError)) throw error;
      }
    }
    if (cached?.reports) groups.push({ cik: page.cik, filings: cached.reports });
    else unread.push(page.name);
  }
  return { groups, unread };
}

/** How many of the newest filings with segments are tried for a label linkbase before names fall back to QNames. */
const LABEL_TRIES = 3;
/**
 * A filing whose XBRL the source lacks this long after it was filed never gets it (EDGAR publishes a filing's documents
 * with it): the miss is cached, so later builds do not ask again. A newer one is asked again next time.
 */
const SETTLED_DAYS = 7;

/** What loading a company's segment filings found, for the manifest (ManifestTicker.segments, without `unlabelled`). */
export type SegmentLoad = Omit<NonNullable<ManifestTicker["segments"]>, "unlabelled"> & { filings: SegmentFiling[] };

/** A company's periodic reports, by the CIK whose folder holds them (its own, or a predecessor's). */
export interface PeriodicFilings {
  cik: number;
  filings: readonly FilingItem[];
}

/**
 * Every inline XBRL periodic report of the company (10-K, 10-Q and their amendments; filed on or after `segmentsSince`
 * when given): from the cache, else fetched — the inline primary document, or on a 404 the extracted instance — and
 * parsed (compute), then cached. A filing the source has in neither form is `missing` (cached as such once settled: see
 * SETTLED_DAYS); one whose XBRL cannot be read is `unreadable` with why, and is tried again by the next build. Source
 * errors other than 404 propagate (the company fails, as for Form 4s).
 */
export async function loadSegmentFilings(ctx: SegmentsContext, groups: readonly PeriodicFilings[]): Promise<SegmentLoad> {
  const { source, storage, compute } = ctx;
  const out: SegmentLoad = { filings: [], cached: 0, fetched: 0, missing: [], unreadable: [] };
  const folders = new Map<string, string>();
  const wanted = new Map<string, { cik: number; filing: FilingItem }>();
  const settled = new Date(Date.parse(ctx.builtAt) - SETTLED_DAYS * 86_400_000).toISOString().slice(0, 10);
  for (const group of groups) {
    for (const filing of group.filings) {
      if (!filing.is_inline_xbrl || !filing.primary_document || !PERIODIC_FORM.test(filing.form.toUpperCase()) || !/\.html?$/i.test(filing.primary_document)) continue;
      if (ctx.segmentsSince !== undefined && filing.filed_at < ctx.segmentsSince) continue;
      if (!wanted.has(filing.accession_number)) wanted.set(filing.accession_number, { cik: group.cik, filing });
    }
  }
  await Promise.all(
    [...wanted.values()].map(async ({ cik, filing }) => {
      const key = segmentCacheKey(filing.accession_number);
      const folder = filingFolderPath(cik, filing.accession_number);
      folders.set(filing.accession_number, folder);
      const meta = { accession: filing.accession_number, form: filing.form, filed_at: filing.filed_at };
      const cached = await readJson(storage, key, SegmentFiling).catch(() => null);
      if (cached) {
        out.cached++;
        if (cached.document === null) out.missing.push(filing.accession_number);
        else out.filings.push(cached);
        return;
      }
      const found = await fetchXbrl(source, filingDocumentPath(folder, filing.primary_document!));
      if (found === null) {
        out.missing.push(filing.accession_number);
        if (filing.filed_at <= settled) await writeJson(storage, key, SegmentFiling, { ...meta, document: null, schema: null, facts: [], totals: [] });
        return;
      }
      out.fetched++;
      try {
        const parsed = await compute.segmentFiling(found.text, found.kind, { ...meta, document: found.path });
        await writeJson(storage, key, SegmentFiling, parsed);
        out.filings.push(parsed);
      } catch (error) {
        if (!(error instanceof EdgarParseError)) throw error;
        out.unreadable.push({ accession: filing.accession_number, reason: error.message });
      }
    }),
  );
  await addLabels(source, storage, compute, out.filings, folders);
  out.missing.sort();
  out.unreadable.sort((a, b) => (a.accession < b.accession ? -1 : 1));
  out.filings.sort((a, b) => (a.filed_at < b.filed_at ? -1 : a.filed_at > b.filed_at ? 1 : a.accession < b.accession ? -1 : 1));
  return out;
}

/** The inline document, or (not there) the extracted instance; null when the source has neither. */
async function fetchXbrl(source: Source, primary: string): Promise<{ text: string; kind: XbrlKind; path: string } | null> {
  try {
    return { text: await source.getText(primary), kind: "inline", path: primary };
  } catch (error) {
    if (!(error instanceof SourceNotFoundError)) throw error;
  }
  const instance = extractedInstancePath(primary);
  const text = await textIfFound(source, instance);
  return text === null ? null : { text, kind: "instance", path: instance };
}

/**
 * Member names for the segments (issue 43.1 "as a reader would say it"): the label linkbase of the newest filing with
 * segment facts, else of the next newest (at most LABEL_TRIES), read once and kept in that filing's cache entry (`labels`:
 * null where the source has none). Filings already labelled are not read again.
 */
async function addLabels(source: Source, storage: Storage, compute: Pick<Compute, "memberLabels">, filings: SegmentFiling[], folders: ReadonlyMap<string, string>): Promise<void> {
  const newest = filings
    .filter((f) => f.facts.length > 0 && f.schema !== null)
    .sort((a, b) => (a.filed_at < b.filed_at ? 1 : a.filed_at > b.filed_at ? -1 : a.accession < b.accession ? 1 : -1))
    .slice(0, LABEL_TRIES);
  for (const filing of newest) {
    if (filing.labels) return;
    if (filing.labels === null) continue;
    const folder = folders.get(filing.accession)!;
    let path: string;
    try {
      path = labelLinkbasePath(folder, filing.schema!);
    } catch {
      filing.labels = null;
      continue;
    }
    const text = await textIfFound(source, path);
    try {
      filing.labels = text === null ? null : await compute.memberLabels(text, { accession: filing.accession, path });
    } catch (error) {
      if (!(error instanceof EdgarParseError)) throw error;
      filing.labels = null;
    }
    await writeJson(storage, segmentCacheKey(filing.accession), SegmentFiling, filing);
    if (filing.labels) return;
  }
}
