// Publishing, the only module that writes snapshots (builds and the follower alike): documents that changed, by
// reference to where they were first written otherwise; then the manifest; then current.json, last. A publish that
// fails or is killed never changes what current.json names.
import { randomBytes } from "node:crypto";
import type { Storage } from "unstorage";
import { CurrentPointer, DOCUMENT_KINDS, Manifest, type DocumentKind, type DocumentRef, type ManifestTicker } from "../../schemas/snapshot.ts";
import type { Lease } from "../../storage/lease.ts";
import { readJson, writeJson } from "../../storage/json.ts";
import { CURRENT_KEY, documentKey, documentKeyOf, manifestKey } from "../../storage/layout.ts";
import { documentDigest } from "./digest.ts";

/**
 * A new snapshot id: its start time to the second, then random hex (`20261123T101500Z-a1b2c3`); the follower's
 * incremental publishes say so (`20261123T101500Z-follow-a1b2c3`), which pruning relies on.
 */
export function newBuildId(at: Date, kind: "build" | "follow" = "build"): string {
  return `${at.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}-${kind === "follow" ? "follow-" : ""}${randomBytes(3).toString("hex")}`;
}

/** Whether a snapshot id is one of the follower's publishes. */
export function isFollowId(id: string): boolean {
  return /Z-follow-[0-9a-f]+$/.test(id);
}

/** When a build or publish started, to the second, from its id; null for an id of another shape. */
export function idStartedAt(id: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-/.exec(id);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : null;
}

/**
 * The kinds of a ticker's documents the follower wrote in a publish that began at or after `since` (ISO): its id
 * gives the second the publish began, before it read EDGAR, so an id of the very second of `since` counts too.
 */
export function followedSince(entry: ManifestTicker, since: string): DocumentKind[] {
  const from = Math.floor(Date.parse(since) / 1000) * 1000;
  return DOCUMENT_KINDS.filter((kind) => {
    const id = snapshotIdOf(entry.documents?.[kind]);
    const at = id !== null && isFollowId(id) ? idStartedAt(id) : null;
    return at !== null && at >= from;
  });
}

/** A ticker's documents validated and serialised (compute.ts `encode`): the bytes a publish may store. */
export type EncodedDocuments = { [K in DocumentKind]: Uint8Array };

/** A ticker's documents as a manifest names them. */
export type DocumentRefs = { [K in DocumentKind]?: DocumentRef };

/** The snapshot currently published, if any. */
export interface Published {
  pointer: CurrentPointer;
  manifest: Manifest;
}

/** Reads current.json and the manifest it names; null when nothing was published yet. */
export async function readPublished(storage: Storage): Promise<Published | null> {
  const pointer = await readJson(storage, CURRENT_KEY, CurrentPointer);
  if (!pointer) return null;
  const manifest = await readJson(storage, pointer.manifest, Manifest);
  if (!manifest) throw new Error(`${CURRENT_KEY} names ${pointer.manifest}, which does not exist`);
  return { pointer, manifest };
}

/**
 * A covered ticker's documents as `manifest` names them; for a manifest written before documents were referenced,
 * where they lie in its own folder, with no hash (so the next rebuild writes them once).
 */
export function refsOf(manifest: Manifest, ticker: string): DocumentRefs {
  const entry = manifest.tickers[ticker];
  if (!entry?.covered) return {};
  if (entry.documents) return entry.documents;
  return Object.fromEntries(DOCUMENT_KINDS.map((kind) => [kind, { key: documentKeyOf(manifest, ticker, kind), sha256: null, accepted_at: null }]));
}

/** Every document key a manifest references (what pruning must keep while the manifest may be read). */
export function referencedKeys(manifest: Manifest): Set<string> {
  const keys = new Set<string>();
  for (const ticker of Object.keys(manifest.tickers)) for (const ref of Object.values(refsOf(manifest, ticker))) keys.add(ref.key);
  for (const key of crossKeys(manifest.cross)) keys.add(key);
  return keys;
}

/** The keys of a manifest's cross-company documents. */
export function crossKeys(cross: Manifest["cross"]): string[] {
  if (!cross) return [];
  const screens = Object.values(cross.screens).flatMap((byMetric) => Object.values(byMetric).map((ref) => ref!.key));
  return [cross.index.key, ...screens, ...Object.values(cross.market_filings).map((r) => r.key), ...Object.values(cross.market_insiders).map((r) => r.key)];
}

/** Writes one publish's documents; nothing it writes is served until a manifest naming them is published. */
export class SnapshotWriter {
  readonly storage: Storage;
  readonly buildId: string;
  /** The manifest this publish follows: a document whose content it already names is referenced, not written. */
  readonly #base: Manifest | null;
  documentsWritten = 0;
  documentsReused = 0;

  constructor(storage: Storage, buildId: string, base: Manifest | null) {
    this.storage = storage;
    this.buildId = buildId;
    this.#base = base;
  }

  /**
   * Stores a company's documents (one CIK: its tickers share them) and returns their references: a document whose
   * content the base manifest names for the ticker keeps that key; another is written once, under the first ticker.
   * `accepted` gives acceptance times by accession (the company's filings), for what each document reflects.
   */
  async writeDocuments(tickers: string[], docs: Partial<EncodedDocuments>, accepted: Record<string, string>): Promise<DocumentRefs> {
    const before = this.#base ? refsOf(this.#base, tickers[0]!) : {};
    const refs: DocumentRefs = {};
    for (const kind of DOCUMENT_KINDS) {
      const bytes = docs[kind];
      if (!bytes) continue;
      const digest = documentDigest(bytes);
      const accepted_at = (digest.source_accession && accepted[digest.source_accession]) ?? null;
      const old = before[kind];
      if (old && old.sha256 === digest.sha256) {
        refs[kind] = { ...old, accepted_at: accepted_at ?? old.accepted_at };
        this.documentsReused++;
        continue;
      }
      const key = documentKey(this.buildId, tickers[0]!, kind);
      await this.storage.setItemRaw(key, bytes);
      this.documentsWritten++;
      refs[kind] = { key, sha256: digest.sha256, accepted_at };
    }
    return refs;
  }
}

/** A ticker's freshness fields that follow from its documents: when one last changed, the newest filing they reflect. */
export function refFreshness(refs: DocumentRefs, previous: ManifestTicker | undefined, builtAt: string, written: (ref: DocumentRef) => boolean) {
  const changed = Object.values(refs).some(written) ? builtAt : (previous?.freshness.changed_at ?? previous?.freshness.built_at ?? builtAt);
  return { changed_at: changed, newest_accepted_at: newestAccepted(refs) };
}

/** The acceptance time of the newest filing a ticker's documents reflect. */
export function newestAccepted(refs: DocumentRefs): string | null {
  const accepted = Object.values(refs).map((r) => r.accepted_at).filter((a): a is string => a !== null);
  return accepted.length ? accepted.reduce((a, b) => (b > a ? b : a)) : null;
}

/** The snapshot a document was written in (storage/layout.ts `documentKey`: snapshots/<id>/tickers/…). */
function snapshotIdOf(ref: DocumentRef | undefined): string | null {
  return ref?.key.split("/")[1] ?? null;
}

/** Writes the manifest, then current.json — last, in one atomic object write — while `lease` is surely held. */
export async function writePublished(storage: Storage, lease: Lease, manifest: Manifest): Promise<Published> {
  await lease.assertHeld();
  const key = manifestKey(manifest.build_id);
  await writeJson(storage, key, Manifest, manifest);
  const pointer: CurrentPointer = { build_id: manifest.build_id, built_at: manifest.built_at, manifest: key };
  await lease.assertHeld();
  await writeJson(storage, CURRENT_KEY, CurrentPointer, pointer);
  return { pointer, manifest };
}
