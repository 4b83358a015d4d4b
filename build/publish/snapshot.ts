// Publishing, the only module that writes snapshots: per-ticker documents, the manifest, then current.json
// last; old snapshots pruned after. A build that fails or is killed never changes what current.json names.
import type { Storage } from "unstorage";
import { CurrentPointer, DOCUMENT_KINDS, LATER_KINDS, Manifest, type DocumentKind } from "../../schemas/snapshot.ts";
import { readJson, readText, writeJson } from "../../storage/json.ts";
import { CURRENT_KEY, documentKey, manifestKey, SNAPSHOTS_PREFIX } from "../../storage/layout.ts";
import { removePrefix } from "../../storage/remove.ts";

/** A ticker's documents validated and serialised (compute.ts `encode`): the bytes the snapshot stores. */
export type EncodedDocuments = { [K in DocumentKind]: Uint8Array };

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

/** Writes one snapshot; nothing it writes is served until `publish` writes current.json. */
export class SnapshotWriter {
  readonly storage: Storage;
  readonly buildId: string;
  documentsWritten = 0;

  constructor(storage: Storage, buildId: string) {
    this.storage = storage;
    this.buildId = buildId;
  }

  /** Writes a ticker's encoded documents (the same documents for every ticker of one CIK). */
  async writeDocuments(tickers: string[], docs: EncodedDocuments): Promise<void> {
    for (const kind of DOCUMENT_KINDS) {
      for (const ticker of tickers) await this.storage.setItemRaw(documentKey(this.buildId, ticker, kind), docs[kind]);
      this.documentsWritten += tickers.length;
    }
  }

  /** Copies a ticker's documents from an earlier snapshot (its source failed in this build); false if any is gone. */
  async copyDocuments(ticker: string, fromBuildId: string): Promise<boolean> {
    const copies: [DocumentKind, string][] = [];
    for (const kind of DOCUMENT_KINDS) {
      const text = await readText(this.storage, documentKey(fromBuildId, ticker, kind));
      if (text === null && LATER_KINDS.has(kind)) continue; // a snapshot from before that kind existed
      if (text === null) return false;
      copies.push([kind, text]);
    }
    for (const [kind, text] of copies) {
      await this.storage.setItemRaw(documentKey(this.buildId, ticker, kind), new TextEncoder().encode(text));
      this.documentsWritten++;
    }
    return true;
  }

  /** Writes the manifest, then current.json — last, in one atomic object write. */
  async publish(manifest: Manifest): Promise<CurrentPointer> {
    await writeJson(this.storage, manifestKey(this.buildId), Manifest, manifest);
    const pointer: CurrentPointer = { build_id: this.buildId, built_at: manifest.built_at, manifest: manifestKey(this.buildId) };
    await writeJson(this.storage, CURRENT_KEY, CurrentPointer, pointer);
    return pointer;
  }
}

/**
 * Deletes snapshots beyond the newest `retention`, never the current one nor one a kept ticker still
 * reads from. Build ids sort by time, so "newest" is the lexical order; unfinished snapshots go too.
 */
export async function pruneSnapshots(storage: Storage, retention: number, keep: Set<string>): Promise<string[]> {
  const ids = [...new Set((await storage.getKeys(SNAPSHOTS_PREFIX)).map((k) => k.split(":")[1]!))].sort().reverse();
  const doomed = ids.slice(Math.max(1, retention)).filter((id) => !keep.has(id));
  for (const id of doomed) await removePrefix(storage, `${SNAPSHOTS_PREFIX}/${id}`);
  return doomed;
}
