// How precise a filed figure is, read from the figure itself (company facts carry no `decimals`): a filing in
// thousands gives 55,717,000 where another in dollars gave 55,716,996 — one figure, not two.

/** The coarsest rounding a figure's digits show: filers round to thousands or millions at most. */
const MAX_PRECISION = 1e6;

/** The rounding unit a value shows: the largest power of ten up to a million it is a multiple of (1 for others, and 0). */
export function precision(value: number): number {
  if (value === 0 || !Number.isInteger(value)) return 1;
  let p = 1;
  while (p < MAX_PRECISION && value % (p * 10) === 0) p *= 10;
  return p;
}

/** A rounding never moves a figure by more than this share of it (larger moves are changes, however round the figures). */
const ROUNDING_SHARE = 0.001;

/**
 * Whether two filings' figures are one figure rounded two ways, not a change: they lie within one rounding unit of the
 * coarser (rounded or cut: 55,716,996 and 55,717,000; 1,737,859 and 1,737,000; Walmart's 4,016 and 4,017 million) and
 * within a tenth of a percent of each other — the units are read from the digits, which a round figure overstates.
 */
export function sameFigure(a: number, b: number): boolean {
  if (a === b) return true;
  const apart = Math.abs(a - b);
  return apart <= Math.max(precision(a), precision(b)) && apart <= ROUNDING_SHARE * Math.max(Math.abs(a), Math.abs(b));
}
