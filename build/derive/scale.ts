// Unit-scale slips (issue 14 "Scale errors"): a value filed in thousands or millions under a unit that means ones —
// McDonald's diluted shares read 751.8 "shares" from its 2024 filings on, Under Armour's 2008 count 50,342 — or a
// sign a later filing flipped. Pure; corrects only what the evidence makes clear and marks the rest.
import type { SeriesSpec } from "./observations.ts";

/** The steps a slip makes: thousands or millions read as ones, or ones read as thousands or millions. */
const STEPS = [1e3, 1e6, 1e-3, 1e-6] as const;
/** Neighbouring periods within this factor of each other share a scale (a company may triple in a year). */
const SAME_SCALE = 30;
/** Amounts smaller than this are never read as flipped signs. */
const MIN_FLIP = 10_000;
/** How far a ratio may stray from a step and still be that step, by the evidence compared with. */
const SLACK = {
  /** Another series' identity (shares = net income ÷ EPS): EPS is rounded to the cent, classes of stock differ. */
  identity: 3,
  /** Another filing's value for the very same period: the same figure, rounded differently at most. */
  sameFiling: 1.05,
  /** A neighbouring period's value: the genuine change between periods (a steady series moves little). */
  neighbour: 2,
} as const;

/** One filing's value of a series for a period, corrected in place when it is a slip. */
export interface ScaledValue {
  value: number;
  accn: string;
  filed: string;
  /** Set when corrected: the value as filed is `factor` × the value now carried. */
  scale?: { factor: number; value_as_filed: number };
  /** Set when a neighbour or another filing differs by a scale step and the evidence cannot tell which side is wrong. */
  scaleUnclear?: number;
}

/** A period as the scale check sees it: its end and length, and per series each filing's value, oldest filing first. */
export interface ScalePeriod {
  end: string;
  months: number;
  values: ReadonlyMap<string, ScaledValue[]>;
}

/** A value another series implies for this one (earnings: diluted shares = net income ÷ diluted EPS), or null. */
export type IdentityReference = (period: ScalePeriod, series: string, value: ScaledValue) => number | null;

/**
 * Checks every filed value of every series, in `order` (share counts first: the other series' identities read
 * them), and corrects each slip the evidence makes clear, in this order of evidence:
 * 1. an identity with other series (decisive either way when it gives a step or agreement);
 * 2. the same period as other filings reported it: a later value at exactly −1× an earlier one is a flipped sign; at
 *    a step of 1,000 it is a slip, on the side the neighbouring periods disagree with;
 * 3. for steady series, the neighbouring periods of the same length (as corrected by 1 and 2): when both differ by
 *    one step the value is corrected; when one does and none agrees, it is marked unclear (never corrected).
 */
export function correctScales(
  periods: readonly ScalePeriod[],
  series: Readonly<Record<string, SeriesSpec>>,
  order: readonly string[],
  identity: IdentityReference = () => null,
): void {
  for (const name of order) {
    const { steady, kind } = series[name]!;
    const open: ScaledValue[] = []; // values no identity decided, with their period's values and the period
    const openValues: ScaledValue[][] = [];
    const openPeriods: ScalePeriod[] = [];
    for (const period of periods) {
      const values = period.values.get(name);
      if (!values) continue;
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        if (v.value === 0) continue;
        const reference = identity(period, name, v);
        const byIdentity = reference === null || reference === 0 ? null : stepBetween(v.value, reference, SLACK.identity);
        if (byIdentity !== null) {
          if (byIdentity !== 1) correct(v, byIdentity);
        } else if (kind === "per_share" || !flippedSign(v, values, i)) {
          open.push(v);
          openValues.push(values);
          openPeriods.push(period);
        }
      }
    }
    if (open.length === 0) continue;
    let known: ReturnType<typeof neighbourLanes> | null = null;
    const lanes = () => (known ??= neighbourLanes(periods, name));
    for (let k = 0; k < open.length; k++) {
      const [v, values, period] = [open[k]!, openValues[k]!, openPeriods[k]!];
      if (!steady && values.length < 2) continue;
      let other: ScaledValue | undefined;
      let step: number | null = null;
      for (const w of values) {
        if (w === v || w.scale !== undefined) continue;
        step = stepBetween(v.value, w.value, SLACK.sameFiling);
        if (isStep(step)) {
          other = w;
          break;
        }
      }
      if (other) {
        const [b, a] = neighbours(lanes(), period, [v.accn, other.accn]);
        const [mine, theirs] = [agreement(v.value, b, a), agreement(other.value, b, a)];
        if (mine < theirs) correct(v, step!);
        else if (mine === theirs) v.scaleUnclear = step!;
        continue;
      }
      if (!steady) continue;
      const [before, after] = neighbours(lanes(), period, [v.accn]);
      const b = before === null ? null : stepBetween(v.value, before, SLACK.neighbour, SAME_SCALE);
      const a = after === null ? null : stepBetween(v.value, after, SLACK.neighbour, SAME_SCALE);
      if (b === 1 || a === 1) continue;
      if (isStep(b) && b === a) correct(v, b!);
      else if (isStep(b) || isStep(a)) v.scaleUnclear = (isStep(b) ? b : a)!;
    }
    sameFiling(periods, name, open, openPeriods);
  }
}

/**
 * A slip is the filing's, not the value's: a filing that clearly stated some values of a series in the wrong scale
 * stated its other values of that series so too. Each of them left unclear at that step, or that agrees with no
 * neighbour as filed but does once corrected, is corrected with them.
 */
function sameFiling(periods: readonly ScalePeriod[], name: string, open: readonly ScaledValue[], openPeriods: readonly ScalePeriod[]): void {
  const slips = new Map<string, number>();
  for (const p of periods) for (const v of p.values.get(name) ?? []) if (v.scale && v.scale.factor !== -1) slips.set(v.accn, v.scale.factor);
  if (slips.size === 0) return;
  const lanes = neighbourLanes(periods, name);
  open.forEach((v, k) => {
    const step = slips.get(v.accn);
    if (step === undefined || v.scale) return;
    const [before, after] = neighbours(lanes, openPeriods[k]!, [v.accn]);
    if (v.scaleUnclear === step || agreement(v.value / step, before, after) > agreement(v.value, before, after)) {
      delete v.scaleUnclear;
      correct(v, step);
    }
  });
}

/**
 * The step s with value ≈ reference × s (within `slack`), 1 when they share a scale (within `same`), null when
 * neither holds.
 */
export function stepBetween(value: number, reference: number, slack: number, same = slack): number | null {
  if (value === 0 || reference === 0 || Math.sign(value) !== Math.sign(reference)) return null;
  const ratio = value / reference;
  if (ratio <= same && ratio >= 1 / same) return 1;
  for (const step of STEPS) if (ratio <= step * slack && ratio >= step / slack) return step;
  return null;
}

/**
 * A value that is exactly the negation of an earlier filing's value for the same period is a flipped sign (SunEdison's
 * 10-Q of November 2013 shows its restated 2012 first-quarter loss of 98.6 million as a profit); corrected by −1.
 * Amounts only, and not tiny ones: a per-share figure of a cent can genuinely turn into minus a cent.
 */
function flippedSign(v: ScaledValue, values: readonly ScaledValue[], index: number): boolean {
  if (Math.abs(v.value) < MIN_FLIP) return false;
  let earlier = false;
  for (let i = 0; i < index && !earlier; i++) earlier = values[i]!.value === -v.value && values[i]!.scale === undefined;
  if (!earlier) return false;
  correct(v, -1);
  return true;
}

/** How many of the neighbouring values share this value's scale. */
function agreement(value: number, before: number | null, after: number | null): number {
  return [before, after].filter((n) => n !== null && stepBetween(value, n, SLACK.neighbour, SAME_SCALE) === 1).length;
}

function isStep(step: number | null): boolean {
  return step !== null && step !== 1;
}

/** Divides by the factor, without the binary noise of dividing by 1e-6 (717.2 / 1e-6 is 717200000.0000001). */
function correct(v: ScaledValue, factor: number): void {
  v.scale = { factor, value_as_filed: v.value };
  v.value = Number((v.value / factor).toPrecision(15));
}

/**
 * For each period, the filed values of the series in the periods of the same length just before and just after it (by
 * end date): the neighbours a series is compared with (read through `neighbours`).
 */
function neighbourLanes(periods: readonly ScalePeriod[], name: string): Map<ScalePeriod, [ScaledValue[] | null, ScaledValue[] | null]> {
  const lanes = new Map<number, ScalePeriod[]>();
  for (const p of periods) {
    if (!p.values.get(name)?.length) continue;
    const lane = lanes.get(p.months);
    if (lane) lane.push(p);
    else lanes.set(p.months, [p]);
  }
  const out = new Map<ScalePeriod, [ScaledValue[] | null, ScaledValue[] | null]>();
  for (const lane of lanes.values()) {
    lane.sort((a, b) => (a.end < b.end ? -1 : a.end > b.end ? 1 : 0));
    lane.forEach((p, i) => out.set(p, [lane[i - 1]?.values.get(name) ?? null, lane[i + 1]?.values.get(name) ?? null]));
  }
  return out;
}

/**
 * The neighbouring values compared with the values of the filings `accns`: each neighbour's latest value from ANOTHER
 * filing (a filing's slip repeats in its own comparatives, so its own values are no witness for or against it).
 */
function neighbours(
  lanes: Map<ScalePeriod, [ScaledValue[] | null, ScaledValue[] | null]>,
  period: ScalePeriod,
  accns: readonly string[],
): [number | null, number | null] {
  const [before, after] = lanes.get(period) ?? [null, null];
  return [witness(before, accns), witness(after, accns)];
}

function witness(values: ScaledValue[] | null, accns: readonly string[]): number | null {
  if (!values) return null;
  for (let i = values.length - 1; i >= 0; i--) if (!accns.includes(values[i]!.accn)) return values[i]!.value;
  return null;
}
