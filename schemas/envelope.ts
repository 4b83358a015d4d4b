// The success envelope `{data, meta}` of every 200 (spec 2.1, 2.2).
import { z } from "zod";
import { Accession, IsoDate, IsoDateTime } from "./primitives.ts";

/** Per-response metadata that traces the answer back to EDGAR. */
export const Meta = z
  .object({
    retrieved_at: IsoDateTime.meta({ description: "When the service assembled this response." }),
    cache: z.enum(["hit", "miss"]).meta({ description: "Whether the document came from the gateway's memory cache." }),
    source_api: z.string().optional().meta({ example: "https://data.sec.gov/submissions/CIK0000320193.json" }),
    source_accession: Accession.nullable().optional().meta({ description: "Accession number of the newest filing the document reflects." }),
    filed_at: IsoDate.nullable().optional(),
    built_at: IsoDateTime.optional().meta({ description: "When the snapshot serving this answer was published." }),
    snapshot: z.string().optional().meta({ description: "Id of the snapshot served (a build, or one of the follower's incremental publishes)." }),
    changed_at: IsoDateTime.optional().meta({ description: "When this ticker's document last changed (new content published by a build or the follower)." }),
    accepted_at: IsoDateTime.nullable().optional().meta({
      description: "When EDGAR accepted the newest filing this document reflects (source_accession); null when not known.",
    }),
    total: z.number().int().nonnegative().optional().meta({ description: "A list answer's rows matched in all, of which `data` is one page." }),
    next_offset: z.number().int().nonnegative().nullable().optional().meta({ description: "The `offset` of the next page; null on the last." }),
  })
  .meta({ id: "Meta" });
export type Meta = z.infer<typeof Meta>;

/** Wraps a payload schema in the envelope. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ data, meta: Meta });
}
