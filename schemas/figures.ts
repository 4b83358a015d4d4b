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

/**
 * Whether a later figure is the original filed again at a coarser precision, not another figure: its unit is coarser
 * than the original's and the original lies within one unit of it (rounded or cut: 55,716,996 → 55,717,000, 1,737,859
 * → 1,737,000). A later figure as precise as the original, or more, is another figure unless equal.
 */
export function sameFigure(original: number, later: number): boolean {
  if (original === later) return true;
  const unit = precision(later);
  return unit > precision(original) && Math.abs(original - later) < unit;
}
