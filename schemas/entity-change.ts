// Changes of reporting entity as the documents store them (build/derive/entity-change.ts finds them), and the
// `one_entity` mark of a row whose values come from both sides of one: read by the builder and as of a date alike.
import { z } from "zod";
import { Accession, IsoDate } from "./primitives.ts";

const Figures = z.tuple([z.number(), z.number()]).meta({ description: "The earlier filings' latest figure for the date, then this filing's." });

/** A filing whose balance sheet at a date shares no line with the one the filings before it gave for that date. */
export const EntityChange = z.object({
  accession: Accession,
  filed_at: IsoDate,
  /** The balance sheet date it restated. */
  date: IsoDate,
  total_assets: Figures,
  cash: Figures,
  equity: Figures,
});
export type EntityChange = z.infer<typeof EntityChange>;

/** A served value as the mark reads it: its filing, and when that was filed. */
type Sourced = { source_accession: string; filed_at: string } | null | undefined;

/**
 * The `one_entity` exception of a row whose served values come from filings on both sides of a change of reporting
 * entity known on `date` (null when they do not): which metrics each side gave, and their filings.
 */
export function oneEntityException(
  metrics: Readonly<Record<string, Sourced>>,
  changes: readonly EntityChange[] | undefined,
  date: string,
): { rule: "one_entity"; metric: null; message: string } | null {
  const values = Object.entries(metrics).filter((e): e is [string, NonNullable<Sourced>] => !!e[1]);
  const change = straddledChange(values.map(([, v]) => v.filed_at), changes, date);
  if (!change) return null;
  const before = values.filter(([, v]) => v.filed_at < change.filed_at);
  const after = values.filter(([, v]) => v.filed_at >= change.filed_at);
  const side = (list: typeof values) => `${list.map(([name]) => name).join(", ")} (${[...new Set(list.map(([, v]) => v.source_accession))].sort().join(", ")})`;
  const figures = (name: "total_assets" | "cash" | "equity") => change[name].join(" → ");
  const message =
    `values from both sides of a change of reporting entity: ${change.accession} (filed ${change.filed_at}) gave the balance sheet at ` +
    `${change.date} with total assets ${figures("total_assets")}, cash ${figures("cash")} and equity ${figures("equity")}, none of them ` +
    `the earlier filings' (a reverse merger, or the whole balance sheet restated); ${side(before)} describe the entity before it, ` +
    `${side(after)} the entity after`;
  return { rule: "one_entity", metric: null, message };
}

/** The change of reporting entity known on `date` (the first, oldest first) that values filed on these dates straddle: they describe two companies. */
export function straddledChange(filed: readonly string[], changes: readonly EntityChange[] | undefined, date: string): EntityChange | undefined {
  return changes?.find((c) => c.filed_at <= date && filed.some((f) => f < c.filed_at) && filed.some((f) => f >= c.filed_at));
}

/**
 * A row's exceptions with its `one_entity` mark made from the values it has on `date`: the mark describes the values,
 * so it is made again wherever they are read, never carried over from another date. A company without changes (nearly
 * every one) keeps its exceptions as they are, at no cost to a reading.
 */
export function withEntityMark<E extends { rule: string }>(exceptions: E[], metrics: () => Readonly<Record<string, Sourced>>, changes: readonly EntityChange[] | undefined, date: string): E[] {
  if (!changes?.length) return exceptions;
  const kept = exceptions.filter((e) => e.rule !== "one_entity");
  const mark = oneEntityException(metrics(), changes, date);
  return mark ? [...kept, mark as unknown as E] : kept;
}
