// Benchmark: reading periodic reports' inline XBRL for /segments (issue 43.6) — the builder's step (parse the XBRL cut
// out of the XHTML, then pick the segment facts) against fast-xml-parser parsing the same bytes whole, per document.
// Goal: a 2.5 MB 10-K in ≤ 100 ms, and ≤ 2× the parser alone. Reads the shared filings set in place ($EDGAR_FILINGS).
import { XMLParser } from "fast-xml-parser";
import { readSegmentFiling } from "../build/pipeline/segment-documents.ts";
import { FILINGS } from "../test/_edgar-files.ts";
import { xbrlDocuments } from "../test/_segments.ts";
import { loadAverage, median, round2, stealMeter } from "./_stats.ts";

const DEFAULT_ROUNDS = 9;
/** The companies of the set with inline documents (Apple, Walmart, Home Depot, Alphabet). */
const CIKS = [320193, 104169, 354950, 1652044];
/** fast-xml-parser as a plain reader of the whole document (attributes kept, values as strings): the baseline. */
const WHOLE = new XMLParser({ ignoreAttributes: false, parseTagValue: false, processEntities: false, jPath: false });

/** Times each inline document `--rounds N` times (median) both ways; reports each and the largest. */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const at = args.indexOf("--rounds");
  const rounds = at >= 0 ? Number(args[at + 1]) || DEFAULT_ROUNDS : DEFAULT_ROUNDS;
  const docs = CIKS.flatMap((cik) => xbrlDocuments(cik, FILINGS.dir)).filter((d) => d.path.endsWith(".htm"));
  if (docs.length === 0) throw new Error(`no inline XBRL under ${FILINGS.dir} (set EDGAR_FILINGS)`);
  const steal = stealMeter();
  const load = loadAverage();
  const results = docs.map((doc) => {
    const meta = { accession: doc.accession, form: "10-K", filed_at: "2025-01-01", document: doc.path };
    const step = () => readSegmentFiling(doc.text, "inline", meta);
    const whole = () => WHOLE.parse(doc.text);
    for (let i = 0; i < 2; i++) (step(), whole()); // warm-up
    const ours = median(times(step, rounds));
    const parser = median(times(whole, rounds));
    return { document: doc.path.split("/").pop()!, mb: round2(doc.text.length / 1e6), ms: round2(ours), parser_ms: round2(parser), ratio: round2(ours / parser), facts: step().facts.length };
  });
  const largest = results.reduce((a, b) => (b.mb > a.mb ? b : a));
  const total = results.reduce((s, r) => s + r.ms, 0);
  return {
    documents: results.length,
    docs_per_s: Math.round((1000 * results.length) / total),
    largest,
    max_ratio: Math.max(...results.map((r) => r.ratio)),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    each: results,
    load_average: load,
    steal_percent: steal(),
  };
}

function times(fn: () => unknown, rounds: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    fn();
    out.push(performance.now() - start);
  }
  return out;
}
