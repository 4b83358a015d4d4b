// Stock splits seen in the data (DESIGN "Restatements"; pitfall 15), a rights offering's bonus element among them: the
// dates they took effect, from which a period whose per-share values predate one is flagged (schemas/earnings.ts
// splitUnadjustedAt). Never rescales a value (a guessed adjustment would be a value nobody filed).
import { PER_SHARE_METRICS, SHARE_COUNTS, type MetricName } from "../../schemas/earnings.ts";

/** How close a re-reported ratio must be to a whole split ratio (EPS is rounded to the cent). */
const TOLERANCE = 0.02;
/** A share count re-reported this close to a whole ratio is a split on its own (UA's 2016 Class C dividend shows once). */
const EXACT = 0.001;
/** EPS pairs whose larger value is below this are too coarse to read a ratio from (0.40 → 0.20 is no 2-for-1 split). */
const MIN_EPS = 0.5;
/** The share counts among the per-share metrics: a split multiplies them (it divides EPS). */
const COUNTS: ReadonlySet<MetricName> = new Set(SHARE_COUNTS.map((c) => c.shares));
/** Larger ratios are scale slips, not splits (McDonald's 2024 filings re-tag share counts in millions: 751800000 → 751.8). */
const MAX_RATIO = 500;
/** A share count and its EPS one filing re-reports at inverse ratios this close (counts in millions round) re-base them. */
const REBASED = 0.03;
/** A re-basing moves the count at least this much: nearer 1 it is a restatement or rounding. */
const MIN_REBASE = 0.05;

/** A metric's values for one period, one per filing, oldest filing first. */
export type History = readonly { value: number; accn: string; filed: string }[];

/** A split: its ratio, and the window it took effect in (after the last old-basis filing, by the first new-basis one). */
export interface Split {
  ratio: number;
  after: string;
  by: string;
  periods: Set<string>;
  /** A share-count witness matched the ratio to within EXACT, or re-based with its EPS (rebasings). */
  exact: boolean;
  /** When the filings first showed it (its second witness, or its exact one): it is not known before. */
  known?: string;
}

/**
 * Splits found in the per-share histories. A split shows as a period whose EPS or share count one filing re-reported at
 * a whole ratio n ≥ 2 (or 1/n, a reverse split) of the previous filing's value; such re-reports that overlap in time
 * form one split, which needs two periods as witnesses, or one share count re-reported at the ratio to 0.1% (a single
 * EPS restated by a round ratio is not enough: EPS is rounded, and restatements happen). A count and its EPS one filing
 * re-reports at inverse ratios are a split of any ratio (rebasings); re-reports within REBASED of a ratio are one split.
 */
export function detectSplits(histories: ReadonlyMap<string, ReadonlyMap<MetricName, History>>): Split[] {
  const events: { ratio: number; after: string; by: string; period: string; exact: boolean }[] = [];
  for (const [period, byMetric] of histories) {
    for (const name of PER_SHARE_METRICS) {
      const history = byMetric.get(name) ?? [];
      for (let i = 1; i < history.length; i++) {
        const [before, after] = [history[i - 1]!, history[i]!];
        const ratio = splitRatio(name, before.value, after.value);
        if (ratio === null) continue;
        const exact = COUNTS.has(name) && Math.abs(after.value / before.value / ratio - 1) <= EXACT;
        events.push({ ratio, after: before.filed, by: after.filed, period, exact });
      }
    }
    events.push(...rebasings(period, byMetric));
  }
  const splits: Split[] = [];
  for (const e of events.sort((a, b) => (a.by < b.by ? -1 : a.by > b.by ? 1 : 0))) {
    const same = splits.find((s) => Math.abs(s.ratio / e.ratio - 1) <= REBASED && maxOf(s.after, e.after) < minOf(s.by, e.by));
    const split = same ?? { ratio: e.ratio, after: e.after, by: e.by, periods: new Set<string>(), exact: false };
    if (same) [same.after, same.by] = [maxOf(same.after, e.after), minOf(same.by, e.by)];
    else splits.push(split);
    split.periods.add(e.period);
    split.exact ||= e.exact;
    // Events come in filing order, so this is the first date the filings made by then show the split.
    if (split.known === undefined && (split.periods.size >= 2 || split.exact)) split.known = e.by;
  }
  return splits.filter((s) => s.known !== undefined);
}

/**
 * Splits of any ratio: a filing that re-reports a period's weighted share count × r and its EPS ÷ r (the net income
 * they divide unchanged) re-bases the company's shares, as a split does. A rights offering's bonus element is such a
 * split (ASC 260-10-55-13): Hertz's 10-Qs of 2019-08-07 and 2019-11-05 and its 10-K of 2020-02-25 re-report 2018's
 * periods on about 1.14 times the shares (diluted, fiscal 2018: 84 → 96 million, EPS −2.68 → −2.35), and its first
 * quarter of 2018, whose count no filing re-reported, serves the re-based EPS −2.13 beside the old count of 83 million.
 * Whole ratios are found (and rounding judged) by splitRatio; these are the others.
 */
function rebasings(period: string, byMetric: ReadonlyMap<MetricName, History>): { ratio: number; after: string; by: string; period: string; exact: boolean }[] {
  const out: { ratio: number; after: string; by: string; period: string; exact: boolean }[] = [];
  for (const { shares, eps } of SHARE_COUNTS) {
    const [counts, perShare] = [byMetric.get(shares) ?? [], byMetric.get(eps) ?? []];
    for (let i = 1; i < counts.length; i++) {
      const [before, after] = [counts[i - 1]!, counts[i]!];
      const grow = after.value / before.value;
      if (Math.abs(grow - 1) < MIN_REBASE || splitRatio(shares, before.value, after.value) !== null) continue;
      const k = perShare.findIndex((e, j) => j > 0 && e.accn === after.accn);
      if (k < 0 || perShare[k - 1]!.value === 0 || perShare[k]!.value === 0) continue;
      const shrink = perShare[k - 1]!.value / perShare[k]!.value;
      if (Math.abs(shrink / grow - 1) > REBASED) continue;
      out.push({ ratio: grow, after: maxOf(before.filed, perShare[k - 1]!.filed), by: after.filed, period, exact: true });
    }
  }
  return out;
}

/** The split ratio (n for n-for-1, 1/n for a reverse split) that turns `before` into `after`, or null. */
function splitRatio(name: MetricName, before: number, after: number): number | null {
  if (before === 0 || after === 0 || Math.sign(before) !== Math.sign(after)) return null;
  if (!COUNTS.has(name) && Math.max(Math.abs(before), Math.abs(after)) < MIN_EPS) return null;
  const grow = COUNTS.has(name) ? after / before : before / after;
  for (const [r, sign] of [[grow, 1], [1 / grow, -1]] as const) {
    const n = Math.round(r);
    if (n >= 2 && n <= MAX_RATIO && Math.abs(r - n) <= TOLERANCE * n) return sign === 1 ? n : 1 / n;
  }
  return null;
}

function maxOf(a: string, b: string): string {
  return a > b ? a : b;
}

function minOf(a: string, b: string): string {
  return a < b ? a : b;
}
