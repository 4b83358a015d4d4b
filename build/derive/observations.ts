// Company facts → observations: each periodic filing's value of each series for each (start, end) duration or, for
// balance-sheet series, each instant; and each filing's own reporting period. Generic over any list of series
// (earnings, the statements): no metric named here.
import { ANNUAL_FORM, PERIODIC_FORM } from "../forms.ts";
import type { CompanyFacts, EdgarFact } from "../parse/companyfacts.ts";
import { classifyMonths, dayNumber, SAME_PERIOD_DAYS, type Months } from "./periods.ts";


/** How a series' unit relates to the company's reporting currency: money, money per share, or a share count. */
export type UnitKind = "currency" | "per_share" | "shares";

/** One series: its concepts, highest priority first, the kind of unit its values carry, and how its values behave. */
export interface SeriesSpec {
  kind: UnitKind;
  /** Additive over time (a fiscal year is the sum of its quarters), so Q4 = FY − nine months is sound (pitfall 13). */
  additive: boolean;
  /**
   * Values of adjacent periods stay within a small factor of each other (revenue, share counts; not income, which
   * crosses zero), so a 1,000× step between neighbours is a unit-scale slip (issue 14 "Scale errors").
   */
  steady: boolean;
  /**
   * Compared with neighbouring periods for unit-scale steps although not steady (income and EPS, which can cross zero
   * and genuinely jump: a neighbour that differs by a step is one witness, never enough alone to correct a value).
   */
  checkNeighbours?: boolean;
  /** Values at a date (balance sheet) rather than over a duration: observed as instants, never as spans. */
  instant?: boolean;
  concepts: readonly string[];
}

/** One value one periodic filing reported for one duration and series, in one concept. */
export interface Observation {
  series: string;
  concept: string;
  /** The concept's position in its series' list: lower is preferred. */
  priority: number;
  unit: string;
  value: number;
  accn: string;
  filed: string;
  form: string;
  annual: boolean;
}

/** A (start, end) duration exactly as filed, with its month class and every observation of it, grouped by series. */
export interface RawSpan {
  start: string;
  end: string;
  months: Months;
  observations: Observation[];
}

/** A periodic filing as its facts show it: its own reporting period and the fiscal labels it tagged. */
export interface Filing {
  accn: string;
  filed: string;
  form: string;
  /** The latest duration end it reports: its own reporting period's end (companyfacts has no DocumentPeriodEndDate). */
  ownEnd: string;
  /** The longest month class it reports ending at `ownEnd` (3, 6, 9, 12); 0 when none classes. */
  ownMonths: number;
  fy: number | null;
  fp: string | null;
}

/** An instant exactly as filed (a balance sheet date), with every observation of it. */
export interface RawInstant {
  date: string;
  observations: Observation[];
}

/** What the facts hold for a list of series: the reporting currency, the durations, the instants, the periodic filings. */
export interface Observed {
  currency: string;
  spans: RawSpan[];
  instants: RawInstant[];
  filings: Filing[];
}

/**
 * Reads every periodic duration fact of the series' concepts into observations keyed by (start, end) — pitfall 1:
 * periods are keyed by dates, never by fy/fp — and every periodic filing's own period from the same facts (all their
 * units: a filing's own end is the latest end it reports; all concepts would not do, Walmart's 2011–12 10-Ks carry
 * next-year guidance durations). Durations of no month class are dropped (DESIGN: not periods we publish). A per-share
 * series reads its concepts' facts in the bare reporting currency too, as that currency per share (issue 40 item 5:
 * EDGAR served older per-share facts as `USD`, and a partnership tags its net income per unit so): a per-share
 * concept's value is per share whatever its unit says, never dropped, and is served in the per-share unit. Instant
 * series read only instants, keyed by date; filings' own periods come from durations alone. `currency` is the
 * reporting currency when the caller knows it (the statements take the earnings' own).
 */
export function observe(facts: CompanyFacts, series: Readonly<Record<string, SeriesSpec>>, currency = reportingCurrency(facts, series)): Observed {
  // start → end → a span, or the class of a duration no wanted fact has yet (null: no class). Two plain lookups cost
  // less than hashing a concatenated key per fact.
  const spans = new Map<string, Map<string, RawSpan | Months | null>>();
  const instants = new Map<string, RawInstant>();
  const filings = new Map<string, Filing>();
  const forms = new Map<string, { periodic: boolean; annual: boolean }>();
  const units: Record<UnitKind, string> = { currency, per_share: `${currency}/shares`, shares: "shares" };
  const wanted = (spec: SeriesSpec, unit: string) => unit === units[spec.kind] || (spec.kind === "per_share" && unit === currency);
  const wrong = misdatedFlows(facts, series, wanted, forms);
  for (const [name, spec] of Object.entries(series)) {
    for (let priority = 0; priority < spec.concepts.length; priority++) {
      const concept = spec.concepts[priority]!;
      if (spec.instant) {
        observeInstants(facts.concepts[concept]?.[units[spec.kind]] ?? [], name, concept, priority, units[spec.kind], instants, forms);
        continue;
      }
      for (const [unit, list] of Object.entries(facts.concepts[concept] ?? {})) {
        const read = wanted(spec, unit);
        for (const f of list) {
          if (f.start === undefined) continue;
          const form = formOf(forms, f.form);
          if (!form.periodic) continue;
          let byEnd = spans.get(f.start);
          if (!byEnd) spans.set(f.start, (byEnd = new Map()));
          let span = byEnd.get(f.end);
          if (span === undefined) byEnd.set(f.end, (span = classifyMonths(f.start, f.end)));
          const months = span === null ? 0 : typeof span === "number" ? span : span.months;
          noteFiling(filings, f.accn, f.filed, f.form, f.fy ?? null, f.fp ?? null, f.end, months);
          if (!read || span === null || wrong?.facts.has(f) || (!spec.additive && wrong?.columns.has(columnOf(f)))) continue;
          // A weighted count of no shares is a filer's slip, not a count (Hertz's 10-Q of 2016-08-08 tagged 2015's
          // second-quarter diluted shares 0 beside 92 million basic): not a value.
          if (spec.kind === "shares" && f.val <= 0) continue;
          if (typeof span === "number") byEnd.set(f.end, (span = { start: f.start, end: f.end, months: span, observations: [] }));
          span.observations.push({
            series: name,
            concept,
            priority,
            unit: units[spec.kind],
            value: f.val,
            accn: f.accn,
            filed: f.filed,
            form: f.form,
            annual: form.annual,
          });
        }
      }
    }
  }
  const out: RawSpan[] = [];
  for (const byEnd of spans.values()) for (const span of byEnd.values()) if (span !== null && typeof span === "object") out.push(span);
  return { currency, spans: out, instants: [...instants.values()], filings: [...filings.values()] };
}

/** One concept's instant facts from periodic reports, keyed by date; misdated ones left out (`misdated`). */
function observeInstants(
  list: readonly EdgarFact[],
  series: string,
  concept: string,
  priority: number,
  unit: string,
  instants: Map<string, RawInstant>,
  forms: Map<string, { periodic: boolean; annual: boolean }>,
): void {
  const periodic = list.filter((f) => f.start === undefined && formOf(forms, f.form).periodic);
  const wrong = misdated(periodic, INSTANT);
  for (const f of periodic) {
    if (wrong?.has(f)) continue;
    let at = instants.get(f.end);
    if (!at) instants.set(f.end, (at = { date: f.end, observations: [] }));
    at.observations.push({ series, concept, priority, unit, value: f.val, accn: f.accn, filed: f.filed, form: f.form, annual: forms.get(f.form)!.annual });
  }
}

/** How far apart (days) two balance dates lie when a filing tags one's figure with the other: a quarter or so. */
const MISDATED_WITHIN_DAYS = 120;
/** Round figures (a note's face value, a credit line drawn in full) recur honestly from date to date: never judged. */
const ROUND_FIGURE = 10_000_000;

/** A filing's column: the period one of its facts is for (a filing misdates a column, every figure in it). */
const columnOf = (f: EdgarFact) => `${f.accn}|${f.start}|${f.end}`;

/**
 * The flows' year-to-date facts that are misdated (`misdated`), and the filings' columns they are in. Flows only: a
 * share count or an EPS can honestly be the same for a half and its nine months, so those are left out only in a
 * column whose flows were misdated (SunEdison's 10-Q of 2012-11-09 gave its half to 2011-06-30 the nine months' EPS
 * too, −0.22 for 0.19). Null when there is none.
 */
function misdatedFlows(
  facts: CompanyFacts,
  series: Readonly<Record<string, SeriesSpec>>,
  wanted: (spec: SeriesSpec, unit: string) => boolean,
  forms: Map<string, { periodic: boolean; annual: boolean }>,
): { facts: Set<EdgarFact>; columns: Set<string> } | null {
  let out: { facts: Set<EdgarFact>; columns: Set<string> } | null = null;
  for (const spec of Object.values(series)) {
    if (!spec.additive || spec.instant) continue;
    for (const concept of spec.concepts) {
      for (const [unit, list] of Object.entries(facts.concepts[concept] ?? {})) {
        if (!wanted(spec, unit)) continue;
        for (const f of misdated(list.filter((g) => g.start !== undefined && formOf(forms, g.form).periodic), DURATION) ?? []) {
          out ??= { facts: new Set(), columns: new Set() };
          out.facts.add(f);
          out.columns.add(columnOf(f));
        }
      }
    }
  }
  return out;
}

/** A form's kind (a periodic report, an annual one), cached in `forms`: a handful of forms among many facts. */
function formOf(forms: Map<string, { periodic: boolean; annual: boolean }>, name: string): { periodic: boolean; annual: boolean } {
  let form = forms.get(name);
  if (!form) forms.set(name, (form = { periodic: PERIODIC_FORM.test(name), annual: ANNUAL_FORM.test(name) }));
  return form;
}

/** Where a fact is (its period), and whether another fact's period neighbours it: the two misdatings judged. */
interface Placing {
  where: (f: EdgarFact) => string;
  near: (f: EdgarFact, g: EdgarFact) => boolean;
}
/** A quarter or so apart, and not the same period (period identity's week). */
const neighbouring = (a: string, b: string) => {
  const apart = Math.abs(dayNumber(a) - dayNumber(b));
  return apart > SAME_PERIOD_DAYS && apart <= MISDATED_WITHIN_DAYS;
};
/** A balance date and a neighbouring one. */
const INSTANT: Placing = { where: (f) => f.end, near: (f, g) => g.start === undefined && neighbouring(f.end, g.end) };
/** A span and one of the same start ending a quarter or so apart: a half and its nine months to date. */
const DURATION: Placing = { where: (f) => `${f.start}/${f.end}`, near: (f, g) => g.start === f.start && neighbouring(f.end, g.end) };

/**
 * A concept's facts that are another period's figure tagged with this period, not a restatement: a later filing's
 * value for a period that differs from every earlier filing's there and equals exactly the value an earlier filing gave
 * a neighbouring period. Balance dates: Home Depot's 10-Q of 2018-11-20 tagged cash of 3,549 million at 2017-07-30, the
 * 10-Q of 2017-11-21's figure at 2017-10-29, where the 10-Qs of 2017-08-22 and 2018-08-21 gave 4,830. Years to date:
 * SunEdison's 10-Q of 2012-11-09 (0000945436-12-000174) tagged net income of −51.6 million for the half to 2011-06-30,
 * its nine months' figure (10-Q of 2011-11-07), where the 10-Qs of 2011-08-09 and 2012-08-08 gave 42.8 million. Round
 * figures (and zero) are never judged. Judged on earlier filings alone, so an answer as of any date is what the filings
 * of then give. Null when there is none.
 */
function misdated(facts: readonly EdgarFact[], placing: Placing): Set<EdgarFact> | null {
  let byPlace: Map<string, EdgarFact[]> | undefined;
  let byValue: Map<number, EdgarFact[]> | undefined; // only where a period's figure changed (rarely)
  let out: Set<EdgarFact> | null = null;
  for (const f of facts) {
    if (f.val % ROUND_FIGURE === 0) continue;
    let earlier = false;
    let same = false;
    for (const g of (byPlace ??= groupBy(facts, placing.where)).get(placing.where(f))!) {
      if (g.filed >= f.filed) continue;
      earlier = true;
      same ||= g.val === f.val;
    }
    if (!earlier || same) continue;
    const twin = (byValue ??= groupBy(facts, (g) => g.val)).get(f.val)!.some((g) => g.filed < f.filed && placing.near(f, g));
    if (twin) (out ??= new Set()).add(f);
  }
  return out;
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const list = out.get(key(item));
    if (list) list.push(item);
    else out.set(key(item), [item]);
  }
  return out;
}

/**
 * The currency most of the company's currency-series facts are in (TSMC: TWD; its USD convenience figures lose):
 * the first two currency series decide (revenue and net income for earnings).
 */
export function reportingCurrency(facts: CompanyFacts, series: Readonly<Record<string, SeriesSpec>>): string {
  const counts = new Map<string, number>();
  const money = Object.values(series).filter((s) => s.kind === "currency").slice(0, 2);
  for (const spec of money) {
    for (const concept of spec.concepts) {
      for (const [unit, list] of Object.entries(facts.concepts[concept] ?? {})) {
        if (/^[A-Z]{3}$/.test(unit)) counts.set(unit, (counts.get(unit) ?? 0) + list.length);
      }
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? "USD";
}

function noteFiling(
  filings: Map<string, Filing>,
  accn: string,
  filed: string,
  form: string,
  fy: number | null,
  fp: string | null,
  end: string,
  months: number,
): void {
  const seen = filings.get(accn);
  if (!seen) {
    filings.set(accn, { accn, filed, form, ownEnd: end, ownMonths: months, fy, fp });
  } else if (end > seen.ownEnd) {
    [seen.ownEnd, seen.ownMonths] = [end, months];
  } else if (end === seen.ownEnd && months > seen.ownMonths) {
    seen.ownMonths = months;
  }
}
