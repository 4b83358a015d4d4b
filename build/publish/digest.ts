// A document's content hash: every byte of it except `meta.built_at`, so that a rebuild that changes nothing hashes
// the same and is not written again. documents.ts `encodeDocument` writes `meta` last, which makes this a slice.
import { createHash } from "node:crypto";

const META = Buffer.from(',"meta":{');
const CLOSE = 0x7d; // "}"

/** What publishing needs to know about an encoded document. */
export interface DocumentDigest {
  /** The first 32 hex digits of the SHA-256 of the document without `meta.built_at`. */
  sha256: string;
  source_accession: string | null;
}

/** Hashes an encoded document; throws for bytes that are not one (its meta must come last). */
export function documentDigest(bytes: Uint8Array): DocumentDigest {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Inside a JSON string a quote is always escaped, so the last `,"meta":{` is the document's own meta (a flat object).
  const at = buf.lastIndexOf(META);
  if (at < 0 || buf[buf.length - 1] !== CLOSE) throw new Error("not an encoded document: its meta must come last (documents.ts encodeDocument)");
  const { built_at: _when, ...meta } = JSON.parse(buf.toString("utf8", at + META.length - 1, buf.length - 1)) as Record<string, unknown>;
  const sha256 = createHash("sha256").update(buf.subarray(0, at)).update(JSON.stringify(meta)).digest("hex").slice(0, 32);
  return { sha256, source_accession: typeof meta.source_accession === "string" ? meta.source_accession : null };
}
