// Reading EDGAR's latest-filings feed back to where the follower stands: page after page until an entry accepted
// at or before that point shows, and what the pages did not reach (the follower was down, or more filings came
// than the feed holds) reported as a gap, never skipped in silence.
import { parseCurrentFeed, type FeedEntry } from "../parse/current-feed.ts";
import { currentFeedPath, FEED_PAGE_SIZE } from "../sources/paths.ts";
import type { Source } from "../sources/source.ts";

/** What one read of the feed found. */
export interface FeedRead {
  /** Every entry read, newest first (a filing once per entity it names; repeated where pages shifted). */
  entries: FeedEntry[];
  pages: number;
  /** The oldest acceptance time read: the feed was read from there to now. */
  oldest: string | null;
  /** Whether the pages reached `since`; false means filings accepted after `since` and before `oldest` may be missed. */
  reached: boolean;
}

/**
 * Reads the feed of one form type ("" for all) from its newest entry back to `since` (an ISO time; null: the first
 * page only), at most `maxPages` pages. New filings arriving meanwhile push entries down a page, so an entry may be
 * read twice but none is skipped.
 */
export async function readFeed(source: Source, options: { type: string; since: string | null; maxPages: number }): Promise<FeedRead> {
  const out: FeedRead = { entries: [], pages: 0, oldest: null, reached: false };
  for (let start = 0; out.pages < options.maxPages; start += FEED_PAGE_SIZE) {
    const path = currentFeedPath(options.type, start);
    const page = parseCurrentFeed(await source.getText(path), { path });
    out.pages++;
    out.entries.push(...page);
    if (page.length) out.oldest = page.at(-1)!.accepted_at;
    if (options.since === null || (out.oldest !== null && out.oldest <= options.since)) {
      out.reached = true;
      break;
    }
    if (page.length < FEED_PAGE_SIZE) break; // the feed holds nothing older
  }
  return out;
}

/** One filing the feed listed: its entries merged (a Form 4 names its issuer and each reporting owner). */
export interface FeedFiling {
  accession: string;
  form: string;
  filed_at: string;
  /** Null for a filing found in a daily index (its submissions give the time once read). */
  accepted_at: string | null;
  /** Every entity it names: CIK and its part in the filing. */
  parties: { cik: number; role: string }[];
  /** When the follower first saw it (ISO). */
  seen_at: string;
}

/** The feed's entries as filings, one per accession, in the order first listed (newest first). */
export function filingsOf(entries: FeedEntry[], seenAt: string): FeedFiling[] {
  const byAccession = new Map<string, FeedFiling>();
  for (const e of entries) {
    let filing = byAccession.get(e.accession);
    if (!filing) byAccession.set(e.accession, (filing = { accession: e.accession, form: e.form, filed_at: e.filed_at, accepted_at: e.accepted_at, parties: [], seen_at: seenAt }));
    if (!filing.parties.some((p) => p.cik === e.cik)) filing.parties.push({ cik: e.cik, role: e.role });
  }
  return [...byAccession.values()];
}
