// Unit-scale slips (issue 14 "Scale errors"): a value filed in thousands or millions under a unit that means ones —
// McDonald's diluted shares read 751.8 "shares" from its 2024 filings on, Under Armour's 2008 count 50,342 — or a
// sign a later filing flipped. Pure; corrects only what the evidence makes clear and marks the rest.
//
// Every value is weighed against independent witnesses, each of which agrees with it, differs from it by a scale step,
// or says nothing: the same period in other filings, the neighbouring periods of the same length, for steady series
// the periods of other lengths nested with it, and identities between series of the same filing (net income =
// EPS × shares). No single witness decides: an identity shows that one of its members is off, not which one.
import type { SeriesSpec } from "./observations.ts";
import { dayNumber } from "./periods.ts";

/** The steps a slip makes: thousands or millions read as ones, or ones read as thousands or millions. */
const STEPS = [1e3, 1e6, 1e-3, 1e-6] as const;
/** Neighbouring periods within this factor of each other share a scale (a company may triple in a year). */
const SAME_SCALE = 30;
/** Amounts smaller than this are never read as flipped signs. */
const MIN_FLIP = 10_000;
/** EPS this close to zero is rounded too coarsely to imply anything (a cent either way is a factor of two). */
const MIN_EPS = 0.01;
/** How far a ratio may stray from a step and still be that step, by the evidence compared with. */
const SLACK = {
  /** Another series' identity (shares = net income ÷ EPS): EPS is rounded to the cent, classes of stock differ. */
  identity: 3,
  /** Another filing's value for the very same period: the same figure, rounded differently at most. */
  sameFiling: 1.05,
  /** A neighbouring period's value: the genuine change between periods (a steady series moves little). */
  neighbour: 2,
} as const;
/** Corrections are witnesses for the values checked after them (a corrected comparative, its neighbours): re-read this often at most. */
const PASSES = 12;

/** One filing's value of a series for a period, corrected in place when it is a slip. */
export interface ScaledValue {
  value: number;
  accn: string;
  filed: string;
  /** Set when corrected: the value as filed is `factor` × the value now carried. */
  scale?: { factor: number; value_as_filed: number };
  /** Set when a neighbour or another filing differs by a scale step and the evidence cannot tell which side is wrong. */
  scaleUnclear?: number;
  /** Set when some figure differs from the value by a scale step but more agree with it as filed: those that agree. */
  scaleConfirmed?: string;
}

/** A period as the scale check sees it: its dates and length, and per series each filing's value, oldest filing first. */
export interface ScalePeriod {
  /** Absent for instants (balance sheet dates): then no period is nested in it. */
  start?: string;
  end: string;
  months: number;
  values: ReadonlyMap<string, ScaledValue[]>;
}

/** A value another series implies for this one, decisive either way (the statements: total assets = liabilities + equity), or null. */
export type IdentityReference = (period: ScalePeriod, series: string, value: ScaledValue) => number | null;

/**
 * An identity between series of one filing and period: `product` ≈ `factors[0]` × `factors[1]` (net income = diluted
 * EPS × diluted shares, and basic alike). A witness for each of its members, never decisive: a mismatch shows that one
 * is off.
 */
export interface ProductIdentity {
  product: string;
  factors: readonly [string, string];
}

/** What one witness says of a value: agrees (1), differs by a step (the step), or nothing (null). */
interface Witness {
  kind: "filing" | "before" | "after" | "neighbours" | "nested" | "sum" | "identity";
  verdict: number | null;
  /** The figure compared with, as it is now (corrected where it was). */
  value: number;
  accn: string;
  period: ScalePeriod;
  /** For another filing's value of the same period: that value itself. */
  peer?: ScaledValue;
  /** For an identity: the other members' names and values (of the same filing where it has them). */
  members?: { name: string; v: ScaledValue }[];
}

/** A value under examination: its series, period and the period's list of values of the series. */
interface Item {
  name: string;
  v: ScaledValue;
  period: ScalePeriod;
  values: ScaledValue[];
}

/**
 * Checks every filed value of every series and corrects each slip the evidence makes clear:
 * 1. `identity` (the statements' balance sheet) decides either way where it gives a step or agreement;
 * 2. a later value at exactly −1× an earlier filing's value for the same period is a flipped sign;
 * 3. every other value is weighed against its witnesses: other filings' values of the same period; the neighbouring
 *    periods of the same length (each a witness for `steady` series; together one for `checkNeighbours` series, whose
 *    genuine changes can be large — a loss year, a one-off gain; only in agreement for the others); for steady series
 *    the period of another length nested with it; for a quarter of an additive series, a longer period less the rest
 *    of it; each `products` identity of the same filing. Witnesses of one filing count once, neighbours and nested
 *    periods are read as filed closest in time to the value, and a value its own filing's identity contradicts is no
 *    witness. A value is corrected by a step when
 *    - an identity shows it off by the step, every other witness of the identity's other members confirms them, and
 *      nothing else confirms it (a net income in thousands beside EPS and shares that agree with their neighbours);
 *    - at least two filings' witnesses show the step and more show it than agree with the value as filed; or
 *    - another filing's value of the same period differs by the step and more witnesses side with that one.
 *    The clearest cases are decided first, on the witnesses as corrected so far (`order` breaks ties: share counts
 *    first); a filing's slip carries to its other values of the series unless they agree better as filed.
 * A value still contradicted is marked `scaleUnclear` when nothing agrees with it, or another filing's value of the
 * period differs by the step and neither side wins; else `scaleConfirmed` with what agrees with it (a real change).
 */
export function correctScales(
  periods: readonly ScalePeriod[],
  series: Readonly<Record<string, SeriesSpec>>,
  order: readonly string[],
  identity: IdentityReference = () => null,
  products: readonly ProductIdentity[] = [],
): void {
  const open = new Map<string, Item[]>();
  const decided: { name: string; v: ScaledValue }[] = []; // corrected by `identity`: their filings' other values follow
  for (const name of order) {
    const { kind } = series[name]!;
    const items: Item[] = [];
    for (const period of periods) {
      const values = period.values.get(name) as ScaledValue[] | undefined;
      if (!values) continue;
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        if (v.value === 0) continue;
        const reference = identity(period, name, v);
        const byIdentity = reference === null || reference === 0 ? null : stepBetween(v.value, reference, SLACK.identity);
        if (byIdentity !== null) {
          if (byIdentity !== 1) {
            correct(v, byIdentity);
            decided.push({ name, v });
          }
        } else if (kind === "per_share" || !flippedSign(v, values, i)) items.push({ name, v, period, values });
      }
    }
    if (items.length) open.set(name, items);
  }
  if (open.size === 0) return;
  const evidence = new Evidence(periods, series, products);
  // A series' open values of one filing, found when a slip of that filing is tried on all of them (rarely).
  const openOfFiling = (name: string, accn: string) => open.get(name)?.filter((item) => item.v.accn === accn) ?? [];
  for (const { name, v } of decided) sameFiling(evidence, openOfFiling(name, v.accn), v.scale!.factor);
  // Only values some witness contradicts are weighed again; the rest agree with everything they can be compared with.
  const all: Item[] = [];
  for (const items of open.values()) for (const item of items) all.push(item);
  let suspects = all.filter((item) => evidence.contradicted(item, item.v.value));
  for (let pass = 0; pass < PASSES; pass++) {
    let changed = false;
    // The clearest cases first, each decided on the witnesses as corrected so far: a filing's slip is corrected before
    // its slipped values can count against the right values beside them.
    const ranked = suspects.map((item) => ({ item, margin: evidence.margin(item) })).sort((a, b) => b.margin - a.margin);
    for (const { item } of ranked) {
      if (item.v.scale) continue;
      const step = evidence.decide(item);
      if (step !== null) {
        correct(item.v, step);
        sameFiling(evidence, openOfFiling(item.name, item.v.accn), step);
        changed = true;
      }
    }
    if (!changed) break;
    suspects = all.filter((item) => !item.v.scale && evidence.contradicted(item, item.v.value));
  }
  for (const item of suspects) if (!item.v.scale) evidence.mark(item);
}

/** The witnesses of values, over the periods as they are now (corrections are read as they happen). */
class Evidence {
  private readonly lanes = new Map<string, Map<ScalePeriod, [ScalePeriod | null, ScalePeriod | null]>>();
  /** Per series, whether all its values lie within a factor no step can hide in, before any correction. */
  private readonly narrowness = new Map<string, boolean>();
  /** The screens of one period's values of one series, as of a count of corrections (`contradicted`). */
  private screened: { list: readonly ScaledValue[] | null; at: number; values: number[]; found: boolean[] } = { list: null, at: -1, values: [], found: [] };
  /** Whether a value may witness, as of a count of corrections (any correction can change it). */
  private readonly reliability = new Map<ScaledValue, { version: number; ok: boolean }>();
  private nestedOf: Map<ScalePeriod, ScalePeriod[]> | null = null;
  private readonly complementsOf = new Map<ScalePeriod, [ScalePeriod, ScalePeriod][]>();
  private readonly othersOf = new Map<ProductIdentity, [[string, string], [string, string]]>();
  /** The members the last `impliedValue` read. */
  private readonly pair: [ScaledValue | null, ScaledValue | null] = [null, null];
  private readonly perShare: ReadonlySet<string>;
  private readonly createdAt: number;

  private readonly periods: readonly ScalePeriod[];
  private readonly series: Readonly<Record<string, SeriesSpec>>;
  private readonly products: readonly ProductIdentity[];

  constructor(periods: readonly ScalePeriod[], series: Readonly<Record<string, SeriesSpec>>, products: readonly ProductIdentity[]) {
    this.periods = periods;
    this.series = series;
    this.products = products;
    this.createdAt = corrections;
    this.perShare = new Set(Object.keys(series).filter((name) => series[name]!.kind === "per_share"));
  }

  /**
   * Whether any witness may differ from `value` by a step (most values: none, and nothing more is done for them). A
   * quick screen that reads every figure a witness could be drawn from, of any filing, so it may say yes where weighing
   * the witnesses finds nothing, never no where they find a step. Apart from the filing's own identity it depends only
   * on the period, series and value: a figure several filings repeat is screened once.
   */
  contradicted(item: Item, value: number): boolean {
    const { name, v, period, values } = item;
    // Values come grouped by period and series: the screens of the group's values so far are kept.
    if (this.screened.list !== values || this.screened.at !== corrections) this.screened = { list: values, at: corrections, values: [], found: [] };
    const k = this.screened.values.indexOf(value);
    const found = k >= 0 ? this.screened.found[k]! : this.screen(name, period, value);
    if (k < 0) {
      this.screened.values.push(value);
      this.screened.found.push(found);
    }
    if (found) return true;
    for (const relation of this.products) {
      const implied = this.impliedValue(relation, name, period, v.accn);
      if (implied !== null) return isStep(stepBetween(value, implied, SLACK.identity));
    }
    return false;
  }

  /** The screen of `contradicted` but for identities: any figure of any filing a witness could be drawn from. */
  private screen(name: string, period: ScalePeriod, value: number): boolean {
    const spec = this.series[name]!;
    if (this.narrow(name)) return this.screenSum(name, period, value, spec);
    if (anyStep(value, period.values.get(name), SLACK.sameFiling, SLACK.sameFiling, 1)) return true;
    if (spec.steady || spec.checkNeighbours) {
      const [before, after] = this.lane(name).get(period) ?? [null, null];
      if (anyStep(value, before?.values.get(name), SLACK.neighbour, SAME_SCALE, 1) || anyStep(value, after?.values.get(name), SLACK.neighbour, SAME_SCALE, 1)) return true;
    }
    if (period.start === undefined) return false;
    if (spec.steady) {
      for (const p of this.nestedPeriods(period)) if (anyStep(value, p.values.get(name), SLACK.neighbour, SAME_SCALE, spec.additive ? period.months / p.months : 1)) return true;
    }
    return this.screenSum(name, period, value, spec);
  }

  /**
   * Whether all of a series' values (per month, for additive series) lie within a factor no step can hide in: then no
   * other filing, neighbour or nested period can differ from any of them by a step, and the screen skips them. Most
   * companies' revenue, gross profit and share counts stay within a few times over their whole history.
   */
  private narrow(name: string): boolean {
    // Only before any correction (the first screening of every value); after one, every value is screened in full.
    if (corrections !== this.createdAt) return false;
    const cached = this.narrowness.get(name);
    if (cached !== undefined) return cached;
    const additive = this.series[name]!.additive;
    let low = Infinity;
    let high = 0;
    for (const p of this.periods) {
      for (const x of p.values.get(name) ?? []) {
        if (x.value === 0) continue;
        const size = Math.abs(x.value) / (additive && p.months > 0 ? p.months : 1);
        if (size < low) low = size;
        if (size > high) high = size;
      }
    }
    // A step needs a ratio of 1,000 ÷ the neighbours' slack at least, per month between periods of other lengths.
    const narrow = high / low < (0.8 * STEPS[0]) / SLACK.neighbour;
    this.narrowness.set(name, narrow);
    return narrow;
  }

  /** The sums' part of the screen (a quarter as a longer period less the rest of it can be near zero whatever the range). */
  private screenSum(name: string, period: ScalePeriod, value: number, spec: SeriesSpec): boolean {
    if (spec.additive && (spec.steady || spec.checkNeighbours) && period.months === 3 && period.start !== undefined) {
      for (const [total, rest] of this.complements(period)) {
        for (const t of total.values.get(name) ?? []) {
          for (const r of rest.values.get(name) ?? []) {
            if (t.value !== r.value && isStep(stepBetween(value, t.value - r.value, SLACK.identity))) return true;
          }
        }
      }
    }
    return false;
  }

  /** How clearly the witnesses speak against the value as filed: the votes for the likeliest step less those that agree. */
  margin(item: Item): number {
    const { agree, votes } = tally(this.witnesses(item, item.v.value));
    return votes - agree;
  }

  /** The step to correct the value by, or null. */
  decide(item: Item): number | null {
    const witnesses = this.witnesses(item, item.v.value);
    // An identity whose other members every other witness confirms shows which member is off: this one (McDonald's
    // share counts in millions beside net income and EPS as they always were).
    const identity = witnesses.find((w) => w.kind === "identity" && isStep(w.verdict));
    if (
      identity &&
      !isClean(witnesses) &&
      identity.members!.every((m) => isClean(this.witnesses({ ...item, name: m.name, v: m.v, values: item.period.values.get(m.name) as ScaledValue[] }, m.v.value)))
    ) {
      return identity.verdict;
    }
    const { agree, step, votes } = tally(witnesses);
    if (step !== null && votes >= 2 && votes > agree) return step;
    // Another filing's value of the same period differs by a step: the side the other witnesses support stands.
    for (const w of witnesses) {
      if (w.kind !== "filing" || !isStep(w.verdict) || w.peer!.scale) continue;
      const other: Item = { ...item, v: w.peer! };
      const theirs = tally(this.witnesses(other, w.peer!.value).filter((x) => x.accn !== item.v.accn)).agree;
      const mine = tally(witnesses.filter((x) => x.accn !== w.peer!.accn)).agree;
      if (mine < theirs) return w.verdict;
    }
    return null;
  }

  /** How many witnesses agree with `value` (the value, or the value as it would be corrected). */
  agreement(item: Item, value: number): number {
    return tally(this.witnesses(item, value)).agree;
  }

  /** An uncorrected value still contradicted: unclear when nothing agrees or another filing's value differs unresolved, else confirmed. */
  mark(item: Item): void {
    const witnesses = this.witnesses(item, item.v.value);
    const { agree, step } = tally(witnesses);
    if (step === null) return;
    const conflict = witnesses.find((w) => w.kind === "filing" && isStep(w.verdict) && !w.peer!.scale);
    if (conflict || agree === 0) {
      item.v.scaleUnclear = conflict?.verdict ?? step;
      return;
    }
    item.v.scaleConfirmed = describe(witnesses.find((w) => w.verdict === 1)!, item.name);
  }

  /** Every witness of a value of the item's series and period. */
  private witnesses(item: Item, value: number): Witness[] {
    const { name, v, period, values } = item;
    const spec = this.series[name]!;
    const out: Witness[] = [];
    // Other filings' values of the same period: one agreeing is enough; else the first that differs by a step.
    let differing: Witness | null = null;
    for (const w of values) {
      if (w === v || w.accn === v.accn || w.value === 0 || !this.reliable(name, period, w)) continue;
      const verdict = stepBetween(value, w.value, SLACK.sameFiling);
      if (verdict === 1) {
        differing = null;
        out.push({ kind: "filing", verdict, value: w.value, accn: w.accn, period, peer: w });
        break;
      }
      if (verdict !== null && !differing) differing = { kind: "filing", verdict, value: w.value, accn: w.accn, period, peer: w };
    }
    if (differing) out.push(differing);
    // The neighbouring periods of the same length, each its latest value from another filing (a filing's slip repeats
    // in its own comparatives, so its own values are no witness for or against it).
    const [before, after] = this.lane(name).get(period) ?? [null, null];
    const near = [this.neighbour("before", before, name, v, value), this.neighbour("after", after, name, v, value)].filter((w) => w !== null);
    if (spec.steady) out.push(...near);
    else {
      const agreeing = near.find((w) => w.verdict === 1);
      const stepping = near.find((w) => isStep(w.verdict));
      // Series that cross zero: a neighbour that agrees says the scale is right; one that differs is one witness at most.
      if (agreeing) out.push({ ...agreeing, kind: "neighbours" });
      else if (stepping && spec.checkNeighbours) out.push({ ...stepping, kind: "neighbours" });
    }
    if (spec.steady && period.start !== undefined) {
      const nested = this.nested(name, period, v, value, spec.additive);
      if (nested) out.push(nested);
    }
    if (spec.additive && (spec.steady || spec.checkNeighbours) && period.months === 3 && period.start !== undefined) {
      const sum = this.sum(name, period, v, value);
      if (sum) out.push(sum);
    }
    for (const relation of this.products) {
      const implied = this.implied(relation, name, period, v.accn);
      if (implied === null) continue;
      out.push({ kind: "identity", verdict: stepBetween(value, implied.value, SLACK.identity), value: implied.value, accn: v.accn, period, members: implied.members });
      break;
    }
    return out;
  }

  /**
   * The neighbouring period's value from another filing filed closest to the value's own (the company's figures of the
   * time, on the same basis: a later restatement or reverse split is no evidence against what was filed before it), as
   * a witness of `value`. A filing's slip repeats in its own comparatives, so its own values are no witness.
   */
  private neighbour(kind: "before" | "after", period: ScalePeriod | null, name: string, v: ScaledValue, value: number): Witness | null {
    const x = period && this.closest(name, period, v);
    if (!x) return null;
    return { kind, verdict: stepBetween(value, x.value, SLACK.neighbour, SAME_SCALE), value: x.value, accn: x.accn, period: period! };
  }

  /** Of a period's values of a series from filings other than `v`'s, the reliable one filed closest to `v` (the later on a tie). */
  private closest(name: string, period: ScalePeriod, v: ScaledValue): ScaledValue | null {
    const values = period.values.get(name);
    if (!values) return null;
    const at = dayNumber(v.filed);
    let best: ScaledValue | null = null;
    let distance = Infinity;
    for (let i = values.length - 1; i >= 0; i--) {
      const x = values[i]!;
      if (x.accn === v.accn || x.value === 0) continue;
      const d = Math.abs(dayNumber(x.filed) - at);
      if (d >= distance || !this.reliable(name, period, x)) continue;
      best = x;
      distance = d;
    }
    return best;
  }

  /**
   * Whether another value may witness: not when its own filing's identity shows it off by a step (McDonald's filings
   * from 2024 agree with each other on share counts in millions; each one's net income ÷ EPS says they are).
   */
  private reliable(name: string, period: ScalePeriod, x: ScaledValue): boolean {
    if (this.products.length === 0) return true;
    const known = this.reliability.get(x);
    if (known && known.version === corrections) return known.ok;
    let ok = true;
    for (const relation of this.products) {
      const implied = this.impliedValue(relation, name, period, x.accn, true);
      if (implied === null) continue;
      ok = !isStep(stepBetween(x.value, implied, SLACK.identity));
      break;
    }
    this.reliability.set(x, { version: corrections, ok });
    return ok;
  }

  /**
   * The value of `name` a product identity implies from the filing's other members for the period (the same filing's
   * values; without `own`, else the latest filing's that reports both others: one vintage, one share basis), or null.
   */
  private implied(relation: ProductIdentity, name: string, period: ScalePeriod, accn: string, own = false): { value: number; members: { name: string; v: ScaledValue }[] } | null {
    const value = this.impliedValue(relation, name, period, accn, own);
    if (value === null) return null;
    const [first, second] = this.others(relation, name)!;
    return { value, members: [{ name: first, v: this.pair[0]! }, { name: second, v: this.pair[1]! }] };
  }

  /** The value of `implied` alone (its members left in `pair`): for screens, without building anything. */
  private impliedValue(relation: ProductIdentity, name: string, period: ScalePeriod, accn: string, own = false): number | null {
    const others = this.others(relation, name);
    if (!others) return null;
    const one = period.values.get(others[0]);
    const two = period.values.get(others[1]);
    if (!one || !two) return null;
    let a = ofFiling(one, accn);
    let b = ofFiling(two, accn);
    if (!a || !b) {
      if (own) return null;
      a = b = undefined;
      for (let i = one.length - 1; i >= 0 && !a; i--) {
        const match = ofFiling(two, one[i]!.accn);
        if (match) {
          a = one[i];
          b = match;
        }
      }
      if (!a || !b) return null;
    }
    if ((this.perShare.has(others[0]) && Math.abs(a.value) < MIN_EPS) || (this.perShare.has(others[1]) && Math.abs(b.value) < MIN_EPS)) return null;
    this.pair[0] = a;
    this.pair[1] = b;
    if (name === relation.product) return a.value * b.value;
    // A factor: the product ÷ the other factor (`others[0]` is the product).
    return b.value === 0 ? null : a.value / b.value;
  }

  /** The other two members of a relation for one of its members (the product first), or null when `name` is none of them. */
  private others(relation: ProductIdentity, name: string): readonly [string, string] | null {
    if (name === relation.product) return relation.factors;
    if (name === relation.factors[0]) return (this.othersOf.get(relation) ?? this.cacheOthers(relation))[0];
    if (name === relation.factors[1]) return (this.othersOf.get(relation) ?? this.cacheOthers(relation))[1];
    return null;
  }

  private cacheOthers(relation: ProductIdentity): [[string, string], [string, string]] {
    const out: [[string, string], [string, string]] = [[relation.product, relation.factors[1]], [relation.product, relation.factors[0]]];
    this.othersOf.set(relation, out);
    return out;
  }

  /** For each period, the periods of the same length just before and just after it (by end) that report the series. */
  private lane(name: string): Map<ScalePeriod, [ScalePeriod | null, ScalePeriod | null]> {
    let out = this.lanes.get(name);
    if (out) return out;
    const byMonths = new Map<number, ScalePeriod[]>();
    for (const p of this.periods) {
      if (!p.values.get(name)?.length) continue;
      const lane = byMonths.get(p.months);
      if (lane) lane.push(p);
      else byMonths.set(p.months, [p]);
    }
    out = new Map();
    for (const lane of byMonths.values()) {
      lane.sort((a, b) => (a.end < b.end ? -1 : a.end > b.end ? 1 : 0));
      lane.forEach((p, i) => out!.set(p, [lane[i - 1] ?? null, lane[i + 1] ?? null]));
    }
    this.lanes.set(name, out);
    return out;
  }

  /**
   * The period of another length nested with this one (inside it, or holding it) whose value from another filing was
   * filed closest to the value's own, as a witness; additive values scaled by length (a year is four quarters).
   */
  private nested(name: string, period: ScalePeriod, v: ScaledValue, value: number, additive: boolean): Witness | null {
    let best: { p: ScalePeriod; x: ScaledValue; d: number } | null = null;
    const at = dayNumber(v.filed);
    for (const p of this.nestedPeriods(period)) {
      const x = this.closest(name, p, v);
      if (!x) continue;
      const d = Math.abs(dayNumber(x.filed) - at);
      if (!best || d < best.d || (d === best.d && x.filed > best.x.filed)) best = { p, x, d };
    }
    if (!best) return null;
    const expected = additive ? (best.x.value * period.months) / best.p.months : best.x.value;
    return { kind: "nested", verdict: stepBetween(value, expected, SLACK.neighbour, SAME_SCALE), value: best.x.value, accn: best.x.accn, period: best.p };
  }

  /**
   * A quarter as a longer period of other filings less the rest of it (Q4 = year − nine months, Q3 = nine months − half,
   * Q2 = half − Q1, Q1 = half − Q2): exact up to rounding, so a witness even where income nears zero or changes sign
   * (SUNation's fourth quarter of 2020, before its merger a loss of 3 thousand, is its year less its nine months).
   */
  private sum(name: string, period: ScalePeriod, v: ScaledValue, value: number): Witness | null {
    for (const [total, rest] of this.complements(period)) {
      // The longer period from another filing; else the value's own filing's once corrected (the evidence put it right).
      const own = total.values.get(name)?.find((x) => x.accn === v.accn && x.scale);
      const [t, r] = [this.closest(name, total, v) ?? own ?? null, this.closest(name, rest, v)];
      if (!t || !r || t.value === r.value) continue;
      const implied = t.value - r.value;
      return { kind: "sum", verdict: stepBetween(value, implied, SLACK.identity), value: implied, accn: `${t.accn}−${r.accn}`, period: total };
    }
    return null;
  }

  /** Each longer period holding a quarter with the period that makes up the rest of it (computed once per quarter). */
  private complements(period: ScalePeriod): readonly [ScalePeriod, ScalePeriod][] {
    let out = this.complementsOf.get(period);
    if (out) return out;
    out = [];
    const [start, end] = [dayNumber(period.start!), dayNumber(period.end)];
    for (const total of this.nestedPeriods(period)) {
      if (total.months <= period.months || !total.start) continue;
      for (const rest of this.nestedPeriods(total)) {
        if (rest.months + period.months !== total.months || !rest.start) continue;
        const before = rest.start === total.start && dayNumber(rest.end) + 1 === start;
        const after = rest.end === total.end && dayNumber(rest.start) === end + 1;
        if (before || after) out.push([total, rest]);
      }
    }
    this.complementsOf.set(period, out);
    return out;
  }

  /** The periods of other lengths inside this one or holding it (computed once for all periods, by start). */
  private nestedPeriods(period: ScalePeriod): readonly ScalePeriod[] {
    if (!this.nestedOf) {
      this.nestedOf = new Map();
      const dated = this.periods.filter((p) => p.start !== undefined && p.months > 0).sort((a, b) => (a.start! < b.start! ? -1 : a.start! > b.start! ? 1 : 0));
      for (let i = 0; i < dated.length; i++) {
        const outer = dated[i]!;
        // Periods starting inside `outer` (sorted by start): those ending inside it too are nested in it.
        for (let k = i + 1; k < dated.length && dated[k]!.start! <= outer.end; k++) link(this.nestedOf, outer, dated[k]!);
      }
    }
    return this.nestedOf.get(period) ?? [];
  }
}

/** Whether any of the values (scaled by `scale`) differs from `value` by a step. */
function anyStep(value: number, list: readonly ScaledValue[] | undefined, slack: number, same: number, scale: number): boolean {
  if (list) for (const x of list) if (x.value !== 0 && isStep(stepBetween(value, x.value * scale, slack, same))) return true;
  return false;
}

/** A filing's value in a period's list (a handful of filings: a linear search). */
function ofFiling(values: readonly ScaledValue[], accn: string): ScaledValue | undefined {
  for (const x of values) if (x.accn === accn) return x;
  return undefined;
}

/** Records `inner` and `outer` as nested in each other's lists when one lies inside the other and their lengths differ. */
function link(nested: Map<ScalePeriod, ScalePeriod[]>, outer: ScalePeriod, inner: ScalePeriod): void {
  if (inner.months === outer.months) return;
  const [big, small] = inner.months > outer.months ? [inner, outer] : [outer, inner];
  if (small.start! < big.start! || small.end > big.end) return;
  for (const [a, b] of [[big, small], [small, big]] as const) {
    const list = nested.get(a);
    if (!list) nested.set(a, [b]);
    else if (!list.includes(b)) list.push(b);
  }
}

/**
 * How many filings' witnesses agree, and the step most filings' witnesses show with how many: witnesses from one
 * filing count once (a filing's slip repeats in all its values of a series, so they are one witness, not several).
 */
function tally(witnesses: readonly Witness[]): { agree: number; step: number | null; votes: number } {
  const agree = new Set<string>();
  const votes = new Map<number, Set<string>>();
  for (const w of witnesses) {
    if (w.verdict === 1) agree.add(w.accn);
    else if (w.verdict !== null) {
      const by = votes.get(w.verdict);
      if (by) by.add(w.accn);
      else votes.set(w.verdict, new Set([w.accn]));
    }
  }
  let best: [number | null, number] = [null, 0];
  for (const [step, by] of votes) if (by.size > best[1]) best = [step, by.size];
  return { agree: agree.size, step: best[0], votes: best[1] };
}

/**
 * A filing's slip is the filing's, not the value's: a filing that clearly stated a value of a series in the wrong scale
 * stated its other values of that series so too. Each of them is corrected with it unless more of its witnesses agree
 * with it as filed than once corrected (a filing whose one figure slipped keeps the others). Read again after each
 * correction: a corrected year of the filing witnesses its fourth quarter (the year less the nine months).
 */
function sameFiling(evidence: Evidence, items: readonly Item[], step: number): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const item of items) {
      if (item.v.scale) continue;
      if (evidence.agreement(item, item.v.value / step) < evidence.agreement(item, item.v.value)) continue;
      correct(item.v, step);
      changed = true;
    }
  }
}

/** A witness in words, for the record of why a contradicted value was kept as filed. */
function describe(w: Witness, name: string): string {
  const p = w.period;
  const span = p.start ? `${p.start}..${p.end}` : p.end;
  switch (w.kind) {
    case "filing":
      return `${w.accn}'s ${w.value} for the same period`;
    case "identity":
      return `its own filing's net income = EPS × shares (${Number(w.value.toPrecision(6))})`;
    case "nested":
      return `${name} ${w.value} for ${span} (${w.accn})`;
    case "sum":
      return `${Number(w.value.toPrecision(12))}, ${span} less the rest of it (${w.accn})`;
    default:
      return `${name} ${w.value} for the neighbouring ${span} (${w.accn})`;
  }
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

/** Whether the witnesses other than identities agree with a value and none differs from it by a step. */
function isClean(witnesses: readonly Witness[]): boolean {
  let agree = false;
  for (const w of witnesses) {
    if (w.kind === "identity") continue;
    if (isStep(w.verdict)) return false;
    agree ||= w.verdict === 1;
  }
  return agree;
}

function isStep(step: number | null): boolean {
  return step !== null && step !== 1;
}

/** How many values have been corrected so far: what the evidence's caches are valid for. */
let corrections = 0;

/** Divides by the factor, without the binary noise of dividing by 1e-6 (717.2 / 1e-6 is 717200000.0000001). */
function correct(v: ScaledValue, factor: number): void {
  corrections++;
  v.scale = { factor, value_as_filed: v.value };
  v.value = Number((v.value / factor).toPrecision(15));
  delete v.scaleUnclear;
  delete v.scaleConfirmed;
}
