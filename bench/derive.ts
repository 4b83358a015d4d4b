// Benchmark: company facts text → parseCompanyFacts → deriveEarnings, against bare JSON.parse of the same texts.
// Reads the whole shared EDGAR mirror in place ($EDGAR_MIRROR or ../shared/edgar: whole files, not the cut fixtures).
import { deriveEarnings } from "../build/derive/earnings.ts";
import { parseCompanyFacts } from "../build/parse/companyfacts.ts";
import { MIRROR } from "../test/_edgar-files.ts";

const FOLDER = "api/xbrl/companyfacts";
/** Alternating timed rounds of each measurement (after one warm-up round); the median is reported. */
const ROUNDS = 7;

/** Times JSON.parse and the full derivation over every company facts file, alternating, and reports medians in MB/s. */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const rounds = Number(args[0] ?? ROUNDS);
  if (!MIRROR.present) throw new Error(`the shared EDGAR mirror is absent from ${MIRROR.dir} (set EDGAR_MIRROR)`);
  const texts = MIRROR.list(FOLDER)
    .filter((f) => f.endsWith(".json"))
    .map((f) => MIRROR.read(`${FOLDER}/${f}`));
  const mb = texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0) / 1e6;
  let periods = 0;
  const bare = () => {
    for (const t of texts) JSON.parse(t);
  };
  const full = () => {
    periods = 0;
    for (const t of texts) periods += deriveEarnings(parseCompanyFacts(t)).periods.length;
  };
  bare();
  full();
  const [parseTimes, deriveTimes]: [number[], number[]] = [[], []];
  for (let i = 0; i < rounds; i++) {
    parseTimes.push(time(bare));
    deriveTimes.push(time(full));
  }
  const jsonParse = mb / median(parseTimes);
  const derive = mb / median(deriveTimes);
  return {
    files: texts.length,
    mb: round(mb),
    periods,
    json_parse_mb_s: round(jsonParse),
    derive_mb_s: round(derive),
    ratio: round(derive / jsonParse),
  };
}

function time(fn: () => void): number {
  const start = performance.now();
  fn();
  return (performance.now() - start) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
