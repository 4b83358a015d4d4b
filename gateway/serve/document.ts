// A document ready to serve, as the document cache (snapshot.ts) holds it: rows to filter, each row's JSON serialised
// once, its provenance, and the memos of what was made from it — the answers by filter and the meta tails by
// snapshot — which only its own methods change.
import type { Meta } from "../../schemas/envelope.ts";
import type { DocumentMeta } from "../../schemas/document-meta.ts";

/** Distinct filters remembered per document (a document's own LRU entry bounds the rest). */
const ANSWERS_PER_DOCUMENT = 32;

/** The filtered rows of a document as the bytes between `[` and `]`, and how many rows they hold (envelope.ts). */
export interface Answer {
  bytes: Buffer;
  rows: number;
  /** The last envelope made from it: under load many responses share a millisecond, so they share its bytes. */
  last?: { tail: Buffer; retrievedAt: string; body: Buffer };
  /** `bytes` escaped as the inside of a JSON string, made on first use by envelopeParts. */
  escaped?: Buffer;
  /** The bytes between the rows and `retrieved_at` when the page says its `total` and `next_offset` (issue 41). */
  metaOpen?: Buffer;
  /** `metaOpen` (or the plain opening) as text and escaped, made on first use by envelopeParts. */
  metaOpenText?: { plain: string; escaped: string };
}

export class PreparedDocument {
  readonly rows: Record<string, unknown>[];
  readonly rowJson: string[];
  readonly meta: DocumentMeta;
  /** An earnings or financials document's history section as JSON text, parsed only for point-in-time answers. */
  readonly history: string | undefined;
  readonly #answers = new Map<string, Answer>();
  /** The serialised meta after `retrieved_at`, per cache state, for the snapshot (any object naming it) it was made in. */
  #tails: { snapshot: object | null; hit?: Buffer; miss?: Buffer } = { snapshot: null };

  constructor(parsed: { data: Record<string, unknown>[]; meta: DocumentMeta; history?: unknown }) {
    this.rows = parsed.data;
    this.rowJson = parsed.data.map((row) => JSON.stringify(row));
    this.meta = parsed.meta;
    this.history = typeof parsed.history === "string" ? parsed.history : undefined;
  }

  /** The answer to the filter `key`, made by `make` on first use; the oldest is forgotten beyond the bound. */
  answer(key: string, make: () => Answer): Answer {
    const known = this.#answers.get(key);
    if (known) return known;
    const answer = make();
    if (this.#answers.size >= ANSWERS_PER_DOCUMENT) this.#answers.delete(this.#answers.keys().next().value!);
    this.#answers.set(key, answer);
    return answer;
  }

  /** The meta tail for a cache state in `snapshot`, made by `make` once per snapshot and state. */
  metaTail(snapshot: object, cache: Meta["cache"], make: () => Buffer): Buffer {
    if (this.#tails.snapshot !== snapshot) this.#tails = { snapshot };
    return (this.#tails[cache] ??= make());
  }
}
