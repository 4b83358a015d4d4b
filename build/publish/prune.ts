// Pruning: removes what no reader can need any more. Kept: every document the current manifest or a retained
// build's manifest references, documents and follower's manifests a publish dropped less than a grace period ago (a
// gateway may still hold or be loading the older manifest), and every folder of a build that may still be running
// (its building marker, or no manifest yet, for up to seven days). The follower publishes under the writer lease, which pruning also holds, so nothing of
// it is ever half-written when pruning runs. Temp files a killed writer left are removed once no writer can be renaming them.
import pLimit from "p-limit";
import type { Storage } from "unstorage";
import { Manifest } from "../../schemas/snapshot.ts";
import { readJson } from "../../storage/json.ts";
import { buildingKey, manifestKey, snapshotPrefix, SNAPSHOTS_PREFIX } from "../../storage/layout.ts";
import { removePrefix } from "../../storage/remove.ts";
import { removeTemporaries } from "../../storage/temporaries.ts";
import { idStartedAt, isFollowId, referencedKeys } from "./snapshot.ts";

/**
 * A build's folder is left alone until its build started longer ago than this: it may be a build still running (a
 * first build from live EDGAR fetches for many hours), or one that was killed.
 */
export const UNPUBLISHED_SAFE_AGE_MS = 7 * 86_400_000;

/** How long a document dropped from the manifest stays readable (gateways poll current.json every few seconds). */
export const GRACE_MS = 15 * 60_000;

/**
 * A temp file (written before an atomic rename) is removed once it was last written longer ago than this. Writers
 * that do not hold the writer lease write too — builds write documents and the Form 4 cache, gateways billing keys —
 * and each renames its temp file the moment its last byte is written: an hour is beyond any stall of a live one.
 */
export const TEMPORARY_SAFE_AGE_MS = 60 * 60_000;

/** What pruning removed: snapshots no longer readable as a whole (their manifest or whole folder), document count, temp files. */
export interface PruneOutcome {
  snapshots: string[];
  documents: number;
  temporaries: number;
}

/**
 * Keeps the newest `retention` builds of `current.builds` readable (the current snapshot always), and every
 * document a kept manifest references; removes every other manifest and document, and temp files older than
 * TEMPORARY_SAFE_AGE_MS. Called under the writer lease.
 */
export async function pruneStore(storage: Storage, current: Manifest, options: { retention: number; now: Date }): Promise<PruneOutcome> {
  const now = options.now.getTime();
  const folders = new Map<string, string[]>();
  for (const key of await storage.getKeys(SNAPSHOTS_PREFIX)) {
    const id = key.split(":")[1]!;
    folders.set(id, [...(folders.get(id) ?? []), key]);
  }
  const history = await buildHistory(storage, current);
  const kept = new Set([current.build_id, ...history.slice(0, Math.max(1, options.retention))]);
  const protect = new Set<string>();
  const add = (keys: Iterable<string>) => {
    for (const key of keys) protect.add(asStoreKey(key));
  };
  add(referencedKeys(current));
  for (const id of kept) {
    if (id === current.build_id || !folders.get(id)?.includes(asStoreKey(manifestKey(id)))) continue;
    const manifest = await readJson(storage, manifestKey(id), Manifest).catch(() => null);
    if (manifest) add(referencedKeys(manifest));
  }
  add((current.superseded ?? []).filter((s) => now - Date.parse(s.at) < GRACE_MS).map((s) => s.key));

  const outcome: PruneOutcome = { snapshots: [], documents: 0, temporaries: 0 };
  const limit = pLimit(8);
  const removals: Promise<void>[] = [];
  for (const [id, keys] of [...folders].sort(([a], [b]) => (a < b ? -1 : 1))) {
    // A build may still be running: its marker says so (a build before markers: a folder without a manifest that
    // was never published). The follower publishes at once, under the lease that pruning holds too.
    const running = keys.includes(asStoreKey(buildingKey(id))) || (!keys.includes(asStoreKey(manifestKey(id))) && !history.includes(id) && !isFollowId(id));
    // An id of another shape is never old enough.
    if (running && now - (idStartedAt(id) ?? Infinity) < UNPUBLISHED_SAFE_AGE_MS) continue;
    const doomed = keys.filter((key) => !protect.has(key) && (isDocument(key) || !kept.has(id)));
    if (!doomed.length) continue;
    if (doomed.includes(asStoreKey(manifestKey(id))) || doomed.length === keys.length) outcome.snapshots.push(id);
    outcome.documents += doomed.filter(isDocument).length;
    if (doomed.length === keys.length) removals.push(limit(() => removePrefix(storage, snapshotPrefix(id))));
    else for (const key of doomed) removals.push(limit(() => storage.removeItem(key)));
  }
  await Promise.all(removals);
  // A killed writer's temp files, anywhere in the store (issue 39): a kept folder may hold them too.
  outcome.temporaries = await removeTemporaries(storage, new Date(now - TEMPORARY_SAFE_AGE_MS));
  return outcome;
}

/**
 * The builds published so far, newest first: `builds` of the manifest, or for one written before manifests listed
 * them, the history of current.json (each manifest naming its predecessor; before that, every older manifest).
 */
export async function buildHistory(storage: Storage, manifest: Manifest): Promise<string[]> {
  if (manifest.builds) return manifest.builds.map((b) => b.build_id);
  const history: string[] = [];
  for (let m: Manifest | null = manifest; m && !history.includes(m.build_id); ) {
    history.push(m.build_id);
    if (m.previous_build_id === undefined) {
      // Written before manifests named their predecessor: every older folder with a manifest was published then.
      const manifests = (await storage.getKeys(SNAPSHOTS_PREFIX)).filter((k) => k.endsWith(":manifest.json") && k.split(":").length === 3);
      const at: string = m.build_id;
      history.push(...manifests.map((k) => k.split(":")[1]!).filter((older) => older < at).sort().reverse());
      break;
    }
    m = m.previous_build_id === null ? null : await readJson(storage, manifestKey(m.previous_build_id), Manifest).catch(() => null);
  }
  return history;
}

/** A per-ticker or cross-company document: a later manifest may still name it where its folder is gone otherwise. */
function isDocument(key: string): boolean {
  const part = key.split(":")[2];
  return part === "tickers" || part === "cross";
}

function asStoreKey(key: string): string {
  return key.replace(/\//g, ":");
}
