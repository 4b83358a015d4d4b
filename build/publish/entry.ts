// A ticker's manifest entry, kind by kind: which fields describe each document kind, so that whoever replaces some of
// a ticker's documents — the follower's partial rebuilds, a build keeping the follower's newer ones — replaces their
// fields with them and keeps every other field as the build wrote it.
import type { Counts, DocumentKind, Endpoints, Freshness, ManifestTicker } from "../../schemas/snapshot.ts";

/** The fields a covered company's documents give its entry: a build's, and the follower's whole rebuilds. */
export type CoveredFields = Pick<ManifestTicker, "counts" | "earnings_exceptions" | "financials_exceptions" | "freshness" | "endpoints" | "form4" | "earlier_ciks" | "segments">;

/** What a rebuild of some of the kinds made: the fields of those kinds (KIND_FIELDS). */
export type KindFields = { counts: Partial<Counts>; freshness: Partial<Freshness>; endpoints: Partial<Endpoints> } & Partial<Pick<ManifestTicker, "earnings_exceptions" | "financials_exceptions" | "form4" | "segments">>;

/** Each kind's fields, by the part of the entry that holds them. */
const KIND_FIELDS: Record<DocumentKind, { counts: (keyof Counts)[]; freshness: (keyof Freshness)[]; endpoints: (keyof Endpoints)[]; entry: (keyof KindFields)[] }> = {
  filings: { counts: ["filings"], freshness: ["newest_filing"], endpoints: ["/filings/latest"], entry: [] },
  earnings: { counts: ["earnings_periods"], freshness: ["newest_period_end"], endpoints: ["/earnings/summary"], entry: ["earnings_exceptions"] },
  insiders: { counts: ["insider_transactions"], freshness: ["newest_form4"], endpoints: ["/insiders"], entry: ["form4"] },
  financials: { counts: ["financials_periods"], freshness: [], endpoints: ["/financials"], entry: ["financials_exceptions"] },
  screen: { counts: [], freshness: [], endpoints: [], entry: [] },
  segments: { counts: ["segment_periods"], freshness: [], endpoints: ["/segments"], entry: ["segments"] },
};

/** A covered company's entry as a build writes it, without its documents (the publisher adds them). */
export function coveredEntry(cik: number, name: string, made: CoveredFields): Omit<ManifestTicker, "documents"> {
  const { counts, earnings_exceptions, financials_exceptions, freshness, endpoints, form4, earlier_ciks, segments } = made;
  return { cik, name, covered: true, ...(earlier_ciks?.length ? { earlier_ciks } : {}), counts, earnings_exceptions, financials_exceptions, freshness, endpoints, form4, ...(segments ? { segments } : {}) };
}

/** `entry` with the fields of `kinds` as `from` has them; one `from` lacks is dropped (a snapshot from before it). */
export function withKinds<T extends KindFields>(entry: T, from: KindFields, kinds: readonly DocumentKind[]): T {
  const out = { ...entry, counts: { ...entry.counts }, freshness: { ...entry.freshness }, endpoints: { ...entry.endpoints } };
  for (const kind of kinds) {
    const fields = KIND_FIELDS[kind];
    copy(out.counts, from.counts, fields.counts);
    copy(out.freshness, from.freshness, fields.freshness);
    copy(out.endpoints, from.endpoints, fields.endpoints);
    copy<KindFields>(out, from, fields.entry);
  }
  return out;
}

function copy<T extends object>(to: T, from: Partial<T>, keys: (keyof T)[]): void {
  for (const key of keys) {
    if (from[key] === undefined) delete to[key];
    else to[key] = from[key]!;
  }
}
