// The coverage step: an unknown or uncovered ticker is a 404 before any payment is asked (spec 4.2, 7). The message
// states what the builder found (the manifest's evidence), never a guess at why.
import type { ManifestTicker } from "../../schemas/snapshot.ts";
import { ApiError } from "../http/errors.ts";

const UNKNOWN_HINT = "GET /tickers (free) lists every covered ticker; tickers are EDGAR's (class shares as BRK-B). Nothing was charged.";
const UNCOVERED_HINT = "GET /probe?ticker=… (free) shows a ticker's coverage before paying; GET /tickers lists the covered ones. Nothing was charged.";

/** Passes a covered ticker; throws 404 ticker_not_covered with what is known otherwise. */
export function requireCoverage(entry: ManifestTicker | undefined, ticker: string): ManifestTicker {
  if (entry?.covered) return entry;
  if (!entry) throw new ApiError("ticker_not_covered", `${ticker} is not in this service's universe: the published snapshot has no entry for it.`, { hint: UNKNOWN_HINT });
  throw new ApiError("ticker_not_covered", `${ticker} (CIK ${entry.cik}) is not covered: ${uncoveredBecause(entry)}.`, { hint: UNCOVERED_HINT });
}

/** Why a ticker of the universe is not covered, as the builder recorded it. */
export function uncoveredBecause(entry: ManifestTicker): string {
  if (entry.evidence) return entry.evidence;
  // Snapshots from before the manifest recorded evidence: the reason's own definition, nothing more.
  if (entry.reason === "no_xbrl_history") return "its company facts hold no us-gaap or ifrs-full facts from periodic reports (no_xbrl_history)";
  return "the latest build could not read its EDGAR files (source_failed)";
}
