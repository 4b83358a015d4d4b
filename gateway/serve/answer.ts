// The paid answer itself, shared by the HTTP routes and the MCP tools: the covered ticker's document,
// filtered, in the envelope. Payment is not its concern (the caller asks before and settles after).
import type { TickerRoute } from "../../schemas/api.ts";
import type { PaidAnswer } from "../payment/core.ts";
import type { Meta } from "../../schemas/envelope.ts";
import { answerFor, envelopeBytes, envelopeParts, metaTail, pagedTail, type Parts } from "./envelope.ts";
import type { FilterQuery } from "./filters.ts";
import type { PreparedDocument } from "./document.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

/** The response to one query over a document the caller holds (from memory or just read from storage). */
export function paidAnswer(
  doc: PreparedDocument,
  cache: Meta["cache"],
  snapshot: LoadedSnapshot,
  route: TickerRoute,
  query: FilterQuery & { ticker: string },
  retrievedAt: string,
): PaidAnswer {
  const answer = answerFor(doc, route.document, query);
  const body = envelopeBytes(answer, pagedTail(answer, metaTail(doc, cache, snapshot, query.ticker, route.document)), retrievedAt);
  return { body, rows: answer.rows };
}

/** The same answer as parts, as JSON and as a JSON string literal (envelopeParts): MCP writes both, copying neither. */
export function paidAnswerParts(
  doc: PreparedDocument,
  snapshot: LoadedSnapshot,
  route: TickerRoute,
  query: FilterQuery & { ticker: string },
  retrievedAt: string,
): { json: Parts; literal: Parts } {
  const answer = answerFor(doc, route.document, query);
  return envelopeParts(answer, pagedTail(answer, metaTail(doc, "hit", snapshot, query.ticker, route.document)), retrievedAt);
}
