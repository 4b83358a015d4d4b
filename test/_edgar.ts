// Test-side access to the real EDGAR files: describeEdgar skips a suite visibly when ../shared/edgar is absent.
import { describe } from "vitest";
import { EDGAR_DIR, HAS_EDGAR } from "./_edgar-files.ts";

export { EDGAR_DIR, HAS_EDGAR, listEdgar, listOwnershipXml, makeOverlayMirror, readEdgar } from "./_edgar-files.ts";

/** `describe` for suites that read real EDGAR files; skipped, with the reason in its name, when they are absent. */
export function describeEdgar(name: string, fn: () => void): void {
  describe.skipIf(!HAS_EDGAR)(HAS_EDGAR ? name : `${name} [skipped: ${EDGAR_DIR} not found]`, fn);
}
