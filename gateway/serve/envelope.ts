// The success envelope `{data, meta}` assembled from pre-serialised bytes: a document is never stringified per
// request. The `data` bytes of each distinct filter of a document are joined once and kept with the document.
import type { Meta } from "../../schemas/envelope.ts";
import type { DocumentKind } from "../../schemas/snapshot.ts";
import { projection, selectRows, type FilterQuery } from "./filters.ts";
import type { Answer, PreparedDocument } from "./document.ts";
import { pointInTimeReader } from "./point-in-time.ts";
import type { LoadedSnapshot } from "./snapshot.ts";
const FILTER_KEYS = new WeakMap<FilterQuery, string>();
const OPEN = Buffer.from('{"data":[');
const OPEN_META = Buffer.from('],"meta":{"retrieved_at":"');
// The same as text, and escaped as the inside of a JSON string (with its opening quote), for envelopeParts.
const OPEN_TEXT = OPEN.toString();
const OPEN_META_TEXT = OPEN_META.toString();
const QUOTED_OPEN = `"${escaped(OPEN_TEXT)}`;
const ESCAPED_OPEN_META = escaped(OPEN_META_TEXT);
/** The meta tails as text, plain and escaped with the string's closing quote (a tail lives as long as its document). */
const TAIL_TEXTS = new WeakMap<Buffer, { plain: string; escaped: string }>();

/** Bytes as written one after another: buffers as they are, text as UTF-8. */
export type Parts = (Buffer | string)[];

/** The answer to a filter, joined from the rows' JSON on first use and remembered with the document. */
export function answerFor(doc: PreparedDocument, kind: DocumentKind, query: FilterQuery): Answer {
  return doc.answer(filterKey(query), () => makeAnswer(doc, kind, query));
}

function makeAnswer(doc: PreparedDocument, kind: DocumentKind, query: FilterQuery): Answer {
  // A point-in-time answer (as_of, history) is made from the document's history section, row by row until the filters
  // have what they keep, and a financials answer of one statement from its rows, serialised here, once per filter; the
  // default answer joins the rows' stored JSON.
  const asOf = pointInTimeReader(doc, kind, query);
  const project = projection(kind, query);
  const { rows: selected, total } = selectRows(kind, doc.rows.length, asOf ?? ((i) => doc.rows[i]!), query);
  let data = "";
  for (let k = 0; k < selected.length; k++) {
    const { index, row } = selected[k]!;
    data += (k ? "," : "") + (project ? JSON.stringify(project(row)) : asOf ? JSON.stringify(row) : doc.rowJson[index]);
  }
  // Every list answer says how many rows match and where the next page starts (issue 41): written once per answer.
  const end = (query.offset ?? 0) + selected.length;
  const paging: Pick<Meta, "total" | "next_offset"> = { total, next_offset: end < total ? end : null };
  return { bytes: Buffer.from(data), rows: selected.length, metaOpen: Buffer.from(`],"meta":${JSON.stringify(paging).slice(0, -1)},"retrieved_at":"`) };
}

/** The filter's key, made once per query object (the query memo in params.ts hands out the same object). */
function filterKey(query: FilterQuery): string {
  let key = FILTER_KEYS.get(query);
  if (key === undefined) {
    key = `${query.form ?? ""}\u0000${query.limit ?? ""}\u0000${query.offset ?? ""}\u0000${query.period ?? ""}\u0000${query.since ?? ""}\u0000${query.as_of ?? ""}\u0000${query.history ?? ""}\u0000${query.statement ?? ""}\u0000${query.axis ?? ""}`;
    FILTER_KEYS.set(query, key);
  }
  return key;
}

/**
 * The meta after `retrieved_at` (cache state, provenance, snapshot, freshness), serialised once per document, cache
 * state and snapshot: an unchanged document is served from one snapshot to the next, its meta names the one serving
 * it. `changed_at` is when its content was made (an unchanged one is never rewritten); `accepted_at` comes from the
 * manifest's reference to it (the same for every ticker sharing it).
 */
export function metaTail(doc: PreparedDocument, cache: Meta["cache"], snapshot: LoadedSnapshot, ticker: string, kind: DocumentKind): Buffer {
  return doc.metaTail(snapshot, cache, () => tailBytes(doc, cache, snapshot, ticker, kind));
}

function tailBytes(doc: PreparedDocument, cache: Meta["cache"], snapshot: LoadedSnapshot, ticker: string, kind: DocumentKind): Buffer {
  const { source_api, source_accession, filed_at, built_at } = doc.meta;
  const accepted_at = snapshot.manifest.tickers[ticker]?.documents?.[kind]?.accepted_at ?? null;
  const rest: Omit<Meta, "retrieved_at"> = {
    cache,
    source_api,
    source_accession,
    filed_at,
    built_at: snapshot.pointer.built_at,
    snapshot: snapshot.pointer.build_id,
    changed_at: built_at,
    accepted_at,
  };
  return Buffer.from(`",${JSON.stringify(rest).slice(1)}}`);
}

/** The envelope's bytes: the answer's data, then the meta, of which only `retrieved_at` is written per response. */
export function envelopeBytes(answer: Answer, tail: Buffer, retrievedAt: string): Buffer {
  const chunks = envelopeChunks(answer, tail, retrievedAt);
  if (Array.isArray(chunks)) return Buffer.concat(chunks);
  return chunks;
}

/** Answers from this size on are written as chunks, their data the answer's own bytes (envelopeChunks). */
const SHARED_FROM_BYTES = 64 * 1024;

/**
 * The envelope's bytes, or for a large answer its chunks: the answer's data is its shared bytes, not copied into a
 * buffer per response. A client asking for Apple's 1.7 MB history a thousand times then costs a thousand small meta
 * chunks, not 1.7 GB allocated and freed, which fragments the allocator's memory for good (issue 39).
 */
export function envelopeChunks(answer: Answer, tail: Buffer, retrievedAt: string): Buffer | Buffer[] {
  if (answer.bytes.length >= SHARED_FROM_BYTES) {
    const open = answer.metaOpen ?? OPEN_META;
    const meta = Buffer.allocUnsafe(open.length + retrievedAt.length + tail.length);
    tail.copy(meta, open.copy(meta, 0) + meta.write(retrievedAt, open.length, "latin1"));
    return [OPEN, answer.bytes, meta];
  }
  const last = answer.last;
  if (last?.tail === tail && last.retrievedAt === retrievedAt) return last.body;
  const open = answer.metaOpen ?? OPEN_META;
  const body = Buffer.allocUnsafe(OPEN.length + answer.bytes.length + open.length + retrievedAt.length + tail.length);
  let at = OPEN.copy(body, 0);
  at += answer.bytes.copy(body, at);
  at += open.copy(body, at);
  at += body.write(retrievedAt, at, "latin1"); // an ISO timestamp: ASCII
  tail.copy(body, at);
  answer.last = { tail, retrievedAt, body };
  return body;
}

/**
 * The envelope as parts, the answer's data as its shared bytes (no buffer is made per response): as JSON and as a
 * JSON string literal, quotes included (MCP's structuredContent and content[0].text). The escaped data is made once
 * per answer, the escaped tail once per document and cache state; JSON escapes each character on its own, so the
 * escaped parts make the escaped whole.
 */
export function envelopeParts(answer: Answer, tail: Buffer, retrievedAt: string): { json: Parts; literal: Parts } {
  let text = TAIL_TEXTS.get(tail);
  if (!text) TAIL_TEXTS.set(tail, (text = { plain: tail.toString(), escaped: `${escaped(tail.toString())}"` }));
  answer.escaped ??= Buffer.from(escaped(answer.bytes.toString()));
  answer.metaOpenText ??= answer.metaOpen ? { plain: answer.metaOpen.toString(), escaped: escaped(answer.metaOpen.toString()) } : { plain: OPEN_META_TEXT, escaped: ESCAPED_OPEN_META };
  const open = answer.metaOpenText;
  return {
    json: [OPEN_TEXT, answer.bytes, `${open.plain}${retrievedAt}${text.plain}`],
    literal: [QUOTED_OPEN, answer.escaped, `${open.escaped}${retrievedAt}${text.escaped}`], // an ISO time: nothing to escape
  };
}

/** JSON text escaped as the inside of a JSON string. */
function escaped(json: string): string {
  return JSON.stringify(json).slice(1, -1);
}

/** The envelope around a small payload computed per request (health, probe). */
export function envelopeOf(data: unknown, meta: Meta): string {
  return JSON.stringify({ data, meta });
}
