// One concept and one vintage per fiscal year (issue 14 "One concept and one vintage per fiscal year"; DESIGN "Series
// consistency", "Point in time"): each period's served value over time, as a timeline replayed filing by filing.
// Pure; generic over series. A timeline's last entry is today's value; the entry in effect on a date is the as-of value.
import { AMENDMENT_FORM } from "../forms.ts";
import type { ScaledValue } from "./scale.ts";

/** One filing's value of a series for a period (after the scale check): what selection chooses among. */
export interface FiledValue extends ScaledValue {
  concept: string;
  /** The concept's position in its series' list: lower is preferred. */
  priority: number;
  unit: string;
  form: string;
  annual: boolean;
  /** A value computed from several concepts of this filing (statement-concepts.ts formulas): its terms. */
  components?: { concept: string; value: number }[];
  /** A cover-page count's own date. */
  asOf?: string;
  /** Computed from several concepts (a formula), not filed as one. */
  derived?: boolean;
  /**
   * What the one-concept rule knows the value's concept by. A formula's value: the formula it comes from
   * (statement-values.ts), not the terms a filing happens to tag (Walmart's filings from its 10-Q of December 2012 on
   * tag the redeemable noncontrolling interest that the earlier sums left inside liabilities, which corrects them). A
   * concept that is another name of the same line (StatementSpec.sameLine): the concept it names.
   */
  basis?: string;
  /**
   * The other line this value also is: its filing tags the part by which the two differ as zero (StatementSpec.sameLine),
   * so the continuing operations' total is the total too. It stands in both concepts and serves as the one its fiscal
   * year chooses (servedTimelines).
   */
  alsoBasis?: string;
  /**
   * The date from which the value no longer stands: a sum of a filing's lines gives way to the series' own total once
   * a filing tags it for the period (statement-values.ts).
   */
  until?: string;
}

/** A served value of a period and series and the date it became the answer (`from` ≥ `filed`). */
export interface Entry {
  value: number;
  concept: string;
  unit: string;
  accn: string;
  form: string;
  filed: string;
  from: string;
  derived: boolean;
  scale?: ScaledValue["scale"];
  scaleUnclear?: number;
  /**
   * A difference's vintage: when the values it is computed from were all first reported (its total's filing, or its
   * parts' first report if later); a re-report of the same figures by a later filing does not make it newer.
   */
  vintage?: string;
  /** What confirms a value some figure contradicted by a scale step (scale.ts); not published, it explains marks. */
  scaleConfirmed?: string;
  components?: FiledValue["components"];
  asOf?: string;
  /** Its FiledValue's basis: the concept the one-concept rule knows it by. */
  basis?: string;
}

/** The concept a fiscal year uses for a series, from a date on (a value's basis, where it has one). */
export interface ConceptChoice {
  from: string;
  concept: string;
}

/** One period of a fiscal year as selection sees it: every filing's value of the series, and whether it is the year. */
export interface YearPeriod {
  filed: readonly FiledValue[];
  year: boolean;
}

/**
 * Each period's timeline of served values for one series of one fiscal year, replayed at every filing date:
 * - the fiscal year itself takes values from annual reports from the first that reports it on (a 10-Q's twelve-month
 *   figure — Under Armour's 10-Q of August 2014 tags 926 million for 2012 — is no fiscal year); until then, what the
 *   other filings reported is the answer, as it was on those dates (Apple's 10-Q of July 2014 first tags commercial
 *   paper at its 2013 year end, a year-end balance its next 10-K reports);
 * - all periods of the year use one concept where the filings allow it: the concept most of the year's periods were
 *   reported in, the year's own latest concept on a tie, then the concepts' priority (Walmart's quarters of the year
 *   to January 2011 are `Revenues` in its 10-Qs and `SalesRevenueNet` in its next 10-K; the year is `Revenues`);
 * - within that concept the latest filing wins (DESIGN "Restatements"); a period never reported in it keeps its own;
 * - a value stands until its `until` (a sum of lines gives way to the total a later filing tags).
 * Each date's answer is the one these rules give over the filings made by then, so an as-of reading of the timelines
 * is what a derivation on that day would have served. Returns the timelines (one per period, aligned) and the concept
 * chosen over time.
 */
export function servedTimelines(periods: readonly YearPeriod[]): { timelines: Entry[][]; concepts: ConceptChoice[] } {
  if (!periods.some((p) => p.filed.some((f) => f.until !== undefined || f.alsoBasis !== undefined))) {
    const single = oneConcept(periods.map((p) => (p.year ? yearValues(p.filed) : p.filed)));
    if (single) return single;
  }
  // Every filing date in order, and the dates values stop standing (`until`, before that day's filings).
  const events: { f: FiledValue; i: number; date: string; ends: boolean }[] = [];
  periods.forEach((p, i) => {
    for (const f of p.filed) {
      events.push({ f, i, date: f.filed, ends: false });
      if (f.until !== undefined) events.push({ f, i, date: f.until, ends: true });
    }
  });
  events.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.ends !== b.ends ? (a.ends ? -1 : 1) : order(a.f, b.f)));
  // Per period and concept, the latest value standing; the year's values from other filings while an annual report's stands.
  const standing = periods.map(() => new Map<string, FiledValue>());
  const parked: FiledValue[][] = periods.map(() => []);
  const coverage = new Map<string, { periods: number; priority: number }>();
  const stand = (i: number, f: FiledValue, key: string) => {
    const mine = standing[i]!;
    const known = mine.get(key);
    if (known && order(known, f) > 0) return;
    if (!known) {
      const seen = coverage.get(key);
      coverage.set(key, { periods: (seen?.periods ?? 0) + 1, priority: Math.min(seen?.priority ?? f.priority, f.priority) });
    }
    mine.set(key, f);
  };
  // A value that is two lines at once (FiledValue.alsoBasis) stands in both: the year's other values choose which.
  const add = (i: number, f: FiledValue) => {
    stand(i, f, conceptOf(f));
    if (f.alsoBasis !== undefined) stand(i, f, f.alsoBasis);
  };
  const remove = (i: number, concept: string) => {
    standing[i]!.delete(concept);
    const seen = coverage.get(concept)!;
    if (--seen.periods === 0) coverage.delete(concept);
  };
  const annualStands = (i: number) => {
    for (const v of standing[i]!.values()) if (v.annual) return true;
    return false;
  };
  const timelines: Entry[][] = periods.map(() => []);
  const concepts: ConceptChoice[] = [];
  let yearConcept: string | null = null;
  for (let k = 0; k < events.length; ) {
    const date = events[k]!.date;
    for (; k < events.length && events[k]!.date === date; k++) {
      const { f, i, ends } = events[k]!;
      const year = periods[i]!.year;
      if (ends) {
        if (standing[i]!.get(conceptOf(f)) !== f) {
          parked[i] = parked[i]!.filter((v) => v !== f);
          continue;
        }
        remove(i, conceptOf(f));
        // The year's last annual value withdrawn: what other filings reported stands again.
        if (year && f.annual && !annualStands(i)) for (const v of parked[i]!.splice(0)) add(i, v);
        continue;
      }
      if (year && !f.annual && annualStands(i)) {
        parked[i]!.push(f);
        continue;
      }
      // The year's first annual report: what other filings reported for the year is no longer served.
      if (year && f.annual && !annualStands(i)) {
        for (const [concept, v] of standing[i]!) {
          if (!parked[i]!.includes(v)) parked[i]!.push(v);
          remove(i, concept);
        }
      }
      add(i, f);
      if (year) yearConcept = conceptOf(f);
    }
    const chosen = chooseConcept(coverage, yearConcept);
    if (concepts.at(-1)?.concept !== chosen) concepts.push({ from: date, concept: chosen });
    for (let i = 0; i < periods.length; i++) {
      const served = standing[i]!.get(chosen) ?? newest(standing[i]!);
      if (!served) continue;
      const basis = served.alsoBasis === chosen ? chosen : served.basis;
      const last = timelines[i]!.at(-1);
      if (last && last.accn === served.accn && last.value === served.value && last.concept === served.concept && last.basis === basis) continue;
      const entry = entryOf(served, date);
      if (basis !== undefined) entry.basis = basis;
      timelines[i]!.push(entry);
    }
  }
  return { timelines, concepts };
}

/**
 * What the one-concept rule counts as a value's concept: its formula's, for a sum of lines, or the concept it is
 * another name of (FiledValue.basis).
 */
export function conceptOf(f: Pick<FiledValue, "basis" | "concept">): string {
  return f.basis ?? f.concept;
}

/** The latest filing's value among a period's standing ones. */
function newest(values: ReadonlyMap<string, FiledValue>): FiledValue | undefined {
  let found: FiledValue | undefined;
  for (const v of values.values()) if (!found || order(v, found) > 0) found = v;
  return found;
}

/**
 * The values a fiscal year is served from (each list is in filing order): from its first annual report on, annual
 * reports only; before it, every filing's (a same-day 10-Q gives way to the annual report).
 */
function yearValues(filed: readonly FiledValue[]): readonly FiledValue[] {
  const first = filed.find((f) => f.annual);
  return first ? filed.filter((f) => f.annual || f.filed < first.filed) : filed;
}

/** A period of a fiscal year as `serveYear` reads and fills it: each filing's values per series, its served timelines. */
export interface YearMember<N extends string> {
  timelines: Partial<Record<N, Entry[]>>;
}

/**
 * Every series of one fiscal year's periods served (servedTimelines): each period's timeline set on it, and per series
 * the concept the year uses over time. Once for the year, series by series — for the earnings, the cash flows and the
 * balance sheet alike.
 */
export function serveYear<N extends string, P extends YearMember<N>>(
  periods: readonly P[],
  names: readonly N[],
  filed: (period: P) => ReadonlyMap<string, readonly FiledValue[]>,
  isYear: (period: P) => boolean,
): Partial<Record<N, ConceptChoice[]>> {
  const concepts: Partial<Record<N, ConceptChoice[]>> = {};
  for (const name of names) {
    const year = periods.map((p) => ({ filed: filed(p).get(name) ?? [], year: isYear(p) }));
    if (year.every((p) => p.filed.length === 0)) continue;
    const served = servedTimelines(year);
    periods.forEach((p, i) => {
      if (served.timelines[i]!.length) p.timelines[name] = served.timelines[i]!;
    });
    concepts[name] = served.concepts;
  }
  return concepts;
}

/**
 * A value computed from others (Q4 = fiscal year − nine months; for statements, a quarter from two year-to-date
 * figures) over time. At every change of an input the parts in effect are paired with the total of the SAME vintage:
 * the first report of the total filed on or after the parts' current values were first reported. So a year restated
 * later (Apple's fiscal 2008, restated in a 10-K/A of January 2010 whose nine months were never re-reported) is not
 * subtracted from nine months as first reported, and parts a later period's filing restated before the total was
 * (SunEdison's 10-Q of November 2015 restated its nine months to September 2014; no 10-K followed) are not subtracted
 * from the total as first reported: the last difference of one vintage stands until the total of theirs is filed.
 * Parts an amendment corrected (Celadon's 10-Q/As of May 2012), and a first difference, pair with the total in effect.
 * All inputs must share concept (conceptOf: a sum of lines its formula, another name of a line that line) and unit.
 */
export function differenceTimeline(total: readonly Entry[], parts: readonly (readonly Entry[])[]): Entry[] {
  const out: Entry[] = [];
  for (const date of changeDates([total, ...parts])) {
    const year = inEffect(total, date);
    if (!year) continue;
    let since = "";
    let value = 0;
    let source: Entry | null = null;
    let computable = true;
    let amended = false;
    for (const part of parts) {
      const e = inEffect(part, date);
      // Not computable in one concept (yet, or since the year's concept changed): the last difference stands.
      if (!e || conceptOf(e) !== conceptOf(year) || e.unit !== year.unit) {
        computable = false;
        break;
      }
      const start = vintageStart(part, e);
      if (start > since) [since, amended] = [start, AMENDMENT_FORM.test(e.form)];
      else if (start === since) amended ||= AMENDMENT_FORM.test(e.form);
      value += e.value;
      if (!source || order(e, source) > 0) source = e;
    }
    if (!computable) continue;
    const same = total.find((e) => e.from <= date && e.filed >= since && conceptOf(e) === conceptOf(year));
    // Parts restated by a later period's filing are of a basis the total as filed is not: the last difference stands
    // until the total is filed again. An amendment only corrects its own filing: the total in effect pairs with it.
    if (!same && !amended && out.length > 0) continue;
    const paired = same ?? year;
    if (!source || order(paired, source) > 0) source = paired;
    const entry: Entry = { value: paired.value - value, concept: year.concept, unit: year.unit, accn: source.accn, form: source.form, filed: source.filed, from: date, derived: true };
    if (same) entry.vintage = maxOf(paired.filed, since);
    if (year.basis !== undefined) entry.basis = year.basis;
    // A difference of a value whose scale is unclear is unclear too (never silently wrong).
    const unclear = [paired, ...parts.map((p) => inEffect(p, date)!)].find((e) => e.scaleUnclear !== undefined);
    if (unclear) entry.scaleUnclear = unclear.scaleUnclear!;
    append(out, entry);
  }
  return out;
}

/**
 * Merges several timelines into one by a rule applied wherever any input changes: `pick` receives the entries in
 * effect then and returns the entry served from that date, or null (the last one served, if any, stands).
 */
export function combineTimelines(
  inputs: readonly (readonly Entry[])[],
  pick: (current: (Entry | null)[], date: string) => Entry | null,
  extraDates: readonly string[] = [],
): Entry[] {
  const out: Entry[] = [];
  for (const date of changeDates(inputs, extraDates)) {
    const entry = pick(inputs.map((t) => inEffect(t, date)), date);
    if (entry) append(out, { ...entry, from: date });
  }
  return out;
}

/**
 * A value computed from others of a period (free cash flow, total debt, a TTM sum) over time: `compute` gets the
 * entries in effect wherever an input's value or concept changes — a later filing re-reporting the same figures
 * changes nothing — and returns the entry served from then, or null (the last one served stands). An entry is added
 * only when the value changes, so it keeps the provenance of the filings that first gave it.
 */
export function computedTimeline(inputs: readonly (readonly Entry[])[], compute: (current: (Entry | null)[]) => Entry | null): Entry[] {
  const dates: string[] = [];
  const current: (Entry | null)[] = inputs.map(() => null); // reused: `compute` reads it and keeps nothing of it
  for (const t of inputs) {
    for (let i = 0; i < t.length; i++) {
      const e = t[i]!;
      if (i === 0 || e.value !== t[i - 1]!.value || e.concept !== t[i - 1]!.concept) dates.push(e.from);
    }
  }
  dates.sort();
  const out: Entry[] = [];
  const cursors = inputs.map(() => -1);
  for (let d = 0; d < dates.length; d++) {
    const date = dates[d]!;
    if (d > 0 && date === dates[d - 1]) continue;
    for (let k = 0; k < inputs.length; k++) {
      const t = inputs[k]!;
      let c = cursors[k]!;
      while (c + 1 < t.length && t[c + 1]!.from <= date) c++;
      cursors[k] = c;
      current[k] = c < 0 ? null : t[c]!;
    }
    const entry = compute(current);
    const last = out.at(-1);
    if (entry && !(last && last.value === entry.value && last.concept === entry.concept && last.unit === entry.unit)) out.push({ ...entry, from: date });
  }
  return out;
}

/** A value computed from entries (derived), in the provenance of the latest-filed of them; integers as they are. */
export function computedEntry(parts: readonly Entry[], value: number, concept: string, unit = parts[0]!.unit): Entry {
  let best = parts[0]!;
  for (const e of parts) if (e.filed > best.filed || (e.filed === best.filed && e.accn > best.accn)) best = e;
  return { value: clean(value), concept, unit, accn: best.accn, form: best.form, filed: best.filed, from: best.from, derived: true };
}

/** A sum without binary noise (0.1 + 0.2): integers (most filed amounts) as they are, others to 15 digits. */
export function clean(value: number): number {
  return Number.isInteger(value) ? value : Number(value.toPrecision(15));
}

/**
 * Earnings per share = an income ÷ a weighted share count, to the cent as filers report it (derived, never subtracted).
 * An income of several concepts (a TTM's periods in two) is named in parentheses: `(A+B)÷C`.
 */
export function perShare(income: Entry, shares: Entry): Entry {
  const source = income.filed > shares.filed || (income.filed === shares.filed && income.accn > shares.accn) ? income : shares;
  return {
    value: Math.round((income.value / shares.value) * 100) / 100,
    unit: `${income.unit}/shares`,
    concept: `${/[+−]/.test(income.concept) ? `(${income.concept})` : income.concept}÷${shares.concept}`,
    accn: source.accn,
    form: source.form,
    filed: source.filed,
    from: source.from,
    derived: true,
  };
}

/**
 * Whether an EPS as filed is `income` ÷ `shares`, as far as their rounding shows: the EPS to the cent, the income and
 * the shares to the unit they are filed in (Hertz's in millions: 96 million shares for its first quarter of 2019, so
 * −147 million ÷ 96 million is −1.53 for the −1.54 it filed), at most a million.
 */
export function isQuotient(eps: number, income: number, shares: number): boolean {
  const quotient = income / shares;
  const slack = Math.abs(quotient) * (roundingOf(income) / Math.abs(income || 1) + roundingOf(shares) / shares) / 2;
  return Math.abs(quotient - eps) <= 0.005 + slack + 1e-9;
}

/** The unit a figure seems rounded to: the power of ten it is a multiple of, up to a million. */
function roundingOf(value: number): number {
  let unit = 1;
  while (unit < 1e6 && value % (unit * 10) === 0 && value !== 0) unit *= 10;
  return unit;
}

/** The entry in effect on a date: the last whose `from` is on or before it. */
export function inEffect(timeline: readonly Entry[], date: string): Entry | null {
  let found: Entry | null = null;
  for (const e of timeline) {
    if (e.from > date) break;
    found = e;
  }
  return found;
}

/** Every date on which any of the timelines changes, in order. */
export function changeDates(timelines: readonly (readonly Entry[])[], extra: readonly string[] = []): string[] {
  const dates = new Set(extra);
  for (const t of timelines) for (const e of t) dates.add(e.from);
  return [...dates].sort();
}

/** The concept chosen on a date. */
export function conceptAt(choices: readonly ConceptChoice[], date: string): string | null {
  let found: string | null = null;
  for (const c of choices) {
    if (c.from > date) break;
    found = c.concept;
  }
  return found;
}

/** When a part's current value was first served: the start of the run of equal values its entry in effect ends. */
function vintageStart(timeline: readonly Entry[], current: Entry): string {
  let i = timeline.indexOf(current);
  while (i > 0 && timeline[i - 1]!.value === current.value && timeline[i - 1]!.concept === current.concept) i--;
  return timeline[i]!.filed;
}

/**
 * The usual case, without a replay: every filing used one concept for the year, so each period's timeline is its own
 * filings in order (each list is ordered by filing). Null when the year has several concepts.
 */
function oneConcept(eligible: readonly (readonly FiledValue[])[]): { timelines: Entry[][]; concepts: ConceptChoice[] } | null {
  let concept: string | null = null;
  let first = "";
  for (const list of eligible) {
    for (const f of list) {
      if (concept === null) concept = conceptOf(f);
      else if (conceptOf(f) !== concept) return null;
      if (first === "" || f.filed < first) first = f.filed;
    }
  }
  if (concept === null) return { timelines: eligible.map(() => []), concepts: [] };
  const timelines = eligible.map((list) => {
    const out: Entry[] = [];
    for (const f of list) {
      const last = out.at(-1);
      if (!(last && last.accn === f.accn && last.value === f.value)) out.push(entryOf(f, f.filed));
    }
    return out;
  });
  return { timelines, concepts: [{ from: first, concept }] };
}

/** Oldest filing first (filed, then accession), in place: an insertion sort, as a period has a handful of filings. */
export function byFiling<T extends { filed: string; accn: string }>(list: T[]): T[] {
  for (let i = 1; i < list.length; i++) {
    const v = list[i]!;
    let j = i - 1;
    while (j >= 0 && (list[j]!.filed > v.filed || (list[j]!.filed === v.filed && list[j]!.accn > v.accn))) list[j + 1] = list[j--]!;
    list[j + 1] = v;
  }
  return list;
}

/** The most periods covered, then the year's own latest concept, then the concepts' priority. */
function chooseConcept(coverage: Map<string, { periods: number; priority: number }>, yearConcept: string | null): string {
  let best: [string, number, number, number] = ["", -1, 2, Infinity];
  for (const [concept, { periods, priority }] of coverage) {
    const candidate: [string, number, number, number] = [concept, periods, concept === yearConcept ? 0 : 1, priority];
    if (periods > best[1] || (periods === best[1] && (candidate[2] < best[2] || (candidate[2] === best[2] && priority < best[3])))) best = candidate;
  }
  return best[0];
}

/** A filed value served from `from` on. */
export function entryOf(f: FiledValue, from: string): Entry {
  const entry: Entry = { value: f.value, concept: f.concept, unit: f.unit, accn: f.accn, form: f.form, filed: f.filed, from, derived: f.derived === true };
  if (f.scale) entry.scale = f.scale;
  if (f.scaleUnclear !== undefined) entry.scaleUnclear = f.scaleUnclear;
  if (f.scaleConfirmed !== undefined) entry.scaleConfirmed = f.scaleConfirmed;
  if (f.components) entry.components = f.components;
  if (f.asOf !== undefined) entry.asOf = f.asOf;
  if (f.basis !== undefined) entry.basis = f.basis;
  return entry;
}

/** Adds an entry unless it serves the same value from the same filing as the last one. */
export function append(timeline: Entry[], entry: Entry): void {
  const last = timeline.at(-1);
  if (last && last.accn === entry.accn && last.value === entry.value && last.concept === entry.concept && last.derived === entry.derived) return;
  timeline.push(entry);
}

function order(a: { filed: string; accn: string }, b: { filed: string; accn: string }): number {
  return a.filed < b.filed ? -1 : a.filed > b.filed ? 1 : a.accn < b.accn ? -1 : a.accn > b.accn ? 1 : 0;
}

function maxOf(a: string, b: string): string {
  return a > b ? a : b;
}
