// One publish, whoever makes it (a build or the follower): the next manifest with its bookkeeping — the builds
// retention keeps, the documents it stopped referencing — written under the writer lease, current.json last.
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Storage } from "unstorage";
import type { Manifest } from "../../schemas/snapshot.ts";
import { manifestKey } from "../../storage/layout.ts";
import { acquireLease, type Lease, type LeaseRecord } from "../../storage/lease.ts";
import { GRACE_MS, buildHistory } from "./prune.ts";
import { idStartedAt, readPublished, referencedKeys, writePublished, type Published } from "./snapshot.ts";

/** The one lease every publisher of this store takes: builds for their publish, the follower while it runs. */
export const WRITER_LEASE = "writer";

/** Builds named in a manifest's `builds`, newest first. */
const BUILDS_KEPT = 20;

/** Who holds a lease: a role and a random id, so that the log and /probe say who writes. */
export function holderId(role: string): string {
  return `${role}-${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
}

/**
 * Publishes `next` after `base` (the manifest current.json names now, read under the lease): it records `base` as
 * its predecessor, lists builds for retention (a build adds itself), and keeps for a grace period the keys of the
 * documents `base` referenced and `next` does not.
 */
export async function publish(storage: Storage, lease: Lease, base: Manifest | null, next: Manifest, now: Date): Promise<Published> {
  const builds = base ? (base.builds ?? (await legacyBuilds(storage, base))) : [];
  const manifest: Manifest = {
    ...next,
    previous_build_id: base?.build_id ?? null,
    builds: next.kind === "build" ? [{ build_id: next.build_id, built_at: next.built_at }, ...builds].slice(0, BUILDS_KEPT) : builds,
    superseded: superseded(base, next, now),
  };
  return writePublished(storage, lease, manifest);
}

/**
 * A build's publish: takes the writer lease — asking a running follower to yield it — reads what is published now,
 * lets `compose` make the next manifest from it, publishes, and hands the lease back. `onWait` is told who holds it.
 */
export async function publishBuild(
  storage: Storage,
  options: { waitMs: number; now: () => Date; onWait?: (holder: LeaseRecord) => void; onUnreadable: (error: Error) => null },
  compose: (current: Published | null) => Promise<Manifest>,
): Promise<{ published: Published; lease: Lease }> {
  const lease = await acquireLease(storage, { name: WRITER_LEASE, holder: holderId("build"), role: "build", waitMs: options.waitMs, request: true, ttlMs: 60_000, ...(options.onWait ? { onWait: options.onWait } : {}) });
  lease.keepAlive(20_000);
  try {
    const current = await readPublished(storage).catch(options.onUnreadable);
    const next = await compose(current);
    return { published: await publish(storage, lease, current?.manifest ?? null, next, options.now()), lease };
  } catch (error) {
    await lease.release().catch(() => {});
    throw error;
  }
}

/**
 * The documents `base` referenced that `next` does not (and a follower's manifest it replaces), with when they were
 * dropped; older than the grace period, gone.
 */
function superseded(base: Manifest | null, next: Manifest, now: Date): Manifest["superseded"] {
  if (!base) return [];
  const keep = referencedKeys(next);
  const out = new Map<string, string>();
  for (const s of base.superseded ?? []) if (now.getTime() - Date.parse(s.at) < GRACE_MS && !keep.has(s.key)) out.set(s.key, s.at);
  for (const key of referencedKeys(base)) if (!keep.has(key) && !out.has(key)) out.set(key, now.toISOString());
  // A follower's manifest, which retention does not keep, stays as long: a gateway that read current.json just
  // before this publish may still be loading it.
  if (base.kind === "follow") out.set(manifestKey(base.build_id), now.toISOString());
  return [...out].map(([key, at]) => ({ key, at }));
}

/** `builds` for a manifest written before manifests listed them (every one of those was a build). */
async function legacyBuilds(storage: Storage, base: Manifest): Promise<NonNullable<Manifest["builds"]>> {
  const ids = (await buildHistory(storage, base)).slice(0, BUILDS_KEPT);
  return ids.map((build_id) => ({ build_id, built_at: build_id === base.build_id ? base.built_at : isoFromId(build_id) }));
}

function isoFromId(id: string): string {
  return new Date(idStartedAt(id) ?? 0).toISOString();
}
