// The paid answer itself, shared by the HTTP routes and the MCP tools: the covered ticker's document,
// filtered, in the envelope. Payment is not its concern (the caller asks before and settles after).
import type { TickerRoute } from "../../schemas/api.ts";
import type { PaidAnswer } from "../payment/core.ts";
import type { Meta } from "../../schemas/envelope.ts";
import { answerFor, envelopeBytes, envelopeChunks, envelopeParts, metaTail, type Parts } from "./envelope.ts";
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
  const body = envelopeBytes(answer, metaTail(doc, cache, snapshot, query.ticker, route.document), retrievedAt);
  return { body, rows: answer.rows };
}

/** The keyed call's answer from memory, as the HTTP route writes it: its bytes, or a large answer's chunks (envelopeChunks). */
export function paidAnswerChunks(doc: PreparedDocument, snapshot: LoadedSnapshot, route: TickerRoute, query: FilterQuery & { ticker: string }, retrievedAt: string): Buffer | Buffer[] {
  return envelopeChunks(answerFor(doc, route.document, query), metaTail(doc, "hit", snapshot, query.ticker, route.document), retrievedAt);
}

/** The same answer as parts, as JSON and as a JSON string literal (envelopeParts): MCP writes both, copying neither. */
export function paidAnswerParts(
  doc: PreparedDocument,
  snapshot: LoadedSnapshot,
  route: TickerRoute,
  query: FilterQuery & { ticker: string },
  retrievedAt: string,
): { json: Parts; literal: Parts } {
  return envelopeParts(answerFor(doc, route.document, query), metaTail(doc, "hit", snapshot, query.ticker, route.document), retrievedAt);
}
