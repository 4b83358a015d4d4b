// Each filing's value of each statement series for one period or instant: its highest-priority concept, an outflow's
// sign normalised, and — where the filing tags no total — the sum its own lines make (statement-concepts.ts formulas).
// Pure; the values are then checked for scale and chosen among like the earnings' (scale.ts, vintage.ts).
import type { Observation } from "./observations.ts";
import type { StatementSpec } from "./statement-concepts.ts";
import { markAlike, NONE_ALIKE, type AlikeConcepts } from "./tagged-alike.ts";
import { byFiling, clean, type FiledValue } from "./vintage.ts";

/**
 * Per series, each filing's value, oldest filing first. Observations arrive grouped by series, each filing's in
 * priority order (observations.ts). Series are evaluated in `specs` order, so a formula reads components already made;
 * a formula's value stands only until a filing tags one of the series' own concepts for the period (`until`).
 */
export function filedStatementValues(observations: readonly Observation[], specs: Readonly<Record<string, StatementSpec>>, alike: AlikeConcepts = NONE_ALIKE): Map<string, FiledValue[]> {
  const byAccn = new Map<string, Map<string, FiledValue>>();
  for (const o of observations) {
    let mine = byAccn.get(o.series);
    if (!mine) byAccn.set(o.series, (mine = new Map()));
    const best = mine.get(o.accn);
    if (best && best.priority <= o.priority) continue;
    const value: FiledValue = { value: o.value, accn: o.accn, filed: o.filed, concept: o.concept, priority: o.priority, unit: o.unit, form: o.form, annual: o.annual };
    // An outflow concept is positive by the taxonomy's definition: a negative one is the filer's sign slip (issue 18
    // "signs normalised"), served positive and marked as a −1 correction like any flipped sign.
    if (specs[o.series]?.outflow && value.value < 0) {
      value.scale = { factor: -1, value_as_filed: value.value };
      value.value = -value.value;
    }
    mine.set(o.accn, value);
  }
  const out = new Map<string, FiledValue[]>();
  for (const [name, spec] of entriesOf(specs)) {
    let mine = byAccn.get(name);
    if (spec.sameLine) for (const value of mine?.values() ?? []) sameLine(value, spec.sameLine, byAccn);
    if (mine) markAlike(name, mine.values(), alike);
    // A total some filing tags for this date beats any sum of lines: a later filing that omits the total tags its
    // footnotes' parts (McDonald's commercial paper, inside its long-term debt) more often than its statement's lines.
    // So sums stand only until the first filing that tags the total, and only sums filed before it are made: as it
    // was before then (SunEdison's 10-K for 2013 tags only the current portion of its long-term debt and capital
    // leases; its 10-Q of November 2014 tags DebtCurrent for that year end).
    if (spec.formulas.length > 0) {
      // A "total" smaller than the parts the same filing tags is a line of its own (Formula.overrides): not the total.
      for (const [accn, own] of mine ?? []) {
        const part = (series: string | undefined) => series !== undefined && (byAccn.get(series)?.get(accn)?.value ?? -Infinity) > own.value;
        if (spec.formulas.some((f) => part(f.overrides))) mine!.delete(accn);
      }
      const tagged = mine?.size ? firstFiled(mine.values()) : undefined;
      for (const [f, formula] of spec.formulas.entries()) {
        for (const accn of termAccessions(formula, byAccn)) {
          if (mine?.has(accn)) continue;
          const value = evaluate(formula, accn, byAccn, spec.concepts.length + f);
          if (!value) continue;
          if (tagged !== undefined && !formula.lines) {
            if (value.filed >= tagged) continue;
            value.until = tagged;
          }
          if (!mine) byAccn.set(name, (mine = new Map()));
          mine.set(accn, value);
        }
      }
    }
    if (mine?.size) out.set(name, byFiling([...mine.values()]));
  }
  return out;
}

/**
 * A value tagged under another name of an earlier concept's line takes that concept as its basis (StatementSpec.sameLine).
 * Where its filing tags the part by which the two differ, it is its own line (its basis its own concept), which no
 * filing's tie makes one with the other (tagged-alike.ts): Disney's fiscal 2022 continuing operations' 6,002 million
 * beside 8 million of discontinued operations, though its 10-Ks re-tag fiscal 2023's 9,866 million under both names.
 */
function sameLine(value: FiledValue, names: NonNullable<StatementSpec["sameLine"]>, byAccn: Map<string, Map<string, FiledValue>>): void {
  const line = names[value.concept];
  if (!line) return;
  const part = line.unless === undefined ? undefined : byAccn.get(line.unless)?.get(value.accn);
  if (!part) value.basis = line.as;
  else if (part.value === 0) value.alsoBasis = line.as;
  else value.basis = value.concept;
}

/** The earliest filing date among values ("" for none). */
export function firstFiled(values: Iterable<{ filed: string }>): string {
  let first = "";
  for (const v of values) if (first === "" || v.filed < first) first = v.filed;
  return first;
}

/** A list of series as entries, made once per list (read for every period and instant). */
const ENTRIES = new WeakMap<object, [string, StatementSpec][]>();
function entriesOf(specs: Readonly<Record<string, StatementSpec>>): [string, StatementSpec][] {
  let entries = ENTRIES.get(specs);
  if (!entries) ENTRIES.set(specs, (entries = Object.entries(specs)));
  return entries;
}

/** The filings that report any term of a formula. */
function termAccessions(formula: StatementSpec["formulas"][number], byAccn: Map<string, Map<string, FiledValue>>): Set<string> {
  const accns = new Set<string>();
  for (const term of formula.terms) for (const accn of byAccn.get(term.series)?.keys() ?? []) accns.add(accn);
  return accns;
}

/** One filing's value of a formula, or null when a required term is missing, the terms' units differ, an `unless` series is there or a `when` series is not. */
function evaluate(formula: StatementSpec["formulas"][number], accn: string, byAccn: Map<string, Map<string, FiledValue>>, priority: number): FiledValue | null {
  if (formula.unless?.some((series) => byAccn.get(series)?.has(accn))) return null;
  if (formula.when?.some((series) => !byAccn.get(series)?.has(accn))) return null;
  const components: { concept: string; value: number }[] = [];
  let first: FiledValue | null = null;
  let value = 0;
  let concept = "";
  const within = formula.inclusive && containing(formula, accn, byAccn);
  const counted: number[] = [];
  for (const term of formula.terms) {
    const part = byAccn.get(term.series)?.get(accn);
    if (!part) {
      if (term.required) return null;
      continue;
    }
    if (within && !formula.inclusive!.includes(term.series)) continue; // inside the inclusive terms: counted there
    // Two kinds of borrowings at the very same amount are one line tagged twice: Marvell's 10-K for fiscal 2023 tags its
    // short-term debt of 584.4 million as both short-term borrowings and the current portion of long-term debt.
    if (formula.inclusive) {
      if (part.value !== 0 && counted.includes(part.value)) continue;
      counted.push(part.value);
    }
    if (first && part.unit !== first.unit) return null;
    first ??= part;
    value += term.sign * part.value;
    const expression = term.sign > 0 ? part.concept : negate(part.concept);
    concept += concept === "" || expression.startsWith("−") ? expression : `+${expression}`;
    // A term that is itself a sum (total equity = the parent's + NCI) contributes its own terms.
    for (const c of part.components ?? [{ concept: part.concept, value: part.value }]) components.push({ concept: c.concept, value: term.sign * c.value || 0 }); // never −0 (JSON writes it 0)
  }
  if (!first) return null;
  const single = components.length === 1 && !concept.startsWith("−");
  const computed: FiledValue = {
    value: clean(value),
    accn,
    filed: first.filed,
    concept,
    priority,
    unit: first.unit,
    form: first.form,
    annual: first.annual,
    basis: `formula ${priority}`,
  };
  if (!single) {
    computed.components = components;
    computed.derived = true;
  }
  return computed;
}

/**
 * Whether a filing's inclusive terms hold its other terms (Formula.inclusive): both tagged, and the inclusive ones add
 * up to at least the others — a whole is never smaller than its parts, so a smaller "whole" is a line of its own.
 */
function containing(formula: StatementSpec["formulas"][number], accn: string, byAccn: Map<string, Map<string, FiledValue>>): boolean {
  let [whole, parts, wholes, others] = [0, 0, 0, 0];
  for (const term of formula.terms) {
    const part = byAccn.get(term.series)?.get(accn);
    if (!part) continue;
    if (formula.inclusive!.includes(term.series)) [whole, wholes] = [whole + term.sign * part.value, wholes + 1];
    else [parts, others] = [parts + term.sign * part.value, others + 1];
  }
  return wholes > 0 && others > 0 && whole >= parts;
}

/** An expression of concepts with its signs flipped ("A+B" → "−A−B"); concepts contain hyphens, never + or −. */
function negate(expression: string): string {
  const negative = expression.startsWith("−");
  const rest = (negative ? expression.slice(1) : expression).replace(/[+−]/g, (op) => (op === "+" ? "−" : "+"));
  return negative ? rest : `−${rest}`;
}
