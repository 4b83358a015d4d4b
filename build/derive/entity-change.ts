// Changes of reporting entity (a reverse merger, a SPAC's merger, a restatement of the whole balance sheet), found in
// the balance sheets of company facts; schemas/entity-change.ts marks the rows they split. Pure: facts in, changes out.
import type { EntityChange } from "../../schemas/entity-change.ts";
import type { CompanyFacts } from "../parse/companyfacts.ts";
import { observe } from "./observations.ts";
import { stepBetween } from "./scale.ts";
import { BALANCE_SERIES, type StatementSpec } from "./statement-concepts.ts";
import { filedStatementValues } from "./statement-values.ts";

/**
 * The lines that identify whose balance sheet it is. A restatement corrects some lines and leaves most of the balance
 * sheet alone, cash above all; another entity's balance sheet differs in every one of them.
 */
const ANCHORS = ["total_assets", "cash", "equity"] as const;
type Figures = Pick<EntityChange, (typeof ANCHORS)[number]>;
/**
 * How far apart a line's two figures must be to be another entity's: a quarter of the larger. Restatements move total
 * assets, cash and equity by a few per cent at most (Under Armour's 10-K of 2024 restated its balance sheet at
 * 2023-03-31: 0.6 %, 0.1 % and 1.6 %); a reverse merger's predecessor has a balance sheet of another size altogether.
 */
const APART = 0.25;
/** Ratios within this slack of a power of 1,000 are a unit-scale slip (scale.ts), not another entity. */
const SCALE_SLACK = 1.05;

/** The anchors as statement series, observed and valued as the balance sheet's own (observations.ts, statement-values.ts). */
const ANCHOR_SERIES: Readonly<Record<keyof Figures, StatementSpec>> = Object.fromEntries(ANCHORS.map((a) => [a, BALANCE_SERIES[a]!])) as Record<keyof Figures, StatementSpec>;

/**
 * Every filing that gave, at some balance sheet date, total assets, cash and the parent's equity each at least a
 * quarter apart from the latest figure filings before it gave for that date (each filing's value as the balance sheet
 * reads it: periodic reports, the reporting currency, the highest-priority concept, misdated figures left out),
 * unless all three differ by one unit-scale step. After such a filing the company's filings report another entity's
 * history (Pineapple Energy's, in Communications Systems' filings after their reverse merger of 2022): a period's
 * values from filings before it describe the former entity. Oldest first; one per filing (its earliest such date).
 * `currency`: the company's reporting currency (by default, the one its balance sheets use most).
 */
export function entityChanges(facts: CompanyFacts, currency?: string): EntityChange[] {
  const found = new Map<string, EntityChange>();
  for (const { date, observations } of observe(facts, ANCHOR_SERIES, currency).instants) {
    const lines = filedStatementValues(observations, ANCHOR_SERIES); // each in filing order
    if (ANCHORS.some((a) => !lines.has(a))) continue;
    for (const { accn, filed } of lines.get("total_assets")!) {
      const figures: Partial<Figures> = {};
      for (const anchor of ANCHORS) {
        const values = lines.get(anchor)!;
        const after = values.find((v) => v.accn === accn);
        const before = values.findLast((v) => v.filed < filed);
        if (!after || !before) break;
        figures[anchor] = [before.value, after.value];
      }
      if (!isComplete(figures) || !ANCHORS.every((a) => apart(...figures[a])) || oneScaleStep(figures)) continue;
      const known = found.get(accn);
      if (!known || date < known.date) found.set(accn, { accession: accn, filed_at: filed, date, ...figures });
    }
  }
  return [...found.values()].sort((a, b) => (a.filed_at < b.filed_at ? -1 : a.filed_at > b.filed_at ? 1 : a.accession < b.accession ? -1 : 1));
}

function apart(before: number, after: number): boolean {
  return Math.abs(after - before) > APART * Math.max(Math.abs(before), Math.abs(after));
}

function isComplete(figures: Partial<Figures>): figures is Figures {
  return ANCHORS.every((a) => figures[a] !== undefined);
}

/** Whether every line's two figures differ by the same power of 1,000 (a filing that slipped a unit scale). */
function oneScaleStep(figures: Figures): boolean {
  const steps = ANCHORS.map((a) => stepBetween(figures[a][1], figures[a][0], SCALE_SLACK, 1));
  return steps[0] !== null && steps[0] !== 1 && steps.every((s) => s === steps[0]);
}
