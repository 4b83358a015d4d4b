// Access to the real EDGAR files in ../shared/edgar, read in place (never copied into the project).
// Free of vitest, so benchmarks use it too; suites use describeEdgar from _edgar.ts.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** Root of the EDGAR mirror: $EDGAR_FIXTURES, else ../shared/edgar beside the project. */
export const EDGAR_DIR = resolve(process.env.EDGAR_FIXTURES ?? join(import.meta.dirname, "..", "..", "shared", "edgar"));

/** True when the shared EDGAR files are present. */
export const HAS_EDGAR = existsSync(join(EDGAR_DIR, "PROVENANCE.md"));

if (!HAS_EDGAR) {
  console.warn(`[edgar] ${EDGAR_DIR} is absent: tests on real EDGAR files are SKIPPED (the rest of the suite still runs).`);
}

/** Reads a file of the mirror by its EDGAR path, e.g. `submissions/CIK0000320193.json`. */
export function readEdgar(path: string): string {
  return readFileSync(join(EDGAR_DIR, path), "utf8");
}

/** Lists the files of a mirror folder (empty when the mirror is absent). */
export function listEdgar(folder: string): string[] {
  const dir = join(EDGAR_DIR, folder);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Every ownership XML of the mirror, as paths relative to the mirror root. */
export function listOwnershipXml(): string[] {
  if (!HAS_EDGAR) return [];
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(EDGAR_DIR, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith(".xml") && !entry.name.startsWith("FilingSummary")) out.push(child);
    }
  };
  walk("Archives/edgar/data");
  walk("Archives/edgar/unknown");
  return out.sort();
}

/**
 * A temporary mirror: the shared EDGAR folders linked in (never copied) with an overlay folder (by default
 * test/fixtures/overlay) laid over them. Returns its root; the caller removes it.
 */
export function makeOverlayMirror(overlay = join(import.meta.dirname, "fixtures", "overlay")): string {
  const root = mkdtempSync(join(tmpdir(), "edgar-overlay-"));
  const link = (rel: string) => {
    const from = join(EDGAR_DIR, rel);
    const over = join(overlay, rel);
    if (existsSync(over) && statSync(over).isDirectory()) {
      mkdirSync(join(root, rel), { recursive: true });
      const names = [...(existsSync(from) ? readdirSync(from) : []), ...readdirSync(over)];
      for (const name of new Set(names)) link(join(rel, name));
    } else {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      symlinkSync(existsSync(over) ? over : from, join(root, rel));
    }
  };
  for (const top of readdirSync(EDGAR_DIR)) link(top);
  return root;
}
