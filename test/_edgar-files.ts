// The real EDGAR files tests read: the repository's fixtures (test/fixtures/edgar, always there) and, for the few
// tests that need all of it, the whole shared mirror (../shared/edgar, read in place, absent on a fresh clone).
// Free of vitest, so benchmarks use it too; suites use describeEdgar / describeMirror from _edgar.ts.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** A folder of EDGAR files in EDGAR's URL layout. */
export interface EdgarFiles {
  dir: string;
  /** True when the folder holds its PROVENANCE.md. */
  present: boolean;
  /** A file by its EDGAR path, e.g. `submissions/CIK0000320193.json`. */
  read(path: string): string;
  /** The file names of a folder, sorted (empty when the folder is absent). */
  list(folder: string): string[];
  /** Every ownership XML, as paths relative to the root. */
  ownershipXml(): string[];
}

/** The EDGAR files under `dir`. */
export function edgarFiles(dir: string): EdgarFiles {
  const present = existsSync(join(dir, "PROVENANCE.md"));
  return {
    dir,
    present,
    read: (path) => readFileSync(join(dir, path), "utf8"),
    list(folder) {
      const at = join(dir, folder);
      return existsSync(at) ? readdirSync(at).sort() : [];
    },
    ownershipXml() {
      if (!present) return [];
      const out: string[] = [];
      const walk = (rel: string) => {
        if (!existsSync(join(dir, rel))) return;
        for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
          const child = `${rel}/${entry.name}`;
          if (entry.isDirectory()) walk(child);
          // XBRL beside the ownership XML (an extracted instance, a label linkbase: issue 43) is not an ownership document.
          else if (entry.name.endsWith(".xml") && !entry.name.startsWith("FilingSummary") && !/_(htm|lab)\.xml$/.test(entry.name)) out.push(child);
        }
      };
      walk("Archives/edgar/data");
      walk("Archives/edgar/unknown");
      return out.sort();
    },
  };
}

/** The accession a filing's folder is named for: `000032019325000057` → `0000320193-25-000057`. */
export function accessionOfFolder(folder: string): string {
  return `${folder.slice(0, 10)}-${folder.slice(10, 12)}-${folder.slice(12)}`;
}

/** Root of the repository's EDGAR fixtures (a curated, cut set of the shared mirror; see its PROVENANCE.md). */
export const EDGAR_DIR = join(import.meta.dirname, "fixtures", "edgar");
const fixtures = edgarFiles(EDGAR_DIR);

/** True when the fixtures are present (always, in a checkout). */
export const HAS_EDGAR = fixtures.present;

/** Reads a fixture by its EDGAR path, e.g. `submissions/CIK0000320193.json`. */
export function readEdgar(path: string): string {
  return fixtures.read(path);
}

/** Lists the files of a fixture folder (empty when it is absent). */
export function listEdgar(folder: string): string[] {
  return fixtures.list(folder);
}

/** Every ownership XML of the fixtures, as paths relative to their root. */
export function listOwnershipXml(): string[] {
  return fixtures.ownershipXml();
}

/** The whole shared EDGAR mirror: $EDGAR_MIRROR, else ../shared/edgar beside the project (absent on a fresh clone). */
export const MIRROR = edgarFiles(resolve(process.env.EDGAR_MIRROR ?? join(import.meta.dirname, "..", "..", "shared", "edgar")));

/**
 * The periodic reports' XBRL of the shared set (../shared/edgar-filings, $EDGAR_FILINGS): inline documents, extracted
 * instances, in EDGAR's Archives layout, pairing with MIRROR's submissions and company facts (absent on a fresh clone).
 */
export const FILINGS = edgarFiles(resolve(process.env.EDGAR_FILINGS ?? join(import.meta.dirname, "..", "..", "shared", "edgar-filings")));

/**
 * A temporary mirror: the fixtures' folders linked in (never copied) with an overlay folder (by default
 * test/fixtures/overlay) laid over them. Returns its root; the caller removes it.
 */
export function makeOverlayMirror(overlay = join(import.meta.dirname, "fixtures", "overlay"), base = EDGAR_DIR): string {
  const root = mkdtempSync(join(tmpdir(), "edgar-overlay-"));
  const link = (rel: string) => {
    const from = join(base, rel);
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
  for (const top of readdirSync(base)) link(top);
  return root;
}

/**
 * Makes `path` of a mirror made by makeOverlayMirror the mirror's own file, a copy: each folder linked in on the way
 * becomes a folder of links, so that a test may rewrite or remove the file without touching the fixtures it came from.
 * Returns the file's full path.
 */
export function ownFile(root: string, path: string): string {
  let at = root;
  for (const part of path.split("/").slice(0, -1)) {
    at = join(at, part);
    if (!lstatSync(at).isSymbolicLink()) continue;
    const target = realpathSync(at);
    unlinkSync(at);
    mkdirSync(at);
    for (const name of readdirSync(target)) symlinkSync(join(target, name), join(at, name));
  }
  const file = join(root, path);
  const bytes = readFileSync(file);
  unlinkSync(file);
  writeFileSync(file, bytes);
  return file;
}

/**
 * TSMC's row of EDGAR's ticker map, which the fixtures' map leaves out (cut-edgar.ts: its company facts are in the set,
 * its submissions in no mirror), so that a build over the fixtures fails no company. A test that wants a company
 * whose source fails adds it back (addTickerRows).
 */
export const TSM_ROW = { cik_str: 1046179, ticker: "TSM", title: "TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD" };

/** Adds rows to the ticker map of a mirror made by makeOverlayMirror (its own copy: the fixtures stay as they are). */
export function addTickerRows(root: string, rows: readonly { cik_str: number; ticker: string; title: string }[]): void {
  const file = ownFile(root, "files/company_tickers.json");
  const map = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const size = Object.keys(map).length;
  writeFileSync(file, JSON.stringify({ ...map, ...Object.fromEntries(rows.map((row, i) => [String(size + i), row])) }));
}
