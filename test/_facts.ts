// Hand-made company facts for the derivation's fixture tests: a fact as EDGAR files it, the filings that tag facts,
// a company facts file of them run through the real parser, and the row of a span among the rows derived.
import { type CompanyFacts } from "../build/parse/companyfacts.ts";
import { readCompanyFacts } from "../build/derive/company-facts.ts";

/** One fact as company facts list it (`start` only on durations). */
export interface Fact {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy: number;
  fp: string;
  form: string;
  filed: string;
}

/** A filing's facts: a duration (start, end) or an instant (no start). */
export type Filing = (start: string | undefined, end: string, val: number) => Fact;

/** The filing that tags facts with its accession, form, date and own fy/fp. */
export function filing(accn: string, form: string, filed: string, fy: number, fp: string): Filing {
  return (start, end, val) => ({ ...(start ? { start } : {}), end, val, accn, fy, fp, form, filed });
}

/** A company facts file of taxonomy → concept → unit → facts, parsed as the builder parses it. */
export function companyFacts(taxonomies: Record<string, Record<string, Record<string, Fact[]>>>): CompanyFacts {
  const facts = Object.fromEntries(
    Object.entries(taxonomies).map(([taxonomy, concepts]) => [taxonomy, Object.fromEntries(Object.entries(concepts).map(([name, units]) => [name, { units }]))]),
  );
  return readCompanyFacts(JSON.stringify({ cik: 1234, entityName: "Example Corp", facts }));
}

/** The row of a span (and `also`), or an error naming the spans there are. */
export function findRow<R extends { period_start: string; period_end: string }>(rows: readonly R[], start: string, end: string, also: (row: R) => boolean = () => true): R {
  const row = rows.find((x) => x.period_start === start && x.period_end === end && also(x));
  if (!row) throw new Error(`no row ${start}..${end} among ${rows.map((x) => `${x.period_start}..${x.period_end}`).join(", ")}`);
  return row;
}
