/** The load bench's arithmetic: percentiles of samples, medians over rounds, how far runs agree. */

/** The nearest-rank percentile (p in 0–100) of `values`; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return Number.isInteger(middle)
    ? ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
    : (sorted[Math.floor(middle)] as number);
}

export interface Spread {
  min: number;
  /** The 25th percentile (nearest rank). */
  q1: number;
  median: number;
  /** The 75th percentile (nearest rank). */
  q3: number;
  max: number;
}

/**
 * How a figure spreads over the rounds: lowest, quartiles and highest. A
 * median over rounds is only as steady as the rounds near it; quartiles far
 * apart say more rounds will not make runs agree.
 */
export function spreadOf(values: readonly number[]): Spread {
  return {
    min: percentile(values, 0),
    q1: percentile(values, 25),
    median: median(values),
    q3: percentile(values, 75),
    max: percentile(values, 100),
  };
}
