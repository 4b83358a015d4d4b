// Where everything lives in the store (DESIGN "Storage and publishing"); the only module that builds keys.
import type { DocumentKind, Manifest } from "../schemas/snapshot.ts";

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

/**
 * Where a publish writes a per-ticker document (tickers are validated to [A-Z0-9-], so they never name a path).
 * Later publishes refer to it there for as long as its content does not change.
 */
export function documentKey(buildId: string, ticker: string, kind: DocumentKind): string {
  return `${snapshotPrefix(buildId)}/tickers/${ticker}/${kind}.json`;
}

/** The key a manifest names for a ticker's document (before incremental publishing: in the manifest's own folder). */
export function documentKeyOf(manifest: Manifest, ticker: string, kind: DocumentKind): string {
  return manifest.tickers[ticker]?.documents?.[kind]?.key ?? documentKey(manifest.build_id, ticker, kind);
}

/** A build's cross-company documents (issue 40): a screen by frame and metric, a market feed's day, their index. */
export function crossKey(buildId: string, part: { screen: [frame: string, metric: string] } | { feed: "filings" | "insiders"; day: string } | "index"): string {
  const at = `${snapshotPrefix(buildId)}/cross`;
  if (part === "index") return `${at}/index.json`;
  return "screen" in part ? `${at}/screens/${part.screen[0]}/${part.screen[1]}.json` : `${at}/${part.feed}/${part.day}.json`;
}

/** Marks a build's folder while it runs, so that pruning leaves documents it has written and not yet published. */
export function buildingKey(buildId: string): string {
  return `${snapshotPrefix(buildId)}/building.json`;
}

/** A lease's generations (`leases/<name>/<generation>.json`): the highest one is the lease (storage/lease.ts). */
export function leasePrefix(name: string): string {
  return `leases/${name}`;
}

/** One generation of a lease, created only if absent; zero-padded so that keys sort as numbers. */
export function leaseKey(name: string, generation: number): string {
  return `${leasePrefix(name)}/${String(generation).padStart(12, "0")}.json`;
}

/** A request for a lease, left by a writer that wants it from its holder (a build, from the follower). */
export function leaseWantedKey(name: string): string {
  return `leases/${name}-wanted.json`;
}

/** Processes sharing SEC's request budget announce themselves here (build/sources/budget.ts). */
export const BUDGET_PREFIX = "budget";

/** One process's claim on the shared request budget. */
export function budgetKey(id: string): string {
  return `${BUDGET_PREFIX}/${id}.json`;
}

/** The parsed Form 4 cache, by accession (a filed Form 4 never changes, so it is fetched once). */
export function form4CacheKey(accession: string): string {
  return `cache/form4/${accession}.json`;
}

/**
 * The parsed segment facts of a periodic report, by accession (issue 43.3: a filing's XBRL is fetched and parsed once).
 * The version names what is read from a filing: it changes when that does, and the cache is read anew.
 */
export function segmentCacheKey(accession: string): string {
  return `cache/segments/v1/${accession}.json`;
}

/**
 * An older submissions page's periodic reports, by the page's name and the span the main file gives it (a page EDGAR
 * made again over other filings is another key).
 */
export function segmentPageCacheKey(name: string, from: string | null, to: string | null): string {
  return `cache/segments/v1/pages/${name.replace(/\.json$/, "")}-${from ?? "x"}-${to ?? "x"}.json`;
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
