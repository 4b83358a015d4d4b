// The classes of EDGAR forms the builder acts on, in one place: which filings supply values and labels, which are
// annual, which are insider transactions. Compared upper-cased, as EDGAR's indexes and feeds vary in case.

/** Only periodic reports supply values and labels (DESIGN "Derivation rules"; pitfall 8: a DEF 14A once won the dedup). */
export const PERIODIC_FORM = /^(10-K|10-Q|20-F|40-F|10-KT|10-QT)(\/A)?$/;
/** Annual reports: a fiscal year's own values come from these (issue 14: a 10-Q's twelve-month figure is no fiscal year). */
export const ANNUAL_FORM = /^(10-K|10-KT|20-F|40-F)(\/A)?$/;
/** An amendment (10-K/A, 10-Q/A, 4/A): it corrects or completes the filing it amends. */
export const AMENDMENT_FORM = /\/A$/;
/** The insider forms the /insiders endpoint serves. */
export const INSIDER_FORMS: ReadonlySet<string> = new Set(["4", "4/A"]);
