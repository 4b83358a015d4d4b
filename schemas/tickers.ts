// Payload of GET /tickers and the MCP tool list_tickers: every covered ticker with its CIK, name and freshness.
import { z } from "zod";
import { Cik, IsoDate, IsoDateTime, Ticker } from "./primitives.ts";

/** One covered ticker: who it is and how fresh its documents are. */
export const CoveredTicker = z
  .object({
    ticker: Ticker,
    cik: Cik,
    name: z.string(),
    built_at: IsoDateTime.meta({ description: "When its documents were built (older than the snapshot when a build did not rebuild it)." }),
    newest_filing: IsoDate.nullable().meta({ description: "Filing date of its newest filing in /filings/latest." }),
    newest_period_end: IsoDate.nullable().meta({ description: "End of its newest period in /earnings/summary." }),
    newest_form4: IsoDate.nullable().meta({ description: "Filing date of its newest Form 4 in /insiders; null when /insiders is empty." }),
  })
  .meta({ id: "CoveredTicker" });
export type CoveredTicker = z.infer<typeof CoveredTicker>;

/** The covered tickers, sorted by ticker. */
export const TickerList = z.array(CoveredTicker);
