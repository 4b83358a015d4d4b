// The paid answers across companies (issue 40) — /screen, /market/insiders, /market/filings — for HTTP and MCP alike:
// the cross-company data the build published (cross.ts) filtered, ordered and paged, in the envelope with `total` and
// `next_offset`. Parameters are checked before any payment; an empty page is not charged.
import type { FeedRoute } from "../../schemas/api.ts";
import type { MarketFiling, MarketInsider } from "../../schemas/cross.ts";
import { LATEST } from "../../schemas/earnings-history.ts";
import type { Meta } from "../../schemas/envelope.ts";
import { MARKET_FILINGS_DAYS, MARKET_INSIDERS_DAYS, MARKET_INSIDERS_DEFAULT_DAYS, type MarketFilingsQuery, type MarketInsidersQuery, type ScreenQuery } from "../../schemas/params.ts";
import type { z } from "zod";
import { ApiError } from "../http/errors.ts";
import type { CallRecord } from "../payment/call-record.ts";
import type { Credentials, PaidOutcome } from "../payment/core.ts";
import { trustedKey } from "../payment/http.ts";
import type { Transport } from "../payment/offers.ts";
import { isoAt, isoNow } from "./clock.ts";
import type { Ranked } from "./cross.ts";
import type { Answer } from "./document.ts";
import { envelopeBytes, envelopeParts, type Parts } from "./envelope.ts";
import type { PaidDeps } from "./paid.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

/** A feed route's validated query. */
export type FeedQuery = z.output<typeof ScreenQuery> | z.output<typeof MarketFilingsQuery> | z.output<typeof MarketInsidersQuery>;


/** Answers made, by snapshot and question: the usual repeated call is answered from memory, without a promise. */
const MADE = new WeakMap<LoadedSnapshot, Map<string, { answer: Answer; tails: Record<Meta["cache"], Buffer> }>>();
/** Distinct questions remembered per snapshot. */
const MADE_PER_SNAPSHOT = 256;

/** Serves one paid cross-company request whichever way it came; throws ApiError or PaymentRefusal instead of answering. */
export async function serveFeed(deps: PaidDeps, route: FeedRoute, query: FeedQuery, transport: Transport, credentials: Credentials): Promise<PaidOutcome> {
  const snapshot = await deps.snapshots.current();
  const window = requireWindow(route, query, isoNow().slice(0, 10));
  if (credentials.record) credentials.record.snapshot = snapshot.pointer.build_id;
  return deps.payments.charge({ route, transport, request: `${route.path} ${canonical(query)}`, credentials }, async () => {
    const { answer, tail } = await made(deps, snapshot, route, query, window);
    return { body: envelopeBytes(answer, tail, isoNow()), rows: answer.rows };
  });
}

/**
 * The usual call answered without a promise: a key verified moments ago, the snapshot held, this very question
 * answered before (its page in memory), noted in the call's record. Null otherwise: the caller takes serveFeed.
 */
export function heldFeed(
  deps: PaidDeps,
  route: FeedRoute,
  query: FeedQuery,
  headers: Headers,
  now: number,
  record: CallRecord | null,
): { answer: Answer; tail: Buffer } | null {
  const snapshot = deps.snapshots.held;
  const keyId = snapshot ? trustedKey(deps.payments, headers, now) : null;
  if (!snapshot || keyId === null) return null;
  const window = requireWindow(route, query, isoAt(now).slice(0, 10));
  const known = MADE.get(snapshot)?.get(questionKey(route, query, window));
  if (!known) return null;
  record?.keyed(keyId, snapshot.pointer.build_id);
  return { answer: known.answer, tail: known.tails.hit };
}

/** A feed answer as parts (MCP): the envelope as JSON and as a JSON string literal. */
export function feedParts(held: { answer: Answer; tail: Buffer }, now: number): { json: Parts; literal: Parts } {
  return envelopeParts(held.answer, held.tail, isoAt(now));
}

/** The page of rows asked for, made once per snapshot and question. */
async function made(deps: PaidDeps, snapshot: LoadedSnapshot, route: FeedRoute, query: FeedQuery, window: string | null): Promise<{ answer: Answer; tail: Buffer }> {
  let memo = MADE.get(snapshot);
  if (!memo) MADE.set(snapshot, (memo = new Map()));
  const key = questionKey(route, query, window);
  const known = memo.get(key);
  if (known) return { answer: known.answer, tail: known.tails.hit };
  const rows = await matching(deps, snapshot, route, query, window);
  const { limit, offset } = query;
  const page = rows.slice(offset, offset + limit);
  const answer: Answer = { bytes: Buffer.from(page.join(",")), rows: page.length };
  const next_offset = offset + limit < rows.length ? offset + limit : null;
  const tail = (cache: Meta["cache"]) => {
    const rest: Omit<Meta, "retrieved_at"> = {
      cache,
      source_api: `cross-company documents of build ${snapshot.manifest.cross?.build_id}, with the companies published since`,
      built_at: snapshot.pointer.built_at,
      snapshot: snapshot.pointer.build_id,
      total: rows.length,
      next_offset,
    };
    return Buffer.from(`",${JSON.stringify(rest).slice(1)}}`);
  };
  const tails = { hit: tail("hit"), miss: tail("miss") };
  if (memo.size >= MADE_PER_SNAPSHOT) memo.delete(memo.keys().next().value!);
  memo.set(key, { answer, tails });
  return { answer, tail: tails.miss };
}

/** Every row the query selects, in the answer's order, as JSON text. */
async function matching(deps: PaidDeps, snapshot: LoadedSnapshot, route: FeedRoute, query: FeedQuery, window: string | null): Promise<string[]> {
  switch (route.feed) {
    case "screen": {
      const q = query as z.output<typeof ScreenQuery>;
      const ranked = await deps.cross.screen(snapshot, q.period, q.metric, q.as_of ?? LATEST);
      const keep = screenFilter(q);
      const rows = ranked.filter(keep);
      if (q.order === "asc") rows.sort((a, b) => a.value.value - b.value.value || (a.company.ticker < b.company.ticker ? -1 : 1));
      return rows.map((r) => JSON.stringify({ ...r.company, metric: q.metric, ...r.value }));
    }
    case "market_filings": {
      const q = query as z.output<typeof MarketFilingsQuery>;
      const form = q.form?.toUpperCase();
      const keep = (f: MarketFiling) => (!form || f.form.toUpperCase() === form) && (!q.item || f.items.includes(q.item));
      return (await deps.cross.filings(snapshot, window!)).filter(keep).map((f) => JSON.stringify(f));
    }
    case "market_insiders": {
      const q = query as z.output<typeof MarketInsidersQuery>;
      const role = q.role === "officer" ? "is_officer" : q.role === "director" ? "is_director" : q.role === "ten_percent_owner" ? "is_ten_percent_owner" : null;
      const keep = (t: MarketInsider) =>
        (!q.code || t.transaction_code === q.code) && (q.min_value === undefined || (t.value !== null && t.value >= q.min_value)) && (!role || t.owners.some((o) => o[role]));
      return (await deps.cross.insiders(snapshot, window!)).filter(keep).map((t) => JSON.stringify(t));
    }
  }
}

/** A screen's filters over ranked rows: the value's bounds, the SIC code or its prefix, the exchange. */
function screenFilter(q: z.output<typeof ScreenQuery>): (r: Ranked) => boolean {
  const exchange = q.exchange?.toLowerCase();
  return (r) =>
    (q.min === undefined || r.value.value >= q.min) &&
    (q.max === undefined || r.value.value <= q.max) &&
    (q.sic === undefined || (r.company.sic ?? "").startsWith(q.sic)) &&
    (exchange === undefined || r.company.exchange?.toLowerCase() === exchange);
}

/**
 * A market feed's first day, checked against how far back it may reach from `today` (UTC): the given `since`, or its
 * default; a 400 naming `since` otherwise. Null for the screen.
 */
function requireWindow(route: FeedRoute, query: FeedQuery, today: string): string | null {
  if (route.feed === "screen") return null;
  const [days, byDefault] = route.feed === "market_filings" ? [MARKET_FILINGS_DAYS, 0] : [MARKET_INSIDERS_DAYS, MARKET_INSIDERS_DEFAULT_DAYS];
  const since = (query as { since?: string }).since ?? daysBefore(today, byDefault);
  const earliest = daysBefore(today, days);
  if (since < earliest) throw new ApiError("invalid_parameter", `since: ${since} is more than ${days} days back (the earliest is ${earliest})`, { hint: `Give a since from ${earliest} to ${today}.` });
  if (since > today) throw new ApiError("invalid_parameter", `since: ${since} is after today (${today}, UTC)`, { hint: `Give a since from ${earliest} to ${today}.` });
  return since;
}

function daysBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

/** The question as one string: the route, its validated query with keys sorted, and the day a market feed starts. */
function questionKey(route: FeedRoute, query: FeedQuery, window: string | null): string {
  return `${route.path} ${canonical(query)} ${window ?? ""}`;
}

const CANONICAL = new WeakMap<object, string>();

function canonical(query: FeedQuery): string {
  let text = CANONICAL.get(query);
  if (text === undefined) CANONICAL.set(query, (text = JSON.stringify(Object.fromEntries(Object.entries(query).sort(([a], [b]) => a.localeCompare(b))))));
  return text;
}
