// GET /tickers and the MCP tool list_tickers: the covered tickers, made once per snapshot. Over HTTP the answer is
// cheap to cache: a weak ETag that changes only with the snapshot (If-None-Match → 304), gzip when accepted.
import { gzipSync } from "node:zlib";
import type { Meta } from "../../schemas/envelope.ts";
import type { CoveredTicker } from "../../schemas/tickers.ts";
import { isoAt } from "./clock.ts";
import { ALLOW_ORIGIN } from "../http/cors.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

/** Clients and caches may reuse the list this long before revalidating; a snapshot lives for hours. */
const CACHE_CONTROL = "public, max-age=60";
/** An assembled answer is served again for this long, so a busy second costs one serialisation and one gzip. */
const REUSE_MS = 1000;

interface Prepared {
  list: CoveredTicker[];
  etag: string;
  /** The last answer assembled, plain and (when asked for) gzipped, and when. */
  last?: { at: number; body: Uint8Array<ArrayBuffer>; gzip?: Uint8Array<ArrayBuffer> };
}

const prepared = new WeakMap<LoadedSnapshot, Prepared>();

/** A page of /tickers: `limit` and `offset` as validated (TickersQuery). */
export interface TickersPage {
  limit?: number | undefined;
  offset?: number | undefined;
}

/** The snapshot's covered tickers, sorted by ticker: the page asked for, with total and next_offset (issue 41). */
export function coveredTickers(snapshot: LoadedSnapshot, page: TickersPage = {}): { data: CoveredTicker[]; paging: Pick<Meta, "total" | "next_offset"> } {
  const { list } = prepare(snapshot);
  const offset = page.offset ?? 0;
  const data = page.limit === undefined && offset === 0 ? list : list.slice(offset, offset + (page.limit ?? list.length));
  const end = offset + data.length;
  return { data, paging: { total: list.length, next_offset: end < list.length ? end : null } };
}

/**
 * The /tickers answer: 304 when the client holds the current list, else the envelope, gzipped if accepted. `cache`
 * says whether the snapshot was in memory; an answer that read it is made for its caller alone.
 */
export function tickersResponse(headers: Headers, snapshot: LoadedSnapshot, cache: Meta["cache"], page: TickersPage = {}, now = Date.now()): Response {
  const entry = prepare(snapshot);
  // A page is another answer: its own tag, and made for its caller alone (the whole list is the one kept).
  if (page.limit !== undefined || (page.offset ?? 0) > 0) return pageResponse(headers, snapshot, cache, page, now, entry.etag);
  const common = { etag: entry.etag, "cache-control": CACHE_CONTROL, vary: "accept-encoding", ...ALLOW_ORIGIN, "access-control-expose-headers": "ETag" };
  if (matches(headers.get("if-none-match"), entry.etag)) return new Response(null, { status: 304, headers: common });
  const assemble = () => {
    const meta: Meta = { retrieved_at: isoAt(now), cache, built_at: snapshot.pointer.built_at, snapshot: snapshot.pointer.build_id, total: entry.list.length, next_offset: null };
    return { at: now, body: new TextEncoder().encode(JSON.stringify({ data: entry.list, meta })) };
  };
  if (cache === "hit" && (!entry.last || now - entry.last.at >= REUSE_MS)) entry.last = assemble();
  const answer: NonNullable<Prepared["last"]> = cache === "hit" ? entry.last! : assemble();
  const json = { ...common, "content-type": "application/json; charset=utf-8" };
  if (!acceptsGzip(headers.get("accept-encoding"))) return new Response(answer.body, { status: 200, headers: json });
  answer.gzip ??= new Uint8Array(gzipSync(answer.body));
  return new Response(answer.gzip, { status: 200, headers: { ...json, "content-encoding": "gzip" } });
}

/** A page of the list over HTTP: its own weak ETag (the snapshot's and the page's bounds), never gzipped (it is small). */
function pageResponse(headers: Headers, snapshot: LoadedSnapshot, cache: Meta["cache"], page: TickersPage, now: number, etag: string): Response {
  const tag = `${etag.slice(0, -1)}:${page.offset ?? 0}:${page.limit ?? ""}"`;
  const common = { etag: tag, "cache-control": CACHE_CONTROL, ...ALLOW_ORIGIN, "access-control-expose-headers": "ETag" };
  if (matches(headers.get("if-none-match"), tag)) return new Response(null, { status: 304, headers: common });
  const { data, paging } = coveredTickers(snapshot, page);
  const meta: Meta = { retrieved_at: isoAt(now), cache, built_at: snapshot.pointer.built_at, snapshot: snapshot.pointer.build_id, ...paging };
  return new Response(JSON.stringify({ data, meta }), { status: 200, headers: { ...common, "content-type": "application/json; charset=utf-8" } });
}

function prepare(snapshot: LoadedSnapshot): Prepared {
  let entry = prepared.get(snapshot);
  if (!entry) {
    const list = Object.entries(snapshot.manifest.tickers)
      .filter(([, t]) => t.covered)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([ticker, t]) => ({
        ticker,
        cik: t.cik,
        name: t.name,
        built_at: t.freshness.built_at ?? snapshot.manifest.built_at,
        newest_filing: t.freshness.newest_filing,
        newest_period_end: t.freshness.newest_period_end,
        newest_form4: t.freshness.newest_form4,
      }));
    // Weak: the same list in another encoding, or with another retrieved_at, is the same answer (RFC 9110 8.8.1).
    entry = { list, etag: `W/"${snapshot.pointer.build_id}"` };
    prepared.set(snapshot, entry);
  }
  return entry;
}

/** If-None-Match against our ETag, by weak comparison (RFC 9110 13.1.2): `*`, or any listed tag with the same opaque value. */
function matches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const opaque = etag.slice(2);
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === opaque);
}

/** Whether Accept-Encoding allows gzip: named (or `*`) without q=0 (RFC 9110 12.5.3). */
function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  let gzip: boolean | null = null;
  let star = false;
  for (const part of header.toLowerCase().split(",")) {
    const [coding, ...params] = part.split(";").map((s) => s.trim());
    const q = params.find((p) => p.startsWith("q="));
    const allowed = !q || Number(q.slice(2)) > 0;
    if (coding === "gzip" || coding === "x-gzip") gzip = allowed;
    else if (coding === "*") star = allowed;
  }
  return gzip ?? star;
}
