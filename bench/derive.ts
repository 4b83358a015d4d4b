// Benchmark: company facts text → parseCompanyFacts → the earnings and the statements (issue 18: every document made
// from company facts), against bare JSON.parse of the same texts. Reads the whole shared EDGAR mirror in place
// ($EDGAR_MIRROR or ../shared/edgar: whole files, not the cut fixtures). Also the floor no derivation goes below:
// reading the files and grouping their facts by series and period, before any rule.
import { METRIC_CONCEPTS } from "../build/derive/concepts.ts";
import { deriveEarningsBase } from "../build/derive/earnings.ts";
import { observe } from "../build/derive/observations.ts";
import { EPS_NUMERATORS } from "../build/derive/statement-concepts.ts";
import { deriveFinancials, STATEMENT_SERIES } from "../build/derive/statements.ts";
import { readCompanyFacts } from "../build/derive/company-facts.ts";
import { MIRROR } from "../test/_edgar-files.ts";

const FOLDER = "api/xbrl/companyfacts";
/** Alternating timed rounds of each measurement (after one warm-up round); the median is reported. */
const ROUNDS = 7;

/**
 * Times JSON.parse and the whole derivation over every company facts file, alternating, and reports medians in MB/s;
 * the parts (parse, earnings, statements) are timed in their own alternating rounds, to show where the time goes; the
 * floor (reading and observing every series the derivations read, no rule) shows what time is left for the rules.
 */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const rounds = Number(args[0] ?? ROUNDS);
  if (!MIRROR.present) throw new Error(`the shared EDGAR mirror is absent from ${MIRROR.dir} (set EDGAR_MIRROR)`);
  const texts = MIRROR.list(FOLDER)
    .filter((f) => f.endsWith(".json"))
    .map((f) => MIRROR.read(`${FOLDER}/${f}`));
  const mb = texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0) / 1e6;
  let [periods, rows] = [0, 0];
  const bare = () => {
    for (const t of texts) JSON.parse(t);
  };
  const full = () => {
    [periods, rows] = [0, 0];
    for (const t of texts) {
      const facts = readCompanyFacts(t);
      const earnings = deriveEarningsBase(facts);
      periods += earnings.series.periods.length;
      rows += deriveFinancials(facts, earnings).periods.length;
    }
  };
  const facts = texts.map((t) => readCompanyFacts(t));
  const bases = facts.map((f) => deriveEarningsBase(f));
  const parts = {
    parse: () => texts.forEach((t) => readCompanyFacts(t)),
    earnings: () => facts.forEach((f) => deriveEarningsBase(f)),
    statements: () => facts.forEach((f, i) => deriveFinancials(f, bases[i]!)),
    floor: () =>
      texts.forEach((t) => {
        const read = readCompanyFacts(t);
        const { currency } = observe(read, METRIC_CONCEPTS);
        observe(read, STATEMENT_SERIES, currency);
        observe(read, EPS_NUMERATORS, currency);
      }),
  };
  bare();
  full();
  const times: Record<"json" | "full" | keyof typeof parts, number[]> = { json: [], full: [], parse: [], earnings: [], statements: [], floor: [] };
  for (let i = 0; i < rounds; i++) {
    times.json.push(time(bare));
    times.full.push(time(full));
    for (const [name, fn] of Object.entries(parts)) times[name as keyof typeof parts].push(time(fn));
  }
  const jsonParse = mb / median(times.json);
  const derive = mb / median(times.full);
  // Each ratio is the median of the rounds' own ratios: a round's measurements run back to back, so a change in the
  // machine's load between rounds moves both sides of its ratio.
  const perRound = (part: readonly number[]) => median(times.json.map((json, i) => json / part[i]!));
  return {
    files: texts.length,
    mb: round(mb),
    periods,
    financials_rows: rows,
    json_parse_mb_s: round(jsonParse),
    derive_mb_s: round(derive),
    ms: { json_parse: ms(times.json), all: ms(times.full), parse: ms(times.parse), earnings: ms(times.earnings), statements: ms(times.statements), floor: ms(times.floor) },
    ratio: round(perRound(times.full)),
    // Reading alone (the strict scanner, issue 17's goal ≥ 1.5): JSON.parse's time over the scanner's.
    parse_ratio: round(perRound(times.parse)),
    // The ratio of reading and observing alone: the most any derivation of these series could reach.
    floor_ratio: round(perRound(times.floor)),
    // What the rules take (the whole derivation less the floor), and what they could take for ratio 1.0.
    rules_ms: ms(times.full.map((t, i) => t - times.floor[i]!)),
    rules_budget_ms: ms(times.json.map((t, i) => t - times.floor[i]!)),
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

function ms(seconds: number[]): number {
  return Math.round(median(seconds) * 1000);
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
