// Period identity (issue 14 "Period identity"; DESIGN "Derivation rules"): one period per span. Filings disagree on a
// period's dates by a day or a week (Home Depot's Q2 2012 starts 2012-05-01 in one 10-Q, 2012-04-30 in three later filings).
import type { Observation, RawInstant, RawSpan } from "./observations.ts";
import { addDays, durationDays, SAME_PERIOD_DAYS, type Months } from "./periods.ts";

/** Dates a filing used for a period other than the ones the period carries, with the latest filing that used them. */
export interface AlternativeDates {
  start: string;
  end: string;
  accn: string;
}

/** One period: its dates, month class, every filing's observations of it, and the other dates filings gave it. */
export interface Period {
  start: string;
  end: string;
  months: Months;
  observations: Observation[];
  alternatives: AlternativeDates[];
}

/**
 * Merges durations of the same month class whose starts and ends lie within SAME_PERIOD_DAYS of each other into one
 * period (so never two periods of one length end within a week of each other). The period takes the dates that chain
 * with the company's other periods (its start the day after another period's end, or another period's start: a year
 * and its year-to-date periods start together — calendar-true), then those most filings used, then the latest
 * filing's; the others are kept as `alternatives`. Values stay per filing: the latest
 * filing still wins (DESIGN "Restatements").
 */
export function mergeSpans(spans: readonly RawSpan[]): Period[] {
  const ends = new Set<string>();
  const starts = new Map<string, number>();
  for (const s of spans) {
    ends.add(s.end);
    starts.set(s.start, (starts.get(s.start) ?? 0) + 1);
  }
  const sorted = [...spans].sort((a, b) => a.months - b.months || cmp(a.end, b.end) || cmp(a.start, b.start));
  const clusters: RawSpan[][] = [];
  for (const span of sorted) {
    const open = clusters.at(-1);
    const last = open?.at(-1);
    if (open && last && last.months === span.months && close(last.end, span.end) && open.some((s) => close(s.start, span.start))) {
      open.push(span);
    } else clusters.push([span]);
  }
  return clusters.map((cluster) => toPeriod(cluster, ends, starts));
}

/** The period of a cluster: calendar-true dates, else those most filings used (then the latest filing's); the rest as alternatives. */
function toPeriod(cluster: RawSpan[], ends: ReadonlySet<string>, starts: ReadonlyMap<string, number>): Period {
  if (cluster.length === 1) {
    const [{ start, end, months, observations }] = cluster as [RawSpan];
    return { start, end, months, observations, alternatives: [] };
  }
  const ranked = cluster
    .map((span) => ({
      span,
      chains: ends.has(addDays(span.start, -1)) || starts.get(span.start)! > cluster.filter((c) => c.start === span.start).length ? 1 : 0,
      accessions: new Set(span.observations.map((o) => o.accn)),
      latest: latestFiling(span.observations),
    }))
    .sort(
      (a, b) =>
        b.chains - a.chains || b.accessions.size - a.accessions.size || cmp(b.latest.filed, a.latest.filed) || cmp(b.latest.accn, a.latest.accn),
    );
  const chosen = ranked[0]!.span;
  return {
    start: chosen.start,
    end: chosen.end,
    months: chosen.months,
    // Grouped by series again (a stable sort keeps each filing's concepts in priority order): earnings.ts reads them so.
    observations: cluster.flatMap((s) => s.observations).sort((a, b) => (a.series < b.series ? -1 : a.series > b.series ? 1 : 0)),
    alternatives: ranked.slice(1).map(({ span, latest }) => ({ start: span.start, end: span.end, accn: latest.accn })),
  };
}

/** One balance sheet date: every filing's observations of it, and the other dates filings gave it. */
export interface InstantPeriod {
  date: string;
  observations: Observation[];
  alternatives: { date: string; accn: string }[];
}

/**
 * The same rule for instants: dates within SAME_PERIOD_DAYS of each other are one balance sheet date (a filing dates
 * its balance sheet by the calendar month end, another by the 52/53-week Saturday). The date kept is a period end of
 * `ends` when one is (the balance of a period sits at its end), then the one most filings used, then the latest.
 */
export function mergeInstants(instants: readonly RawInstant[], ends: ReadonlySet<string>): InstantPeriod[] {
  const sorted = [...instants].sort((a, b) => cmp(a.date, b.date));
  const clusters: RawInstant[][] = [];
  for (const instant of sorted) {
    const open = clusters.at(-1);
    if (open && close(open[0]!.date, instant.date)) open.push(instant);
    else clusters.push([instant]);
  }
  return clusters.map((cluster) => {
    if (cluster.length === 1) return { date: cluster[0]!.date, observations: cluster[0]!.observations, alternatives: [] };
    const ranked = cluster
      .map((instant) => ({ instant, end: ends.has(instant.date) ? 1 : 0, accessions: new Set(instant.observations.map((o) => o.accn)).size, latest: latestFiling(instant.observations) }))
      .sort((a, b) => b.end - a.end || b.accessions - a.accessions || cmp(b.latest.filed, a.latest.filed) || cmp(b.latest.accn, a.latest.accn));
    return {
      date: ranked[0]!.instant.date,
      observations: cluster.flatMap((i) => i.observations).sort((a, b) => (a.series < b.series ? -1 : a.series > b.series ? 1 : 0)),
      alternatives: ranked.slice(1).map(({ instant, latest }) => ({ date: instant.date, accn: latest.accn })),
    };
  });
}

function close(a: string, b: string): boolean {
  return Math.abs(durationDays(a < b ? a : b, a < b ? b : a) - 1) <= SAME_PERIOD_DAYS;
}

function latestFiling(observations: readonly Observation[]): { filed: string; accn: string } {
  let best = observations[0]!;
  for (const o of observations) if (o.filed > best.filed || (o.filed === best.filed && o.accn > best.accn)) best = o;
  return best;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
