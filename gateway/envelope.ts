// The success envelope `{data, meta}` assembled from pre-serialised rows: a document is never stringified per request.
import type { Meta } from "../schemas/envelope.ts";

/** The envelope's bytes for the selected rows and this response's meta. */
export function envelopeBytes(rowJson: string[], indices: number[], meta: Meta): string {
  let data = "";
  for (let i = 0; i < indices.length; i++) data += (i ? "," : "") + rowJson[indices[i]!];
  return `{"data":[${data}],"meta":${JSON.stringify(meta)}}`;
}

/** The envelope around a small payload computed per request (health, probe). */
export function envelopeOf(data: unknown, meta: Meta): string {
  return JSON.stringify({ data, meta });
}
