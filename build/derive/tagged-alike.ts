// Two concepts of a series that one company uses for one line, as its own filings show: a filing tags both for a
// period with one figure, or a later filing re-reports a period's figure under the other name, and no filing tags them
// apart. The one-concept rule then counts them as one (FiledValue.basis).
import type { RawSpan } from "./observations.ts";
import type { FiledValue } from "./vintage.ts";

/** A concept the company tags alike with `as` (its series' preferred concept of the two), from the filing that first showed it. */
export interface AlikeConcept {
  as: string;
  since: string;
}

/** Per series, each concept the company tags alike with a preferred one. */
export type AlikeConcepts = ReadonlyMap<string, ReadonlyMap<string, AlikeConcept>>;
/** No concepts tagged alike: for values read where no tie applies (balance sheet dates, EPS numerators). */
export const NONE_ALIKE: AlikeConcepts = new Map();

/**
 * The concepts each series' filings tag alike. Alphabet's 10-Qs tag revenue under both `Revenues` and
 * `RevenueFromContractWithCustomerExcludingAssessedTax`, equal, from 2018-04-24 on; its 10-Ks for 2020 and 2021 tag
 * the year only as `Revenues` while the 10-Qs' years to date were in the other name, so each fourth quarter and every
 * TTM revenue built on it were null for a year or more. Xcel Energy's 10-K for 2019 tags the years it shows only as
 * `RegulatedAndUnregulatedOperatingRevenue`, where its 10-Qs of 2019 tagged `Revenues`: a year's figure re-reported
 * under the new name, equal to what an earlier filing tagged under the old, ties them. A tie is a figure other than
 * zero (every line a company does not use is zero); a later figure under the other name that differs is a
 * restatement, no evidence either way. Only the series' own
 * concepts count (`priority` within `listed`), not a sum of lines. Two concepts one filing tags apart for a period are
 * never alike, nor is a group of concepts holding such a pair: what a filing shows apart is two lines, such as a total
 * beside its part. A concept is alike from the day a filing first ties it to the preferred one (directly or through
 * another concept), never before.
 */
export function taggedAlike(spans: readonly RawSpan[], listed: (series: string) => number): AlikeConcepts {
  // Per series: each pair of concepts seen for one period (tied or apart), and each concept's place in its list.
  const bySeries = new Map<string, { pairs: { a: string; b: string; filed: string; equal: boolean }[]; priority: Map<string, number> }>();
  for (const span of spans) {
    // Observations come grouped by series (observations.ts): pairs are sought within each series' run, which holds a
    // handful of filings' values.
    const obs = span.observations;
    for (let i = 0; i < obs.length; i++) {
      const x = obs[i]!;
      if (x.priority >= listed(x.series)) continue;
      for (let j = i + 1; j < obs.length && obs[j]!.series === x.series; j++) {
        const y = obs[j]!;
        if (y.unit !== x.unit || y.concept === x.concept || y.priority >= listed(y.series)) continue;
        // Across filings only a later one re-reporting the figure under the other name ties them (a restatement under
        // a new name is no evidence either way); a zero ties nothing, as every line a company does not use is zero.
        const tie = x.value === y.value && x.value !== 0;
        if (!tie && (y.accn !== x.accn || x.value === y.value)) continue; // neither a tie nor one filing's two lines
        let seen = bySeries.get(x.series);
        if (!seen) bySeries.set(x.series, (seen = { pairs: [], priority: new Map() }));
        seen.pairs.push({ a: x.concept, b: y.concept, filed: x.filed > y.filed ? x.filed : y.filed, equal: tie });
        seen.priority.set(x.concept, x.priority).set(y.concept, y.priority);
      }
    }
  }
  const out = new Map<string, Map<string, AlikeConcept>>();
  for (const [series, { pairs, priority }] of bySeries) {
    const equal = pairs.filter((t) => t.equal).sort((s, t) => (s.filed < t.filed ? -1 : s.filed > t.filed ? 1 : 0));
    const groups = new Groups();
    for (const t of equal) groups.join(t.a, t.b);
    const spoiled = new Set(pairs.filter((t) => !t.equal && groups.of(t.a) === groups.of(t.b)).map((t) => groups.of(t.a)));
    const preferred = new Map<string, string>(); // each group's concept of highest priority
    for (const concept of priority.keys()) {
      const g = groups.of(concept);
      const best = preferred.get(g);
      if (!spoiled.has(g) && (best === undefined || priority.get(concept)! < priority.get(best)!)) preferred.set(g, concept);
    }
    // Replayed in filing order: a concept is alike from the filing that first joins it to its group's preferred one.
    const replay = new Groups();
    const alike = new Map<string, AlikeConcept>();
    for (const t of equal) {
      const as = preferred.get(groups.of(t.a));
      if (as === undefined) continue;
      replay.join(t.a, t.b);
      for (const concept of replay.members(replay.of(t.a))) {
        if (concept !== as && !alike.has(concept) && replay.of(concept) === replay.of(as)) alike.set(concept, { as, since: t.filed });
      }
    }
    if (alike.size) out.set(series, alike);
  }
  return out;
}

/** Concepts joined into groups (union–find over a handful of names). */
class Groups {
  readonly #parent = new Map<string, string>();
  of(concept: string): string {
    let root = concept;
    for (let up = this.#parent.get(root); up !== undefined && up !== root; up = this.#parent.get(root)) root = up;
    return root;
  }
  join(a: string, b: string): void {
    if (!this.#parent.has(a)) this.#parent.set(a, a);
    if (!this.#parent.has(b)) this.#parent.set(b, b);
    const [ra, rb] = [this.of(a), this.of(b)];
    if (ra !== rb) this.#parent.set(rb, ra);
  }
  members(root: string): string[] {
    return [...this.#parent.keys()].filter((c) => this.of(c) === root);
  }
}

/** Gives each value of a concept tagged alike, filed since that was shown, its preferred concept as its basis. */
export function markAlike(series: string, values: Iterable<FiledValue>, alike: AlikeConcepts): void {
  const concepts = alike.get(series);
  if (!concepts) return;
  for (const v of values) {
    const line = concepts.get(v.concept);
    if (line && v.filed >= line.since && v.basis === undefined) v.basis = line.as;
  }
}
