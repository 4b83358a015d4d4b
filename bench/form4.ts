// Benchmark: ownership XML parsing throughput over every Form 3/4/5 XML of the shared EDGAR mirror.
// Reads the mirror in place ($EDGAR_MIRROR or ../shared/edgar; never copies it).
import { parseOwnershipXml } from "../build/parse/form4.ts";
import { MIRROR } from "../test/_edgar-files.ts";

const DEFAULT_SECONDS = 3;
const WARM_UP_MS = 1000;
// Files under Archives/edgar/unknown/ have no recorded accession: a placeholder keeps the parser's contract.
const PLACEHOLDER_ACCESSION = "0000000000-00-000000";

/** Parses every ownership XML of the mirror repeatedly for a few seconds (`--seconds N`) and reports throughput. */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const at = args.indexOf("--seconds");
  const seconds = at >= 0 ? Number(args[at + 1]) || DEFAULT_SECONDS : DEFAULT_SECONDS;
  const docs = listDocuments();
  if (docs.length === 0) throw new Error(`no ownership XML under ${MIRROR.dir} (set EDGAR_MIRROR)`);
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
  return MIRROR.ownershipXml().map((path) => {
    const m = /\/(\d{10})(\d{2})(\d{6})\/[^/]+$/.exec(path);
    return { xml: MIRROR.read(path), ctx: { accession: m ? `${m[1]}-${m[2]}-${m[3]}` : PLACEHOLDER_ACCESSION, filedAt: null } };
  });
}
