// Fiscal labels of earnings periods: the original filing of each period, and the calendar for comparatives.
// Pure; `fy`/`fp` of a fact describe its filing and are only ever read for the filing's own period (pitfall 1).
import type { FiscalQuarter } from "../../schemas/earnings.ts";
import type { CompanyFacts } from "../parse/companyfacts.ts";
import { EARNINGS_CONCEPTS } from "./concepts.ts";
import { classifyMonths, fitsQuarter, inferFiscalPosition, type LabelAnchor, type Months, type QuarterIndex } from "./periods.ts";

/** Annual report forms: their own 12-month period is a fiscal year end the calendar can be learned from. */
const ANNUAL_FORM = /^(10-K|10-KT|20-F|40-F)(\/A)?$/;
const FP_QUARTER: Readonly<Record<string, QuarterIndex>> = { Q1: 1, Q2: 2, Q3: 3, FY: 4 };

/** A periodic filing as the earnings facts show it: its own reporting period and its fiscal labels. */
export interface Filing {
  accn: string;
  filed: string;
  /** The latest duration end it reports among the earnings concepts: its own reporting period's end. */
  ownEnd: string;
  /** The fiscal quarter its own period ends in; null when neither `fp` nor its period lengths tell. */
  quarter: QuarterIndex | null;
  fy: number | null;
  /** True when its `fy`/`fp` agree with its own period lengths (Disney tagged 10-Qs `fp=FY`, Under Armour one `Q3`). */
  consistent: boolean;
  annual: boolean;
}

/** The company's periodic filings by their own period end (the earliest first), and the anchors of its calendar. */
export interface FilingIndex {
  /** Own period end → the ORIGINAL filing for periods ending then: the earliest (filed, accession) with that end. */
  originalByEnd: Map<string, Filing>;
  anchors: LabelAnchor[];
}

/** Fiscal labels of one period and where they came from (DESIGN "Labels"). */
export interface PeriodLabel {
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  labelAccession: string | null;
  inferred: boolean;
}

/**
 * Reads every periodic filing's own period from the earnings concepts' duration facts: its end is the latest end
 * the filing reports (companyfacts has no dei:DocumentPeriodEndDate; all concepts would not do — Walmart's 10-Ks
 * of 2011–12 carry next-year guidance durations), its quarter the longest duration ending there (3, 6, 9, 12 months).
 */
export function collectFilings(facts: CompanyFacts, periodicForm: RegExp): FilingIndex {
  const seen = new Map<string, { filed: string; form: string; fy: number | null; fp: string | null; ends: Map<string, number> }>();
  for (const concept of EARNINGS_CONCEPTS) {
    for (const list of Object.values(facts.concepts[concept] ?? {})) {
      for (const f of list) {
        if (f.start === undefined || !periodicForm.test(f.form)) continue;
        let filing = seen.get(f.accn);
        if (!filing) seen.set(f.accn, (filing = { filed: f.filed, form: f.form, fy: f.fy ?? null, fp: f.fp ?? null, ends: new Map() }));
        const months = classifyMonths(f.start, f.end) ?? 0;
        filing.ends.set(f.end, Math.max(months, filing.ends.get(f.end) ?? 0));
      }
    }
  }
  const filings: Filing[] = [];
  for (const [accn, s] of seen) {
    const ownEnd = [...s.ends.keys()].reduce((a, b) => (b > a ? b : a));
    const structural = quarterOfMonths(s.ends.get(ownEnd) ?? 0);
    const tagged = s.fp === null ? null : (FP_QUARTER[s.fp] ?? null);
    const quarter = structural ?? tagged;
    const consistent = s.fy !== null && tagged !== null && tagged === quarter;
    filings.push({ accn, filed: s.filed, ownEnd, quarter, fy: s.fy, consistent, annual: ANNUAL_FORM.test(s.form) });
  }
  const originalByEnd = new Map<string, Filing>();
  for (const f of filings.sort((a, b) => b.filed.localeCompare(a.filed) || b.accn.localeCompare(a.accn))) originalByEnd.set(f.ownEnd, f);
  return { originalByEnd, anchors: trustedAnchors(filings) };
}

/**
 * Labels a period from its ORIGINAL filing — the earliest periodic filing whose own period ends on the period's end,
 * whether or not that filing tagged this very duration (a 10-K is the original filing of the Q4 its notes show only
 * later) — or, when no filing's own period ends then (a comparative from before the company's first XBRL filing) or
 * that filing's labels contradict the calendar, from the company's own fiscal calendar with `inferred` set. Null when
 * the span cannot be a fiscal period (six months ending in Q3, twelve not ending a fiscal year) or there is no calendar.
 */
export function labelPeriod(period: { end: string; months: Months }, index: FilingIndex): PeriodLabel | null {
  const original = index.originalByEnd.get(period.end);
  const trusted = original && original.fy !== null && original.quarter !== null && isTrusted(original, index.anchors);
  const position = trusted
    ? { fiscalYear: original!.fy!, quarter: original!.quarter! }
    : inferFiscalPosition(period.end, index.anchors);
  if (!position || !fitsQuarter(period.months, position.quarter)) return null;
  return {
    fiscalYear: position.fiscalYear,
    fiscalQuarter: period.months === 12 ? "FY" : `Q${position.quarter}`,
    labelAccession: trusted ? original!.accn : null,
    inferred: !trusted,
  };
}

/** Calendar anchors: filings whose `fy`/`fp` agree with their own period lengths; annual ones mark fiscal year ends. */
function trustedAnchors(filings: readonly Filing[]): LabelAnchor[] {
  const anchors: LabelAnchor[] = [];
  for (const f of filings) {
    if (!f.consistent) continue;
    anchors.push({ end: f.ownEnd, fiscalYear: f.fy!, quarter: f.quarter!, annual: f.annual && f.quarter === 4 });
  }
  return anchors;
}

/**
 * A filing's labels are used as filed when its `fp` matches its own period lengths; when only `fp` is wrong (a 10-Q
 * tagged FY) its `fy` still stands if the calendar agrees with it and the quarter its period lengths show.
 */
function isTrusted(filing: Filing, anchors: readonly LabelAnchor[]): boolean {
  if (filing.consistent) return true;
  const calendar = inferFiscalPosition(filing.ownEnd, anchors);
  return calendar !== null && calendar.fiscalYear === filing.fy && calendar.quarter === filing.quarter;
}

function quarterOfMonths(months: number): QuarterIndex | null {
  return months === 0 ? null : ((months / 3) as QuarterIndex);
}
