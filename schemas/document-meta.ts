// The provenance every published document carries: where its data came from and when it was built.
import { z } from "zod";
import { Accession, IsoDate, IsoDateTime } from "./primitives.ts";

/**
 * Provenance of a published document. `built_at` is when its content was made: an unchanged document is never
 * written again, so it is also when the content last changed.
 */
export const DocumentMeta = z.object({
  source_api: z.string(),
  source_accession: Accession.nullable(),
  filed_at: IsoDate.nullable(),
  built_at: IsoDateTime,
});
export type DocumentMeta = z.infer<typeof DocumentMeta>;
