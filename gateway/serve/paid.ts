// The paid pipeline shared by the HTTP routes and the MCP tools: snapshot → coverage (404 before any payment) →
// payment (the core: key or x402) → document → filtered envelope → settlement for an answer with data.
import type { TickerRoute } from "../../schemas/api.ts";
import type { CrossView } from "./cross.ts";
import { paidAnswer } from "./answer.ts";
import { isoNow } from "./clock.ts";
import { requireCoverage } from "./coverage.ts";
import type { FilterQuery } from "./filters.ts";
import type { CallRecord } from "../payment/call-record.ts";
import type { Credentials, PaidOutcome, PaymentCore } from "../payment/core.ts";
import type { Transport } from "../payment/offers.ts";
import { trustedKey } from "../payment/http.ts";
import type { PreparedDocument } from "./document.ts";
import type { LoadedSnapshot, SnapshotStore } from "./snapshot.ts";

/** A paid route's validated query. */
export type PaidQuery = FilterQuery & { ticker: string };

/** What the pipeline needs. */
export interface PaidDeps {
  snapshots: SnapshotStore;
  payments: PaymentCore;
  /** The cross-company answers' data (issue 40). */
  cross: CrossView;
}

/** Serves one paid request whichever way it came; throws ApiError or PaymentRefusal instead of answering. */
export async function servePaid(deps: PaidDeps, route: TickerRoute, query: PaidQuery, transport: Transport, credentials: Credentials): Promise<PaidOutcome> {
  const snapshot = await deps.snapshots.current();
  requireCoverage(deps.snapshots.ticker(snapshot, query.ticker), query.ticker);
  if (credentials.record) credentials.record.snapshot = snapshot.pointer.build_id;
  const request = `${route.path} ${canonical(query)}`;
  return deps.payments.charge({ route, transport, request, credentials }, async () => {
    const { doc, cache } = await deps.snapshots.document(snapshot, query.ticker, route.document);
    return paidAnswer(doc, cache, snapshot, route, query, isoNow());
  });
}

/**
 * The usual call's document, found without a promise (every await is a trip through the microtask queue): the
 * snapshot held, the ticker covered (404 otherwise), a key verified moments ago, the document in memory. Null when
 * any of that is missing, and the caller takes servePaid; both transports answer their usual keyed call so, and note
 * it in the call's record.
 */
export function heldDocument(
  deps: PaidDeps,
  route: TickerRoute,
  query: PaidQuery,
  headers: Headers,
  now: number,
  record: CallRecord | null,
): { doc: PreparedDocument; snapshot: LoadedSnapshot } | null {
  const snapshot = deps.snapshots.held;
  if (!snapshot) return null;
  requireCoverage(deps.snapshots.ticker(snapshot, query.ticker), query.ticker);
  const keyId = trustedKey(deps.payments, headers, now);
  if (keyId === null) return null;
  const doc = deps.snapshots.cached(snapshot, query.ticker, route.document);
  if (!doc) return null;
  record?.keyed(keyId, snapshot.pointer.build_id);
  return { doc, snapshot };
}

const CANONICAL = new WeakMap<PaidQuery, string>();

/**
 * The query as one string, keys sorted: the same question however it was asked (HTTP query or tool arguments).
 * Made once per query object (the query readers hand out the same object for the same question).
 */
function canonical(query: PaidQuery): string {
  let text = CANONICAL.get(query);
  if (text === undefined) CANONICAL.set(query, (text = JSON.stringify(Object.fromEntries(Object.entries(query).sort(([a], [b]) => a.localeCompare(b))))));
  return text;
}
