// Insider transactions of one issuer: parsed ownership filings → records newest first, amended rows marked.
// Pure: filings in, records out; never fetches, never reads the clock, never drops a row (supersession only marks it).
import type { InsiderTransaction, OwnershipFiling } from "../../schemas/insider.ts";

const AMENDMENT = "/A";

/**
 * The transaction rows of the filings whose issuer is `issuerCik` or one of its `predecessors`, newest first, each row of an amended filing
 * carrying `superseded_by` = the latest amendment that replaces it (DESIGN "Derivation rules" → Insiders).
 */
export function applyAmendments(filings: OwnershipFiling[], issuerCik: number, predecessors: readonly number[] = []): InsiderTransaction[] {
  // A Form 4 appears in the feed of every CIK it names: keep only this issuer's (pitfall 29), or its predecessors'
  // (build/predecessors.ts: the same company's history under an earlier CIK); once per accession.
  const issuers = new Set([issuerCik, ...predecessors]);
  const mine = new Map<string, OwnershipFiling>();
  for (const f of filings) if (issuers.has(f.issuer.cik) && !mine.has(f.accession)) mine.set(f.accession, f);
  const supersededBy = resolveChains(directAmendments([...mine.values()]));
  const rows: InsiderTransaction[] = [];
  for (const filing of mine.values()) {
    const by = supersededBy.get(filing.accession) ?? null;
    for (const row of filing.transactions) rows.push(row.superseded_by === by ? row : { ...row, superseded_by: by });
  }
  return rows.sort(newestFirst);
}

/**
 * For each amended filing, the latest amendment that amends it directly. An amendment (form "X/A") amends a filing
 * of the same base form, with at least one reporting owner in common, filed on its dateOfOriginalSubmission (the
 * issue's rule: "match on owner and dateOfOriginalSubmission"), and every earlier amendment of that same original.
 * When several filings of that owner match, those with the amendment's period of report win.
 * A holdings-only amendment replaces no transactions (pitfall 37).
 */
function directAmendments(filings: OwnershipFiling[]): Map<string, OwnershipFiling> {
  const latest = new Map<string, OwnershipFiling>();
  for (const amendment of filings) {
    if (!amendment.form.toUpperCase().endsWith(AMENDMENT) || amendment.transactions.length === 0) continue;
    const owners = new Set(amendment.owners.map((o) => o.cik).filter((cik) => cik !== null));
    const base = baseForm(amendment.form);
    const original = amendment.date_of_original_submission;
    const candidates = filings.filter(
      (f) =>
        original !== null &&
        fileOrder(f, amendment) < 0 && // an amendment replaces only what was filed before it
        baseForm(f.form) === base &&
        f.owners.some((o) => o.cik !== null && owners.has(o.cik)) &&
        // the original itself, or an earlier amendment of the same original (its rows are restated again here)
        (f.filed_at === original || f.date_of_original_submission === original),
    );
    const samePeriod = candidates.filter((f) => f.period_of_report === amendment.period_of_report);
    for (const amended of samePeriod.length > 0 ? samePeriod : candidates) {
      const current = latest.get(amended.accession);
      if (!current || fileOrder(amendment, current) > 0) latest.set(amended.accession, amendment);
    }
  }
  return latest;
}

/** Follows amendments of amendments so every row points at the last one of its chain; a cycle stops the walk. */
function resolveChains(direct: Map<string, OwnershipFiling>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [accession, first] of direct) {
    let last = first;
    const seen = new Set([accession, first.accession]);
    for (let next = direct.get(last.accession); next && !seen.has(next.accession); next = direct.get(last.accession)) {
      seen.add(next.accession);
      last = next;
    }
    out.set(accession, last.accession);
  }
  return out;
}

function baseForm(form: string): string {
  const upper = form.toUpperCase();
  return upper.endsWith(AMENDMENT) ? upper.slice(0, -AMENDMENT.length) : upper;
}

/** Filing order: filed_at (unknown first), then accession. */
function fileOrder(a: OwnershipFiling, b: OwnershipFiling): number {
  return compareText(a.filed_at ?? "", b.filed_at ?? "") || compareText(a.accession, b.accession);
}

/** transaction_date desc, filed_at desc (unknown dates last), then accession, table I before II, row. */
function newestFirst(a: InsiderTransaction, b: InsiderTransaction): number {
  return (
    compareDesc(a.transaction_date, b.transaction_date) ||
    compareDesc(a.filed_at, b.filed_at) ||
    compareText(a.source_accession, b.source_accession) ||
    Number(a.is_derivative) - Number(b.is_derivative) ||
    a.row - b.row
  );
}

function compareDesc(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? 1 : -1;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
