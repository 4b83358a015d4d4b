// The success envelope `{data, meta}` assembled from pre-serialised bytes: a document is never stringified per
// request. The `data` bytes of each distinct filter of a document are joined once and kept with the document.
import type { Meta } from "../schemas/envelope.ts";
import type { DocumentKind } from "../schemas/snapshot.ts";
import { selectRows, type FilterQuery } from "./filters.ts";
import type { PreparedDocument } from "./snapshot.ts";

/** Distinct filters remembered per document (a document's own LRU entry bounds the rest). */
const ANSWERS_PER_DOCUMENT = 32;
const OPEN = Buffer.from('{"data":[');
const MIDDLE = Buffer.from('],"meta":');
const CLOSE = Buffer.from("}");

/** The filtered rows of a document as the bytes between `[` and `]`, and how many rows they hold. */
export interface Answer {
  bytes: Buffer;
  rows: number;
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

/** The envelope's bytes: the answer's data spliced with this response's meta. */
export function envelopeBytes(answer: Answer, meta: Meta): Buffer {
  return Buffer.concat([OPEN, answer.bytes, MIDDLE, Buffer.from(JSON.stringify(meta)), CLOSE]);
}

/** The envelope around a small payload computed per request (health, probe). */
export function envelopeOf(data: unknown, meta: Meta): string {
  return JSON.stringify({ data, meta });
}
