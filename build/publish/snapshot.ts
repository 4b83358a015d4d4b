// Publishing, the only module that writes snapshots: per-ticker documents, the manifest, then current.json
// last; old snapshots pruned after. A build that fails or is killed never changes what current.json names.
import type { Storage } from "unstorage";
import { CurrentPointer, DOCUMENT_KINDS, LATER_KINDS, Manifest, type DocumentKind } from "../../schemas/snapshot.ts";
import { readJson, readText, writeJson } from "../../storage/json.ts";
import { CURRENT_KEY, documentKey, manifestKey, snapshotPrefix, SNAPSHOTS_PREFIX } from "../../storage/layout.ts";
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
 * A folder without a published manifest is left alone until its build started longer ago than this: it may be a
 * build still running (a first build from live EDGAR fetches for many hours), or one that was killed.
 */
export const UNPUBLISHED_SAFE_AGE_MS = 7 * 86_400_000;

/**
 * Deletes published snapshots beyond the newest `retention` (the current one counts as the first) and folders that
 * were never published once they are older than UNPUBLISHED_SAFE_AGE_MS. "Published" is the history of
 * current.json: the current snapshot, then back through each manifest's `previous_build_id`. A folder a killed
 * build left (documents and no manifest, or a manifest it never pointed current.json at) is not in that history,
 * so it never counts toward retention and never pushes a published snapshot out.
 */
export async function pruneSnapshots(storage: Storage, retention: number, current: string, now: Date): Promise<string[]> {
  const keys = await storage.getKeys(SNAPSHOTS_PREFIX);
  const folders = new Set(keys.map((k) => k.split(":")[1]!));
  const manifests = new Set(keys.filter((k) => k.endsWith(":manifest.json") && k.split(":").length === 3).map((k) => k.split(":")[1]!));
  const published = await publishedHistory(storage, current, manifests);
  const kept = new Set(published.slice(0, Math.max(1, retention)));
  kept.add(current);
  const doomed = [...folders]
    .filter((id) => !kept.has(id) && (published.includes(id) || now.getTime() - startedAt(id) > UNPUBLISHED_SAFE_AGE_MS))
    .sort();
  for (const id of doomed) await removePrefix(storage, snapshotPrefix(id));
  return doomed;
}

/** The snapshots current.json has named, newest first, from `current` back through `previous_build_id`. */
async function publishedHistory(storage: Storage, current: string, manifests: Set<string>): Promise<string[]> {
  const history: string[] = [];
  for (let id: string | null = current; id !== null && manifests.has(id) && !history.includes(id); ) {
    history.push(id);
    const manifest: Manifest | null = await readJson(storage, manifestKey(id), Manifest);
    if (manifest?.previous_build_id === undefined) {
      // Written before manifests named their predecessor: every older folder with a manifest was published then.
      history.push(...[...manifests].filter((older) => older < id!).sort().reverse());
      break;
    }
    id = manifest.previous_build_id;
  }
  return history;
}

/** When a build started, from its id (`20260701T120000Z-a1b2c3`); an id of another shape is never "old". */
function startedAt(buildId: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-/.exec(buildId);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : Infinity;
}
