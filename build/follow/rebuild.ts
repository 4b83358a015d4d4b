// What one new filing changes for a company, over the document kinds: a Form 4/4-A refreshes the filings and insiders
// documents (submissions and the Form 4's XML); a periodic report rebuilds the company whole (company facts and
// submissions: every kind, whatever kinds there are); any other form refreshes the filings document.
import type { ManifestTicker } from "../../schemas/snapshot.ts";
import { buildCompany, loadFilings, loadInsiders, NOT_COVERED, type CompanyContext } from "../pipeline/company.ts";
import { INSIDER_FORMS, PERIODIC_FORM } from "../forms.ts";
import type { DailyIndexRow } from "../parse/daily-index.ts";
import type { EncodedDocuments } from "../publish/snapshot.ts";

/** How much of a company a filing makes the follower rebuild. */
export type Scope = "filings" | "insiders" | "all";

const ORDER: Scope[] = ["filings", "insiders", "all"];

/** What a filing of `form` changes (amendments count as their form: 10-K/A, 4/A). */
export function scopeOf(form: string): Scope {
  const upper = form.toUpperCase();
  if (PERIODIC_FORM.test(upper)) return "all";
  return INSIDER_FORMS.has(upper) ? "insiders" : "filings";
}

/** The wider of two scopes. */
export function widest(a: Scope, b: Scope): Scope {
  return ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b;
}

/** A company rebuilt: its documents that were made again, and the manifest entry fields they give. */
export type Rebuilt =
  | {
      kind: "covered";
      docs: Partial<EncodedDocuments>;
      /** The entry without `documents` (the publisher adds the references) for each of the company's tickers. */
      entry: (previous: ManifestTicker | undefined) => Omit<ManifestTicker, "documents">;
      accepted: Record<string, string>;
      /** Accessions the new filings document lists: a filing not among them is not in EDGAR's submissions yet. */
      listed: Set<string>;
    }
  | { kind: "not_covered"; entry: (previous: ManifestTicker | undefined) => ManifestTicker };

/**
 * Rebuilds `scope` of a company (`previous` its entry now, if any). A company not covered is rebuilt whole only for
 * a periodic report, which may make it covered. `indexed` names Form 4s the submissions may not list yet (the
 * feed's or a daily index's), read from their full submission text.
 */
export async function rebuild(ctx: CompanyContext, cik: number, scope: Scope, previous: ManifestTicker | undefined, indexed: DailyIndexRow[]): Promise<Rebuilt | null> {
  // Of its Form 4s, only the new ones are fetched: one not cached and not named now was missing or unreadable before.
  // A company new to the universe has no cache yet: every Form 4 its submissions list in the look-back is fetched.
  const incremental = previous ? { after: "9999-12-31", indexed } : undefined;
  if (scope === "all" || !previous?.covered) {
    if (scope !== "all" && previous !== undefined) return null; // a Form 4 or an 8-K does not make a company covered
    const outcome = await buildCompany({ ...ctx, incrementalFor: () => incremental }, cik);
    if (outcome.kind === "not_covered") {
      return { kind: "not_covered", entry: (p) => ({ cik, name: p?.name ?? "", covered: false, reason: outcome.reason, evidence: outcome.evidence, ...NOT_COVERED }) };
    }
    const { documents, counts, earnings_exceptions, freshness, endpoints, form4, accepted } = outcome;
    return {
      kind: "covered",
      docs: documents,
      entry: (p) => ({ cik, name: p?.name ?? "", covered: true, counts, earnings_exceptions, freshness, endpoints, form4 }),
      accepted,
      listed: new Set(Object.keys(accepted)),
    };
  }
  const filings = await loadFilings(ctx, cik);
  const insiders = scope === "insiders" ? await loadInsiders(ctx, cik, filings, incremental) : null;
  return {
    kind: "covered",
    docs: insiders ? { filings: filings.bytes, insiders: insiders.bytes } : { filings: filings.bytes },
    entry: (p) => {
      const before = p!;
      // documents_from, an error or a defect stay: they describe the kinds the last build made, still served.
      const { documents: _refs, followed: _last, ...kept } = before;
      return {
        ...kept,
        counts: { ...before.counts, filings: filings.filings, ...(insiders ? { insider_transactions: insiders.rows } : {}) },
        freshness: { ...before.freshness, newest_filing: filings.newest_filing, ...(insiders ? { newest_form4: insiders.newest_form4 } : {}), built_at: ctx.builtAt },
        endpoints: { ...before.endpoints, "/filings/latest": filings.filings > 0, ...(insiders ? { "/insiders": insiders.rows > 0 } : {}) },
        ...(insiders ? { form4: insiders.form4 } : {}),
      };
    },
    accepted: filings.accepted,
    listed: new Set(Object.keys(filings.accepted)),
  };
}
