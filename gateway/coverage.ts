// The coverage step: an unknown or uncovered ticker is a 404 before any payment is asked (spec 4.2, 7).
import type { ManifestTicker } from "../schemas/snapshot.ts";
import { ApiError } from "./errors.ts";

/** Passes a covered ticker; throws 404 ticker_not_covered with the reason otherwise. */
export function requireCoverage(entry: ManifestTicker | undefined, ticker: string): ManifestTicker {
  if (entry?.covered) return entry;
  const why = !entry
    ? "is not in the universe (unknown to EDGAR's ticker list)"
    : entry.reason === "no_xbrl_history"
      ? "has no XBRL financial history (for example a post-reorganisation shell); it is excluded deliberately"
      : `is not served right now (${entry.reason ?? "not covered"})`;
  throw new ApiError("ticker_not_covered", `${ticker} ${why}.`);
}
