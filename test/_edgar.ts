// Test-side access to the real EDGAR files: the repository's fixtures for every suite (describeEdgar), and the whole
// shared mirror for the few that need all of it (describeMirror: skipped, visibly, when ../shared/edgar is absent).
import { describe } from "vitest";
import { EDGAR_DIR, FILINGS, HAS_EDGAR, MIRROR } from "./_edgar-files.ts";

export { addTickerRows, EDGAR_DIR, FILINGS, HAS_EDGAR, listEdgar, listOwnershipXml, makeOverlayMirror, MIRROR, ownFile, readEdgar, TSM_ROW } from "./_edgar-files.ts";

/** `describe` for suites that read the EDGAR fixtures; skipped, with the reason in its name, if they are missing. */
export function describeEdgar(name: string, fn: () => void): void {
  describe.skipIf(!HAS_EDGAR)(HAS_EDGAR ? name : `${name} [skipped: ${EDGAR_DIR} not found]`, fn);
}

/** `describe` for the suites that need the whole shared mirror; skipped, with the reason in its name, without it. */
export function describeMirror(name: string, fn: () => void): void {
  if (!MIRROR.present) console.warn(`[edgar] ${MIRROR.dir} is absent: "${name}" is SKIPPED (it needs the whole shared mirror).`);
  describe.skipIf(!MIRROR.present)(MIRROR.present ? name : `${name} [skipped: the whole EDGAR mirror ${MIRROR.dir} is absent]`, fn);
}

/** `describe` for the suites that read the whole shared filings set (../shared/edgar-filings); skipped, visibly, without it. */
export function describeFilings(name: string, fn: () => void): void {
  if (!FILINGS.present) console.warn(`[edgar] ${FILINGS.dir} is absent: "${name}" is SKIPPED (it needs the shared filings set).`);
  describe.skipIf(!FILINGS.present)(FILINGS.present ? name : `${name} [skipped: the shared filings set ${FILINGS.dir} is absent]`, fn);
}
