// The financials document's history section (as the earnings one, issue 14 "Point in time"): per row, every value
// each statement metric had and from when, the values filed but never served, and the fiscal year's reconciliation
// over time — the one reading of it, shared by the builder (today's rows) and the gateway (`as_of`, `history=true`) —
// and its compact stored form.
import { z } from "zod";
import { alternativeDatesAsOf, derivedAsOf, documentContext, entryAsOf, entryOn, exceptionsAsOf, filedAtOf, LATEST, metricAt } from "./earnings-history.ts";
import { EntityChange, withEntityMark } from "./entity-change.ts";
import { labelKey, lastPeriodReport, spanKey, ttmAsOf } from "./financials-ttm.ts";
import { FinancialPeriodHistory, FinancialReconciliationState, UnavailableSpan, type FinancialsContext } from "./financials-row-history.ts";
import {
  FinancialMetricName,
  FLOW_METRICS,
  STATEMENT_METRICS,
  StatementHistoryEntry,
  STATEMENTS,
  Unavailable,
  type FinancialPeriod,
  type StatementMetric,
} from "./financials.ts";
import { Accession, IsoDate } from "./primitives.ts";
import { PER_SHARE_METRICS, splitsKnownBy, splitUnadjustedAt } from "./earnings.ts";

/** A span as stored: its reason an index into the stored `reasons` (rows share a handful of long messages). */
const StoredSpan = UnavailableSpan.omit({ metric: true, reason: true, message: true }).extend({ reason: z.number().int().nonnegative() });

/** The optional fields of an entry, stored apart (few entries have any). */
const EXTRAS = ["effective_from", "scale_corrected", "scale_unclear", "components", "as_of"] as const;
const Extras = StatementHistoryEntry.pick({ effective_from: true, scale_corrected: true, scale_unclear: true, components: true, as_of: true });
/** Numbers per stored entry: value, filing, concept, unit, derived (0 or 1). */
const STRIDE = 5;

/** An entry's optional fields by its position in a run. */
const RunExtra = z.record(z.string().regex(/^\d+$/), Extras);
/** A run of numbers (checked entry by entry in the refinement below: a per-number schema was most of the cost). */
const Run = z.custom<number[]>(Array.isArray, "expected an array of numbers");
/** Per metric, its run — or the index of a run in `shared`, when several rows hold the very same entries. */
const Runs = z.partialRecord(FinancialMetricName, z.union([z.number().int().nonnegative(), Run]));
const RunExtras = z.partialRecord(FinancialMetricName, RunExtra).optional();

/**
 * The financials history as the document stores it (its `history` text parses to this): per row and metric the entries
 * as one flat run of numbers — value, filing, concept, unit, derived — the filing an index into `filings` (accession,
 * form, filed_at), concept and unit into `strings`; an entry's optional fields under `extras` by its position; the
 * values filed but never served likewise under `filed` and `filed_extras`. Entries several rows share (a fiscal
 * year's balance sheet is its fourth quarter's, a year-end TTM is the year) are stored once, in `shared`, and named by
 * index; the reasons of rows' nulls likewise, in `reasons`. A statement's history holds several entries per row and
 * metric (each filing re-reports its comparatives): stored as objects it was five times larger than this and most of
 * a build's time (validated, serialised, escaped).
 */
export const StoredFinancialsHistory = z
  .object({
    filings: z.array(z.tuple([Accession, z.string(), IsoDate])),
    strings: z.array(z.string()),
    /** The company's split dates, once (every row reads them). */
    splits: z.array(IsoDate).optional(),
    splits_known: z.array(IsoDate).optional(),
    /** The company's changes of reporting entity, once (every row reads them). */
    entity_changes: z.array(EntityChange).optional(),
    shared: z.array(z.object({ run: Run, extras: RunExtra.optional() })).optional(),
    /** The reasons of nulls rows give (each once), named by index in their `unavailable`. */
    reasons: z.array(Unavailable).optional(),
    rows: z.array(
      z.object({
        metrics: Runs,
        extras: RunExtras,
        filed: Runs.optional(),
        filed_extras: RunExtras,
        reconciliation: z.array(FinancialReconciliationState).optional(),
        unavailable: z.array(StoredSpan).optional(),
      }),
    ),
  })
  .superRefine((stored, ctx) => {
    // Every run whole, every index within its table, derived a flag: checked in one loop, not per element by zod.
    const check = (run: number[], path: (string | number)[]) => {
      for (let i = 0; i < run.length; i += STRIDE) {
        const [value, filing, concept, unit, derived] = [run[i], run[i + 1], run[i + 2], run[i + 3], run[i + 4]];
        const ok =
          Number.isFinite(value) &&
          derived !== undefined &&
          (derived === 0 || derived === 1) &&
          Number.isInteger(filing) && filing! >= 0 && filing! < stored.filings.length &&
          Number.isInteger(concept) && concept! >= 0 && concept! < stored.strings.length &&
          Number.isInteger(unit) && unit! >= 0 && unit! < stored.strings.length;
        if (!ok) ctx.addIssue({ code: "custom", path: [...path, i], message: "not a stored entry (value, filing, concept, unit, derived)" });
      }
    };
    const shared = stored.shared ?? [];
    shared.forEach((s, k) => check(s.run, ["shared", k, "run"]));
    stored.rows.forEach((row, r) => {
      for (const group of ["metrics", "filed"] as const) {
        for (const [name, run] of Object.entries(row[group] ?? {})) {
          if (typeof run !== "number") check(run, ["rows", r, group, name]);
          else if (run >= shared.length) ctx.addIssue({ code: "custom", path: ["rows", r, group, name], message: "no such shared run" });
        }
      }
      row.unavailable?.forEach((span, k) => {
        if (span.reason >= (stored.reasons?.length ?? 0)) ctx.addIssue({ code: "custom", path: ["rows", r, "unavailable", k, "reason"], message: "no such reason" });
      });
    });
  });
export type StoredFinancialsHistory = z.infer<typeof StoredFinancialsHistory>;

type Group = Partial<Record<FinancialMetricName, StatementHistoryEntry[]>>;

/** The history in its stored form: each filing, concept and unit once, and entries rows share once. */
export function storeHistory(history: readonly FinancialPeriodHistory[]): StoredFinancialsHistory {
  const filings: StoredFinancialsHistory["filings"] = [];
  const strings: string[] = [];
  const filingIndex = new Map<string, number>();
  const stringIndex = new Map<string, number>();
  const indexOf = (map: Map<string, number>, key: string, add: () => void) => {
    let i = map.get(key);
    if (i === undefined) {
      map.set(key, (i = map.size));
      add();
    }
    return i;
  };
  // Rows share entries as the very same arrays (statements.ts converts a timeline once): counted by identity.
  const uses = new Map<readonly StatementHistoryEntry[], number>();
  for (const h of history) for (const group of [h.metrics, h.filed ?? {}]) for (const entries of Object.values(group)) uses.set(entries, (uses.get(entries) ?? 0) + 1);
  const shared: NonNullable<StoredFinancialsHistory["shared"]> = [];
  const sharedIndex = new Map<readonly StatementHistoryEntry[], number>();
  const encode = (entries: readonly StatementHistoryEntry[]) => {
    const run: number[] = [];
    let extras: Record<string, z.infer<typeof Extras>> | undefined;
    entries.forEach((e, k) => {
      const filing = indexOf(filingIndex, e.accession, () => filings.push([e.accession, e.form, e.filed_at]));
      run.push(e.value, filing, indexOf(stringIndex, e.concept, () => strings.push(e.concept)), indexOf(stringIndex, e.unit, () => strings.push(e.unit)), e.derived ? 1 : 0);
      if (!EXTRAS.some((key) => e[key] !== undefined)) return;
      const extra: Record<string, unknown> = {};
      for (const key of EXTRAS) if (e[key] !== undefined) extra[key] = e[key];
      (extras ??= {})[k] = extra;
    });
    return { run, extras };
  };
  const encodeGroup = (group: Group) => {
    const runs: StoredFinancialsHistory["rows"][number]["metrics"] = {};
    let extras: NonNullable<StoredFinancialsHistory["rows"][number]["extras"]> | undefined;
    for (const [name, entries] of Object.entries(group) as [FinancialMetricName, StatementHistoryEntry[]][]) {
      if (uses.get(entries)! > 1) {
        let k = sharedIndex.get(entries);
        if (k === undefined) {
          const { run, extras: extra } = encode(entries);
          sharedIndex.set(entries, (k = shared.push(extra ? { run, extras: extra } : { run }) - 1));
        }
        runs[name] = k;
        continue;
      }
      const { run, extras: extra } = encode(entries);
      runs[name] = run;
      if (extra) (extras ??= {})[name] = extra;
    }
    return { runs, extras };
  };
  const reasons: Unavailable[] = [];
  const reasonKeys = new Map<string, number>();
  const reasonIndex = (u: Unavailable) => indexOf(reasonKeys, `${u.metric}/${u.reason}/${u.message}`, () => reasons.push(u));
  const rows = history.map((h) => {
    const metrics = encodeGroup(h.metrics);
    const row: StoredFinancialsHistory["rows"][number] = { metrics: metrics.runs };
    if (metrics.extras) row.extras = metrics.extras;
    if (h.filed) {
      const filed = encodeGroup(h.filed);
      row.filed = filed.runs;
      if (filed.extras) row.filed_extras = filed.extras;
    }
    if (h.reconciliation) row.reconciliation = h.reconciliation;
    if (h.unavailable) row.unavailable = h.unavailable.map(({ metric, reason, message, ...span }) => ({ ...span, reason: reasonIndex({ metric, reason, message }) }));
    return row;
  });
  const { splits, splits_known: known } = history.find((h) => h.splits) ?? {};
  const changes = history.find((h) => h.entity_changes)?.entity_changes;
  return { filings, strings, ...(splits ? { splits } : {}), ...(known ? { splits_known: known } : {}), ...(changes ? { entity_changes: changes } : {}), ...(shared.length ? { shared } : {}), ...(reasons.length ? { reasons } : {}), rows };
}

/**
 * The stored history read back into entries (the gateway does it once per document it answers as of a date). Rows
 * that share entries share the array read back, as they did when stored.
 */
export function expandHistory(stored: StoredFinancialsHistory): FinancialPeriodHistory[] {
  const decode = (run: number[], extra: z.infer<typeof RunExtra> | undefined) => {
    const entries: StatementHistoryEntry[] = [];
    for (let i = 0; i < run.length; i += STRIDE) {
      const [accession, form, filed_at] = stored.filings[run[i + 1]!]!;
      const entry: StatementHistoryEntry = { value: run[i]!, unit: stored.strings[run[i + 3]!]!, concept: stored.strings[run[i + 2]!]!, accession, form, filed_at, derived: run[i + 4] === 1 };
      entries.push(extra?.[i / STRIDE] ? { ...entry, ...extra[i / STRIDE] } : entry);
    }
    return entries;
  };
  const shared = (stored.shared ?? []).map((s) => decode(s.run, s.extras));
  const decodeGroup = (runs: StoredFinancialsHistory["rows"][number]["metrics"], extras: StoredFinancialsHistory["rows"][number]["extras"]) => {
    const group: Group = {};
    for (const [name, run] of Object.entries(runs) as [FinancialMetricName, number | number[]][]) group[name] = typeof run === "number" ? shared[run]! : decode(run, extras?.[name]);
    return group;
  };
  return stored.rows.map((row) => {
    const out: FinancialPeriodHistory = { metrics: decodeGroup(row.metrics, row.extras) };
    if (row.filed) out.filed = decodeGroup(row.filed, row.filed_extras);
    if (row.reconciliation) out.reconciliation = row.reconciliation;
    if (stored.splits) out.splits = stored.splits;
    if (stored.splits_known) out.splits_known = stored.splits_known;
    if (stored.entity_changes) out.entity_changes = stored.entity_changes;
    if (row.unavailable) out.unavailable = row.unavailable.map(({ reason, ...span }) => ({ ...stored.reasons![reason]!, ...span }));
    return out;
  });
}

/** The context of a document's rows (aligned with their histories); `filings`: the stored table, when at hand. */
export function financialsContext(rows: readonly FinancialPeriod[], histories: readonly FinancialPeriodHistory[], filings?: readonly (readonly [string, string, string])[]): FinancialsContext {
  const bySpan = new Map<string, number>();
  const byLabel = new Map<string, number>();
  rows.forEach((r, i) => {
    if (r.ttm !== null) return;
    bySpan.set(spanKey(r.period_start, r.period_end, r.months), i);
    byLabel.set(labelKey(r.fiscal_year, r.fiscal_quarter, r.months), i);
  });
  // The stored table names each filing once (storeHistory), with the date its entries carry; else the entries say.
  let table: Map<string, string> | undefined;
  const filedAt = filings ? (accession: string) => (table ??= new Map(filings.map(([accn, , filed]) => [accn, filed]))).get(accession) : documentContext(histories).filedAt;
  return { rows, histories, bySpan, byLabel, filedAt, latestParts: new Map(), firstReports: new Map() };
}

/**
 * A row as it stood on `date`: each metric the last value in effect then (the latest filing accepted by then), the
 * row's provenance the latest of its metrics'; null when none had been reported. A statement the row has no metric of
 * stays as it is in the row (null balance on a year-to-date row). A TTM row's block is read as of the date from the
 * document (`context`; without one, today's block: only for today's answer) and the flows it names are null; a TTM
 * row none of whose flows can be summed stands with its reasons from the filing that first reported its last period (its
 * provenance then). Alternative dates and the exceptions that describe a value (unclear scale, negative outflow) are read
 * as of the date too; a share count's split flag and the `one_entity` mark are made from the date's values. `withHistory` adds each metric's entries, and the values filed but never served.
 */
export function financialAsOf(row: FinancialPeriod, history: FinancialPeriodHistory, date: string, withHistory: boolean, context?: FinancialsContext): FinancialPeriod | null {
  if (row.ttm && date !== LATEST && !context) throw new Error("a TTM row is read as of a date only with its document (financialsContext)");
  const out: FinancialPeriod = { ...row };
  const ttm = row.ttm && context ? ttmAsOf(row, history, context, date) : row.ttm;
  const withheld: string[] | null = ttm?.unavailable.length ? ttm.unavailable.map((u) => u.metric) : null;
  // Fewer than four quarters chained by the date: no per-share TTM either (ttm.ts makes them from four only).
  if (withheld && ttm!.basis === "four_quarters" && ttm!.periods.length < 4) withheld.push(...PER_SHARE_METRICS);
  let source: StatementMetric | null = null;
  for (const statement of STATEMENTS) {
    if (row[statement] === undefined || row[statement] === null) continue;
    const metrics: Record<string, StatementMetric | null> = {};
    for (const name of STATEMENT_METRICS[statement]) {
      const metric = withheld?.includes(name) ? null : statementMetricAsOf(history.metrics[name], date, withHistory, withHistory ? history.filed?.[name] : undefined);
      // A share count is never restated: on the old basis when filed before a split the filings had shown by the date.
      if (metric && name === "shares_outstanding") metric.split_unadjusted = splitsKnownBy(history.splits, history.splits_known, date).some((by) => metric.filed_at < by);
      metrics[name] = metric;
      if (metric && (!source || metric.filed_at > source.filed_at || (metric.filed_at === source.filed_at && metric.source_accession > source.source_accession))) {
        source = metric;
      }
    }
    (out as Record<string, unknown>)[statement] = metrics;
  }
  if (ttm) out.ttm = ttm;
  if (history.unavailable) out.unavailable = unavailableAsOf(history, date);
  out.split_unadjusted = splitUnadjustedAt(history.splits, out.income ?? {}, date, history.splits_known);
  if (date !== LATEST) {
    const filedAt = filedAtOf(history, context);
    out.alternative_dates = alternativeDatesAsOf(row.alternative_dates, date, filedAt);
    out.exceptions = signExceptionsAsOf(exceptionsAsOf(row.exceptions, history.metrics, date, filedAt, SIGN), out);
    if (!row.ttm) out.derived = derivedAsOf(row.derived, history, date, FLOW_METRICS);
  }
  // A TTM row's values are its quarters': their rows carry the mark.
  if (!row.ttm) out.exceptions = withEntityMark(out.exceptions, () => ({ ...out.income, ...out.balance, ...out.cash_flow }), history.entity_changes, date);
  if (!source) {
    if (!ttm?.unavailable.length || row.filed_at === "") return null;
    if (date === LATEST) return out;
    // As of a date: from the filing that first reported its last period (context: checked above), as made that day.
    const first = lastPeriodReport(row.ttm!, date, context!);
    return first && { ...out, form: first.form, filed_at: first.filed_at, source_accession: first.accession };
  }
  const verdict = history.reconciliation?.findLast((s) => s.from <= date);
  out.form = source.form;
  out.filed_at = source.filed_at;
  out.source_accession = source.source_accession;
  out.reconciled = verdict?.reconciled ?? null;
  out.reconciliation = verdict?.reconciliation ?? [];
  return out;
}

/** The reasons of a row's nulls on `date` (UnavailableSpan), in their order, one per metric; a metric's value read from its history. */
function unavailableAsOf(history: FinancialPeriodHistory, date: string): Unavailable[] {
  const has = (metric: FinancialMetricName) => entryOn(history.metrics[metric], date) !== undefined;
  const out: Unavailable[] = [];
  for (const u of history.unavailable!) {
    if (u.from > date || (u.until !== undefined && u.until <= date) || has(u.metric) || out.some((o) => o.metric === u.metric)) continue;
    if ((u.requires && !has(u.requires)) || (u.because && !out.some((o) => o.metric === u.because))) continue;
    out.push({ metric: u.metric, reason: u.reason, message: u.message });
  }
  return out;
}

/** A statement metric as it stood on `date` (metricAsOf), with the cover date of the entry in effect. */
export function statementMetricAsOf(entries: readonly StatementHistoryEntry[] | undefined, date: string, withHistory: boolean, filed?: readonly StatementHistoryEntry[]): StatementMetric | null {
  if (!entries?.length) return null;
  const i = entryAsOf(entries, date);
  const metric = metricAt(entries, i, withHistory, filed, date) as StatementMetric | null;
  if (!metric) return null;
  const e = entries[i]!;
  if (e.as_of) metric.as_of = e.as_of;
  return metric;
}

/** The outflows the `sign` invariant watches (cash paid out, never negative unless marked): the builder's check and the as-of reading alike. */
export const OUTFLOW_METRICS = ["capital_expenditure", "dividends_paid", "share_repurchases"] as const satisfies readonly FinancialMetricName[];

/** The message of a negative outflow (financial-invariants.ts marks it). */
export function signMessage(metric: string, value: number, row: Pick<FinancialPeriod, "period_start" | "period_end" | "ttm">): string {
  const why = row.ttm ? "a quarter it sums is negative" : "derived from years to date of which the later is smaller: the filings restated or reclassified an earlier part";
  return `${metric} ${value} for ${row.period_start}..${row.period_end} is a negative outflow: ${why}`;
}

const SIGN: ReadonlySet<string> = new Set(["sign"]);

/** The `sign` exceptions of a row read as of a date: one for each outflow negative then (the row's values as of then). */
function signExceptionsAsOf(exceptions: FinancialPeriod["exceptions"], row: FinancialPeriod): FinancialPeriod["exceptions"] {
  const out: FinancialPeriod["exceptions"] = [];
  const negative = (metric: (typeof OUTFLOW_METRICS)[number]) => {
    const m = row.cash_flow?.[metric];
    return m && m.value < 0 ? m : null;
  };
  const done = new Set<string>();
  for (const e of exceptions) {
    if (e.rule !== "sign" || !(OUTFLOW_METRICS as readonly string[]).includes(e.metric ?? "")) {
      out.push(e);
      continue;
    }
    done.add(e.metric!);
    const m = negative(e.metric as (typeof OUTFLOW_METRICS)[number]);
    if (m) out.push({ ...e, message: signMessage(e.metric!, m.value, row) });
  }
  for (const metric of OUTFLOW_METRICS) {
    const m = done.has(metric) ? null : negative(metric);
    if (m) out.push({ rule: "sign", metric, message: signMessage(metric, m.value, row) });
  }
  return out;
}
