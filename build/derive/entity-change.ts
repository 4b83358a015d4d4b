// Changes of reporting entity (a reverse merger, a SPAC's merger, a restatement of the whole balance sheet), found in
// the balance sheets of company facts; schemas/entity-change.ts marks the rows they split. Pure: facts in, changes out.
import type { EntityChange } from "../../schemas/entity-change.ts";
import type { CompanyFacts } from "../parse/companyfacts.ts";
import { PERIODIC_FORM } from "../forms.ts";
import { stepBetween } from "./scale.ts";
import { BALANCE_SERIES } from "./statement-concepts.ts";

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

/**
 * Every filing that gave, at some balance sheet date, total assets, cash and the parent's equity each at least a
 * quarter apart from the latest figure filings before it gave for that date (periodic reports only; each filing's
 * highest-priority concept of each line), unless all three differ by one unit-scale step. After such a filing the
 * company's filings report another entity's history (Pineapple Energy's, in Communications Systems' filings after
 * their reverse merger of 2022): a period's values from filings before it describe the former entity. Oldest first;
 * one per filing (its earliest such date).
 */
export function entityChanges(facts: CompanyFacts): EntityChange[] {
  // date → line → accession → its value, unit and filing date (the first concept of the series' list it tags)
  const byDate = new Map<string, Map<keyof Figures, Map<string, Filed>>>();
  for (const anchor of ANCHORS) {
    BALANCE_SERIES[anchor]!.concepts.forEach((concept, priority) => {
      for (const [unit, list] of Object.entries(facts.concepts[concept] ?? {})) {
        for (const f of list) {
          if (f.start !== undefined || !PERIODIC_FORM.test(f.form)) continue;
          const lines = byDate.get(f.end) ?? new Map();
          byDate.set(f.end, lines);
          const values = lines.get(anchor) ?? new Map();
          lines.set(anchor, values);
          const known = values.get(f.accn);
          if (!known || priority < known.priority) values.set(f.accn, { value: f.val, unit, filed: f.filed, priority });
        }
      }
    });
  }
  const found = new Map<string, EntityChange>();
  for (const [date, lines] of byDate) {
    if (ANCHORS.some((a) => !lines.has(a))) continue;
    for (const [accession, { filed }] of lines.get("total_assets")!) {
      const figures: Partial<Figures> = {};
      for (const anchor of ANCHORS) {
        const values = lines.get(anchor)!;
        const after = values.get(accession);
        const before = after && latestBefore(values, after);
        if (after === undefined || before === undefined) break;
        figures[anchor] = [before, after.value];
      }
      if (!isComplete(figures) || !ANCHORS.every((a) => apart(...figures[a])) || oneScaleStep(figures)) continue;
      const known = found.get(accession);
      if (!known || date < known.date) found.set(accession, { accession, filed_at: filed, date, ...figures });
    }
  }
  return [...found.values()].sort((a, b) => (a.filed_at < b.filed_at ? -1 : a.filed_at > b.filed_at ? 1 : a.accession < b.accession ? -1 : 1));
}

/** One filing's figure of a line at a date. */
interface Filed {
  value: number;
  unit: string;
  filed: string;
  priority: number;
}

/**
 * The figure, in the same unit, of the latest filing made before `filing` (the latest accession on a day), if any: a
 * company that changed its reporting currency gave the same balance sheet in two units, which are not compared.
 */
function latestBefore(values: ReadonlyMap<string, Filed>, filing: Filed): number | undefined {
  let best: (Filed & { accn: string }) | undefined;
  for (const [accn, v] of values) {
    if (v.filed >= filing.filed || v.unit !== filing.unit) continue;
    if (!best || v.filed > best.filed || (v.filed === best.filed && accn > best.accn)) best = { accn, ...v };
  }
  return best?.value;
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
