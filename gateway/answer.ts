// The paid answer itself, shared by the HTTP routes and the MCP tools: the covered ticker's document,
// filtered, in the envelope. Payment is not its concern (the caller asks before and settles after).
import type { PaidRoute } from "../schemas/api.ts";
import { answerFor, envelopeBytes, metaTail } from "./envelope.ts";
import type { FilterQuery } from "./filters.ts";
import type { LoadedSnapshot, SnapshotStore } from "./snapshot.ts";

/** The envelope's bytes and how many rows its `data` holds. */
export interface PaidAnswer {
  body: Buffer;
  rows: number;
}

/** Reads (or recalls) the document and builds the response for one query; 503 when storage cannot give it. */
export async function paidAnswer(
  snapshots: SnapshotStore,
  snapshot: LoadedSnapshot,
  route: PaidRoute,
  query: FilterQuery & { ticker: string },
  retrievedAt: string,
): Promise<PaidAnswer> {
  const { doc, cache } = await snapshots.document(snapshot, query.ticker, route.document);
  const answer = answerFor(doc, route.document, query);
  const body = envelopeBytes(answer, metaTail(doc, cache, snapshot.pointer.build_id), retrievedAt);
  return { body, rows: answer.rows };
}
