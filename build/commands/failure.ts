// What a manifest says about a company a build failed on, in the words `dataset audit` (a finding) and the coverage
// report both use: the file or accession and the reason it records, and since when the documents served are stale.
import type { ManifestTicker } from "../../schemas/snapshot.ts";

/** A ticker whose company failed in the build that last tried it (the manifest records `error`, maybe `input_defect`). */
export interface Failure {
  /** What failed and why: the file and its defect, or the error (which names the file or accession it was about). */
  what: string;
  /** When its documents were last rebuilt, so stale since; null when it serves none (not covered). */
  staleSince: string | null;
  /** The build whose documents it serves, when the manifest names it. */
  documentsFrom: string | null;
}

/** The ticker's failure as its manifest entry records it; null when its company did not fail. */
export function failureOf(entry: ManifestTicker): Failure | null {
  if (entry.error === undefined && entry.input_defect === undefined) return null;
  return {
    what: entry.input_defect ? `${entry.input_defect.file}: ${entry.input_defect.defect}` : entry.error!,
    staleSince: entry.covered ? entry.freshness.built_at : null,
    documentsFrom: entry.documents_from ?? null,
  };
}

/** One line: "failed: " what failed, then what the ticker serves instead. */
export function describeFailure(failure: Failure): string {
  if (failure.staleSince === null) return `failed: ${failure.what}; not covered: no earlier documents to serve`;
  const from = failure.documentsFrom ? `, kept from ${failure.documentsFrom}` : "";
  return `failed: ${failure.what}; its documents are stale since ${failure.staleSince}${from}`;
}
