// Small statistics shared by the benchmarks.

/** The median of a non-empty list. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Rounded to two decimals (ratios). */
export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
