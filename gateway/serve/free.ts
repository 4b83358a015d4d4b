// The free routes' answers, for the HTTP routes and the MCP tools alike: each free route of the table answers here
// once, so a free route given a `tool` in schemas/api.ts is an MCP tool with no code of its own.
import type { RouteEntry } from "../../schemas/api.ts";
import type { Meta } from "../../schemas/envelope.ts";
import { isoNow } from "./clock.ts";
import { envelopeOf } from "./envelope.ts";
import { healthPayload, serviceProbe, tickerProbe } from "./probe.ts";
import type { PaymentCore } from "../payment/core.ts";
import type { PaidDeps } from "./paid.ts";
import type { LoadedSnapshot, SnapshotStore } from "./snapshot.ts";
import { coveredTickers, type TickersPage } from "./tickers.ts";

/** A route of the table that is not paid. */
export type FreeRoute = Extract<RouteEntry, { price: null }>;

/** A free route's validated query: a ticker (/probe), or a page (/tickers). */
export type FreeQuery = { ticker?: string } & TickersPage;

type Answer = (query: FreeQuery, snapshots: SnapshotStore, payments: PaymentCore) => Promise<string>;

const ANSWERS: Record<FreeRoute["path"], Answer> = {
  // Health reads memory only: what is held, or that nothing is; and whether keys are read fresh.
  "/health": async (_query, snapshots, payments) => envelopeOf(healthPayload(snapshots.held, payments.keysStaleSince()), meta("hit")),
  "/probe": async (query, snapshots) => {
    const { snapshot, cache } = await readSnapshot(snapshots);
    const data = query.ticker ? tickerProbe(snapshot, query.ticker, snapshots.writer) : serviceProbe(snapshot, snapshots.writer);
    return envelopeOf(data, snapshotMeta(snapshot, cache));
  },
  "/tickers": async (query, snapshots) => {
    const { snapshot, cache } = await readSnapshot(snapshots);
    const { data, paging } = coveredTickers(snapshot, query);
    return envelopeOf(data, { ...snapshotMeta(snapshot, cache), ...paging });
  },
};

/** A free route's envelope `{data, meta}` as JSON text, for a query already validated against the route's schema. */
export function freeAnswer(route: FreeRoute, query: FreeQuery, deps: PaidDeps): Promise<string> {
  return ANSWERS[route.path](query, deps.snapshots, deps.payments);
}

/** The snapshot served, and whether memory held it ("hit") or this call read it from storage ("miss"). */
export async function readSnapshot(snapshots: SnapshotStore): Promise<{ snapshot: LoadedSnapshot; cache: Meta["cache"] }> {
  const cache = snapshots.held ? "hit" : "miss";
  return { snapshot: await snapshots.current(), cache };
}

function meta(cache: Meta["cache"]): Meta {
  return { retrieved_at: isoNow(), cache };
}

/** The meta of an answer read from a snapshot: which one, and when it was built. */
function snapshotMeta(snapshot: LoadedSnapshot, cache: Meta["cache"]): Meta {
  return { ...meta(cache), built_at: snapshot.pointer.built_at, snapshot: snapshot.pointer.build_id };
}
