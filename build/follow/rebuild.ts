// What new filings change for a company, over the document kinds: a Form 4/4-A refreshes the filings and insiders
// documents (submissions and the Form 4's XML); a periodic report rebuilds the company whole (company facts and
// submissions: every kind, whatever kinds there are); any other form refreshes the filings document. And which of the
// filings what was read does not show yet: the follower tries those again.
import type { FilingItem } from "../../schemas/filing.ts";
import type { ManifestTicker } from "../../schemas/snapshot.ts";
import { buildCompany, loadFilings, loadInsiders, NOT_COVERED, type CompanyContext, type CompanyNames } from "../pipeline/company.ts";
import { companyCiks } from "../predecessors.ts";
import type { FilingsResult } from "../pipeline/documents.ts";
import { INSIDER_FORMS, PERIODIC_FORM } from "../forms.ts";
import type { DailyIndexRow } from "../parse/daily-index.ts";
import { parseSubmissions } from "../parse/submissions.ts";
import { coveredEntry, withKinds, type KindFields } from "../publish/entry.ts";
import type { EncodedDocuments } from "../publish/snapshot.ts";
import { companyFactsPath, submissionsPath } from "../sources/paths.ts";
import { textIfFound, type Source } from "../sources/source.ts";
import type { FeedFiling } from "./feed.ts";

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

/** A company rebuilt: its documents that were made again, the manifest entry fields they give, and what to wait for. */
export type Rebuilt = (
  | {
      kind: "covered";
      docs: Partial<EncodedDocuments>;
      /** The entry without `documents` (the publisher adds the references) for each of the company's tickers. */
      entry: (previous: ManifestTicker | undefined) => Omit<ManifestTicker, "documents">;
      accepted: Record<string, string>;
    }
  | { kind: "not_covered"; entry: (previous: ManifestTicker | undefined) => ManifestTicker }
) & {
  /** The filings what was read does not show yet, by accession, with why: the others are confirmed. */
  waiting: Map<string, string>;
};

/**
 * Rebuilds `scope` of a company for `filings` (`previous` its entry now, if any). A company not covered is rebuilt
 * whole only for a periodic report, which may make it covered. Form 4s the submissions may not list yet are read
 * from their full submission text.
 */
export async function rebuild(ctx: CompanyContext, cik: number, names: CompanyNames, scope: Scope, previous: ManifestTicker | undefined, filings: FeedFiling[]): Promise<Rebuilt | null> {
  // Of its Form 4s, only the new ones are fetched: one not cached and not named now was missing or unreadable before.
  // A company new to the universe has no cache yet: every Form 4 its submissions list in the look-back is fetched.
  const ciks = companyCiks(cik, ctx.predecessors);
  const incremental = previous ? { after: "9999-12-31", indexed: indexRows(ciks, filings) } : undefined;
  if (scope === "all" || !previous?.covered) {
    if (scope !== "all" && previous !== undefined) return null; // a Form 4 or an 8-K does not make a company covered
    const read = recording(ctx.source, ciks);
    const outcome = await buildCompany({ ...ctx, source: read.source, incrementalFor: () => incremental }, cik, names);
    if (outcome.kind === "not_covered") {
      return {
        kind: "not_covered",
        entry: (p) => ({ cik, name: p?.name ?? "", covered: false, reason: outcome.reason, evidence: outcome.evidence, ...NOT_COVERED }),
        // No documents: only its periodic reports, which may make it covered once company facts show them, wait.
        waiting: await waitingFor(ctx, cik, filings.filter((f) => scopeOf(f.form) === "all"), null, read.text),
      };
    }
    return {
      kind: "covered",
      docs: outcome.documents,
      entry: (p) => coveredEntry(cik, p?.name ?? "", outcome),
      accepted: outcome.accepted,
      waiting: await waitingFor(ctx, cik, filings, outcome, read.text),
    };
  }
  const listed = await loadFilings(ctx, cik);
  const insiders = scope === "insiders" ? await loadInsiders(ctx, cik, listed, incremental) : null;
  const made: KindFields = {
    counts: { filings: listed.filings, ...(insiders ? { insider_transactions: insiders.rows } : {}) },
    freshness: { newest_filing: listed.newest_filing, ...(insiders ? { newest_form4: insiders.newest_form4 } : {}) },
    endpoints: { "/filings/latest": listed.filings > 0, ...(insiders ? { "/insiders": insiders.rows > 0 } : {}) },
    ...(insiders ? { form4: insiders.form4 } : {}),
  };
  return {
    kind: "covered",
    docs: insiders ? { filings: listed.bytes, insiders: insiders.bytes } : { filings: listed.bytes },
    entry: (p) => {
      // documents_from, an error or a defect stay: they describe the kinds the last build made, still served.
      const { documents: _refs, followed: _last, ...kept } = p!;
      const entry = withKinds(kept, made, insiders ? ["filings", "insiders"] : ["filings"]);
      return { ...entry, freshness: { ...entry.freshness, built_at: ctx.builtAt } };
    },
    accepted: listed.accepted,
    // No periodic report among them (it would rebuild the company whole): the submissions are all there is to wait for.
    waiting: await waitingFor(ctx, cik, filings, listed, () => null),
  };
}

/**
 * Why each filing is not in what was read yet. Every filing waits for the company's submissions (`listed`: what they
 * list; null when not read). A periodic report also waits for company facts, which SEC says lag the submissions by up
 * to a minute (more at peak): published before, its earnings and financials would not be made again. One its
 * submissions say carries no XBRL (a 10-K/A that only adds Part III) has no facts to wait for; one whose XBRL gives
 * company facts none is given up on in time, as every filing is (follower.ts).
 */
async function waitingFor(
  ctx: CompanyContext,
  cik: number,
  filings: FeedFiling[],
  listed: Pick<FilingsResult, "accepted" | "without_xbrl"> | null,
  text: (path: string) => string | null,
): Promise<Map<string, string>> {
  const waiting = new Map<string, string>();
  // The company's filings and its predecessors' (build/predecessors.ts): its documents are made from all of theirs.
  const ciks = companyCiks(cik, ctx.predecessors);
  const facts = ciks.map((c) => text(companyFactsPath(c))).filter((t) => t !== null);
  const withoutXbrl = new Set(listed?.without_xbrl);
  let submissions: FilingItem[] | null = null;
  for (const filing of filings) {
    if (listed && !Object.hasOwn(listed.accepted, filing.accession)) {
      waiting.set(filing.accession, `not yet in the submissions of CIK ${cik}`);
      continue;
    }
    if (scopeOf(filing.form) !== "all" || facts.some((f) => inFacts(f, filing.accession)) || withoutXbrl.has(filing.accession)) continue;
    if (listed) {
      waiting.set(filing.accession, `not yet in the company facts of CIK ${cik}`);
      continue;
    }
    // A company not covered was rebuilt without its submissions: read for a periodic report the facts lack.
    submissions ??= (await Promise.all(ciks.map((c) => listedFilings(ctx.source, c, text)))).flat();
    const entry = submissions.find((f) => f.accession_number === filing.accession);
    if (!entry || entry.is_xbrl) waiting.set(filing.accession, `not yet in the ${entry ? "company facts" : "submissions"} of CIK ${cik}`);
  }
  return waiting;
}

/** A CIK's filings as its submissions list them (read already, else fetched; none where a predecessor has no file). */
async function listedFilings(source: Source, cik: number, text: (path: string) => string | null): Promise<FilingItem[]> {
  const path = submissionsPath(cik);
  const found = text(path) ?? (await textIfFound(source, path));
  return found === null ? [] : parseSubmissions(found, { cik, path }).filings;
}

/** Whether company facts text holds a fact from a filing (its `accn`), found without parsing the whole file again. */
function inFacts(facts: string, accession: string): boolean {
  return new RegExp(`"accn"\\s*:\\s*"${accession}"`).test(facts);
}

/** The source as the rebuild reads it, keeping the company's submissions and company facts texts to confirm against. */
function recording(source: Source, ciks: readonly number[]): { source: Source; text: (path: string) => string | null } {
  const kept = new Map<string, string>();
  const wanted = new Set(ciks.flatMap((cik) => [submissionsPath(cik), companyFactsPath(cik)]));
  const recorded: Source = {
    name: source.name,
    get stats() {
      return source.stats;
    },
    describe: (path) => source.describe(path),
    async getText(path) {
      const text = await source.getText(path);
      if (wanted.has(path)) kept.set(path, text);
      return text;
    },
  };
  return { source: recorded, text: (path) => kept.get(path) ?? null };
}

/**
 * The Form 4s among a company's filings, as index rows under the CIK of `ciks` (the company's, then its predecessors')
 * that filed each: read from their full submission if its submissions lag.
 */
function indexRows(ciks: readonly number[], filings: FeedFiling[]): DailyIndexRow[] {
  return filings
    .filter((f) => scopeOf(f.form) === "insiders")
    .map((f) => ({ form: f.form, company: "", cik: ciks.find((c) => f.parties.some((p) => p.cik === c)) ?? ciks[0]!, filed_at: f.filed_at, accession: f.accession }));
}
