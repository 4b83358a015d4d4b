// Where everything lives in the store (DESIGN "Storage and publishing"); the only module that builds keys.
import type { DocumentKind } from "../schemas/snapshot.ts";

/** The pointer to the published snapshot, written last by a build. */
export const CURRENT_KEY = "current.json";
/** Folder of all snapshots; each build writes `snapshots/<build_id>/…`. */
export const SNAPSHOTS_PREFIX = "snapshots";

/** A snapshot's folder. */
export function snapshotPrefix(buildId: string): string {
  return `${SNAPSHOTS_PREFIX}/${buildId}`;
}

/** A snapshot's manifest. */
export function manifestKey(buildId: string): string {
  return `${snapshotPrefix(buildId)}/manifest.json`;
}

/** One per-ticker document of a snapshot (tickers are validated to [A-Z0-9-], so they never name a path). */
export function documentKey(buildId: string, ticker: string, kind: DocumentKind): string {
  return `${snapshotPrefix(buildId)}/tickers/${ticker}/${kind}.json`;
}

/** The parsed Form 4 cache, by accession (a filed Form 4 never changes, so it is fetched once). */
export function form4CacheKey(accession: string): string {
  return `cache/form4/${accession}.json`;
}

/**
 * Subscription bookkeeping, by Stripe id: a checkout session's issued key, the claim of its one display
 * (`shown`), a subscription's link to its key, an event's claim. Ids are checked against Stripe's id alphabet by
 * the caller, so they never name a path.
 */
export function billingKey(kind: "sessions" | "shown" | "subscriptions" | "events", stripeId: string): string {
  return `billing/${kind}/${stripeId}.json`;
}

/** The operator's coverage report, beside the snapshot it describes. */
export function reportKey(buildId: string): string {
  return `${snapshotPrefix(buildId)}/report.html`;
}
