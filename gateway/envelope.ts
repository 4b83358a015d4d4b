// The success envelope `{data, meta}` assembled from pre-serialised bytes: a document is never stringified per
// request. The `data` bytes of each distinct filter of a document are joined once and kept with the document.
import type { Meta } from "../schemas/envelope.ts";
import type { DocumentKind } from "../schemas/snapshot.ts";
import { selectRows, type FilterQuery } from "./filters.ts";
import type { PreparedDocument } from "./snapshot.ts";

/** Distinct filters remembered per document (a document's own LRU entry bounds the rest). */
const ANSWERS_PER_DOCUMENT = 32;
const OPEN = Buffer.from('{"data":[');
const OPEN_META = Buffer.from('],"meta":{"retrieved_at":"');

/** The filtered rows of a document as the bytes between `[` and `]`, and how many rows they hold. */
export interface Answer {
  bytes: Buffer;
  rows: number;
  /** The last envelope made from it: under load many responses share a millisecond, so they share its bytes. */
  last?: { key: string; body: Buffer };
}

/** The answer to a filter, joined from the rows' JSON on first use and remembered with the document. */
export function answerFor(doc: PreparedDocument, kind: DocumentKind, query: FilterQuery): Answer {
  const key = `${query.form ?? ""}\u0000${query.limit ?? ""}\u0000${query.period ?? ""}\u0000${query.since ?? ""}`;
  const known = doc.answers.get(key);
  if (known) return known;
  const indices = selectRows(kind, doc.rows, query);
  let data = "";
  for (let i = 0; i < indices.length; i++) data += (i ? "," : "") + doc.rowJson[indices[i]!];
  const answer = { bytes: Buffer.from(data), rows: indices.length };
  if (doc.answers.size >= ANSWERS_PER_DOCUMENT) doc.answers.delete(doc.answers.keys().next().value!);
  doc.answers.set(key, answer);
  return answer;
}

/**
 * The envelope's bytes: the answer's data, then the meta, of which only `retrieved_at` changes per response —
 * the rest (cache state, provenance, snapshot) is serialised once per document and copied in.
 */
export function envelopeBytes(answer: Answer, doc: PreparedDocument, provenance: Omit<Meta, "retrieved_at">, retrievedAt: string): Buffer {
  const tailKey = `${provenance.cache}\u0000${provenance.snapshot ?? ""}`;
  const key = `${retrievedAt}\u0000${tailKey}`;
  if (answer.last?.key === key) return answer.last.body;
  let tail = doc.metaTails.get(tailKey);
  if (!tail) doc.metaTails.set(tailKey, (tail = Buffer.from(`",${JSON.stringify(provenance).slice(1)}}`)));
  const body = Buffer.allocUnsafe(OPEN.length + answer.bytes.length + OPEN_META.length + retrievedAt.length + tail.length);
  let at = OPEN.copy(body, 0);
  at += answer.bytes.copy(body, at);
  at += OPEN_META.copy(body, at);
  at += body.write(retrievedAt, at, "latin1"); // an ISO timestamp: ASCII
  tail.copy(body, at);
  answer.last = { key, body };
  return body;
}

/** The envelope around a small payload computed per request (health, probe). */
export function envelopeOf(data: unknown, meta: Meta): string {
  return JSON.stringify({ data, meta });
}
