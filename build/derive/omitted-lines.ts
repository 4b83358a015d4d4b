// Payouts known to be zero where no filing tags them: a line a 10-Q's cash flow statement leaves out (a statement omits
// a line with nothing in either column, and shows "—" in a column with nothing beside a figure in the other), and a
// year to date within a longer one of zero (a payout is never negative). Pure.
import type { FiscalQuarter } from "../../schemas/earnings.ts";
import { dayNumber } from "./periods.ts";
import type { Row } from "./statement-rows.ts";
import { byFiling, type FiledValue } from "./vintage.ts";

/**
 * The payouts companies make in some quarters only: dividends paid twice a year (Disney's, in January and July, so
 * none in its first fiscal quarter), buybacks now and then. Capital expenditure and operating cash flow are not.
 */
const PAYOUTS = ["dividends_paid", "share_repurchases"] as const;
/** A period's own report is filed within this many days of its end; a later one shows it as a prior-year column. */
const OWN_REPORT_DAYS = 183;

/**
 * Adds, per fiscal year, a zero for each payout a 10-Q's year to date, or an annual report's year, does not tag where
 * that report's cash flow statement stands (it tags operating cash flow for the span) and shows that the line is left
 * out for having nothing in it, not tagged under another concept:
 * - it tags the payout for the prior year's same span and for no later one (the line is there, its current column
 *   "—"); or
 * - it tags the payout for no period at all, shows the prior year's column (operating cash flow of that span), no
 *   filing before it gave that span a payout other than zero, and the company's filings before it tag the payout (it
 *   is a line it reports). A filing that tags the payout for other spans only has the line: Apple's 10-Q of July 2013
 *   (0001193125-13-300670) tags its dividends by quarter, not for its nine months.
 * A company that changed the payout's concept to one not read keeps its prior year's figures in the comparative
 * column, so it never passes. The zero is the filing's own, in the concept the company last used (the one-concept rule
 * and the quarters' differences read it), marked derived: Disney's 10-Q for its first quarter of fiscal 2020
 * (0001744489-20-000046) has no dividends line (it paid December's dividend in January), so its second quarter is its
 * half year's 1,587 million. Its 10-K for fiscal 2023 (0001744489-23-000216) has none either, having paid none since
 * 2020: the year is 0 from that day, where the 0 came a year later with the next 10-K's comparative column.
 */
export function addOmittedPayouts(years: ReadonlyMap<number, readonly Row[]>): void {
  const rows = [...years.values()].flat();
  for (const name of PAYOUTS) {
    const reported = byFiling(rows.flatMap((r) => r.flows.get(name) ?? []));
    // Where each filing tags the payout: the latest period end it tags it for.
    const lastEnd = new Map<string, string>();
    for (const r of rows) for (const v of r.flows.get(name) ?? []) if ((lastEnd.get(v.accn) ?? "") < r.end) lastEnd.set(v.accn, r.end);
    for (const [fiscalYear, group] of years) {
      const prior = years.get(fiscalYear - 1) ?? [];
      for (const row of group) {
        if (!fromYearStart(row)) continue;
        const own = ownReport(row);
        const values = row.flows.get(name) ?? [];
        if (!own || values.some((v) => v.accn === own.accn)) continue;
        const twin = prior.find((r) => r.months === row.months && r.base.fiscal_quarter === row.base.fiscal_quarter);
        if (!twin || paidWithin(group, row, name, own.filed)) continue;
        const tagged = lastEnd.get(own.accn);
        const line = tagged === undefined ? leftOut(twin, name, own, reported) : tagged <= twin.end ? twin.flows.get(name)?.find((v) => v.accn === own.accn) : undefined;
        if (!line) continue;
        const zero: FiledValue = { value: 0, accn: own.accn, filed: own.filed, form: own.form, annual: own.annual, unit: line.unit, concept: line.concept, priority: line.priority, derived: true };
        if (line.basis !== undefined) zero.basis = line.basis;
        row.flows.set(name, byFiling([...values, zero]));
      }
    }
  }
}

/**
 * Adds a zero for each payout of a year to date no filing tags, where some filing tags zero for a longer span of the
 * same fiscal year that holds it: nothing paid in the whole, so nothing in any part. The zero is that filing's, in its
 * concept, marked derived. Apple's 10-K for fiscal 2013 (0001193125-13-416534) tags fiscal 2011's repurchases as 0; no
 * filing tags its quarters or years to date. So too a quarter no filing gives the two years to date it would be the
 * difference of (Q3 = nine months − the half): a company's first quarters under a new CIK or after its listing.
 * Disney's first 10-Q under its CIK (0001744489-19-000100, May 2019) tags no repurchases in the half, whose first
 * quarter no filing gave until an 8-K of August; Snowflake's first 10-K (0001640147-21-000073) none in fiscal 2020,
 * whose half and nine months no filing gives.
 */
export function addPayoutsWithinZero(years: ReadonlyMap<number, readonly Row[]>): void {
  for (const group of years.values()) {
    for (const name of PAYOUTS) {
      const zeros = group.flatMap((r) => (r.flows.get(name) ?? []).filter((v) => v.value === 0).map((v) => ({ r, v })));
      if (zeros.length === 0) continue;
      for (const row of group) {
        if (row.flows.get(name)?.length || !(fromYearStart(row) || undifferenced(group, row))) continue;
        const within = zeros.filter(({ r }) => r.months > row.months && r.start <= row.start && r.end >= row.end).map(({ v }) => ({ ...v, derived: true }));
        if (within.length) row.flows.set(name, byFiling(within));
      }
    }
  }
}

/** Whether a row is a quarter after the first that is no difference of two years to date of its fiscal year's rows. */
function undifferenced(group: readonly Row[], row: Row): boolean {
  const end = MONTHS_TO_END[row.base.fiscal_quarter];
  const toDate = (months: number) => group.some((r) => r.months === months && fromYearStart(r));
  return row.months === 3 && end > 3 && !(toDate(end - 3) && toDate(end));
}

/**
 * Whether a filing by `by` gave a shorter span within the row a payout: then the whole is no zero (a payout is never
 * negative), and a report without the line moved it out of the concepts read. Hertz's 10-Qs of 2021 tag 239 million
 * of dividends for the half and the nine months; its 10-K for 2021 (0001657853-22-000012) tags none for any year.
 */
function paidWithin(group: readonly Row[], row: Row, name: string, by: string): boolean {
  return group.some((r) => r.months < row.months && r.start >= row.start && r.end <= row.end && (r.flows.get(name) ?? []).some((v) => v.value !== 0 && v.filed <= by));
}

/** Whether a row runs from its fiscal year's start, as filings report cash flows: Q1, the half, nine months, the year. */
function fromYearStart(row: Row): boolean {
  return row.base.fiscal_quarter !== "Q4" && row.months === MONTHS_TO_END[row.base.fiscal_quarter];
}
/** Months from a fiscal year's start to the end of each period label: its year to date's length. */
const MONTHS_TO_END: Readonly<Record<FiscalQuarter, number>> = { Q1: 3, Q2: 6, Q3: 9, Q4: 12, FY: 12 };

/**
 * The report that first gave the year to date's cash flows (its operating cash flow), filed soon after its end: a
 * 10-Q's for a year to date, an annual report's for the fiscal year.
 */
function ownReport(row: Row): FiledValue | undefined {
  const first = row.flows.get("operating_cash_flow")?.[0];
  return first && first.annual === (row.months === 12) && dayNumber(first.filed) - dayNumber(row.end) <= OWN_REPORT_DAYS ? first : undefined;
}

/**
 * Where `own` tags the payout in neither column: the company's latest payout value filed before it (the concept it
 * reports the line in), if `own` shows the prior year's column and nothing before it gave that column a payout.
 */
function leftOut(twin: Row, name: string, own: FiledValue, reported: readonly FiledValue[]): FiledValue | undefined {
  if (!twin.flows.get("operating_cash_flow")?.some((v) => v.accn === own.accn)) return undefined;
  if (twin.flows.get(name)?.some((v) => v.filed < own.filed && v.value !== 0)) return undefined;
  let latest: FiledValue | undefined;
  for (const v of reported) if (v.filed < own.filed) latest = v;
  return latest;
}
