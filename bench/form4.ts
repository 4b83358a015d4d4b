// Benchmark: ownership XML parsing throughput over every Form 3/4/5 XML of the shared EDGAR mirror.
// Reads the mirror in place (never copies it); imports nothing from test/ (that would pull in vitest).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseOwnershipXml } from "../build/parse/form4.ts";

const EDGAR_DIR = resolve(process.env.EDGAR_FIXTURES ?? join(import.meta.dirname, "..", "..", "shared", "edgar"));
const FOLDERS = ["Archives/edgar/data", "Archives/edgar/unknown"];
const DEFAULT_SECONDS = 3;
const WARM_UP_MS = 1000;
// Files under Archives/edgar/unknown/ have no recorded accession: a placeholder keeps the parser's contract.
const PLACEHOLDER_ACCESSION = "0000000000-00-000000";

/** Parses every ownership XML of the mirror repeatedly for a few seconds (`--seconds N`) and reports throughput. */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const at = args.indexOf("--seconds");
  const seconds = at >= 0 ? Number(args[at + 1]) || DEFAULT_SECONDS : DEFAULT_SECONDS;
  const docs = listDocuments();
  if (docs.length === 0) throw new Error(`no ownership XML under ${EDGAR_DIR} (set EDGAR_FIXTURES)`);
  const bytes = docs.reduce((sum, d) => sum + d.xml.length, 0);

  // Warm-up: let the JIT settle before timing (a single pass measures the interpreter, not the parser).
  const warm = performance.now() + WARM_UP_MS;
  while (performance.now() < warm) for (const d of docs) parseOwnershipXml(d.xml, d.ctx);
  let parsed = 0;
  let rowCount = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  while (performance.now() < deadline) {
    for (const d of docs) rowCount += parseOwnershipXml(d.xml, d.ctx).transactions.length;
    parsed += docs.length;
  }
  const elapsed = (performance.now() - start) / 1000;
  return {
    documents: docs.length,
    bytes,
    passes: parsed / docs.length,
    seconds: Math.round(elapsed * 100) / 100,
    docs_per_s: Math.round(parsed / elapsed),
    rows_per_s: Math.round(rowCount / elapsed),
    mb_per_s: Math.round(((bytes * (parsed / docs.length)) / elapsed / 1e6) * 10) / 10,
  };
}

function listDocuments(): { xml: string; ctx: { accession: string; filedAt: null } }[] {
  const out: { xml: string; ctx: { accession: string; filedAt: null } }[] = [];
  for (const folder of FOLDERS) {
    for (const path of walk(join(EDGAR_DIR, folder))) {
      const m = /\/(\d{10})(\d{2})(\d{6})\/[^/]+$/.exec(path);
      const accession = m ? `${m[1]}-${m[2]}-${m[3]}` : PLACEHOLDER_ACCESSION;
      out.push({ xml: readFileSync(path, "utf8"), ctx: { accession, filedAt: null } });
    }
  }
  return out;
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return entry.name.endsWith(".xml") && !entry.name.startsWith("FilingSummary") ? [path] : [];
  });
}
