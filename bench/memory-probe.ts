/**
 * How fast this process's memory answers: random reads over an array far
 * larger than the caches, so most reads miss them and the TLB. On a virtual
 * machine this differs from process to process and from hour to hour: on one
 * two-core machine some processes read 50–80 % slower than the rest, for all
 * or part of their life, and ran JavaScript slower with it, the more so the
 * more of its work is reading memory (docs/operations.md#a-slow-process). The
 * benches print it for the process they measure, so a slow process is seen
 * as one.
 */

export interface MemoryProbeOptions {
  /** Size of the array read, MiB (default 64; a power of two is read whole). */
  mebibytes?: number;
  /** Reads per pass (default 4 million). */
  reads?: number;
  /** Passes; the fastest is taken (default 3). */
  passes?: number;
}

/** Nanoseconds per random read, the fastest of the passes. */
export function memoryProbeNsPerRead(options: MemoryProbeOptions = {}): number {
  const length = ((options.mebibytes ?? 64) * 1024 * 1024) / Float64Array.BYTES_PER_ELEMENT;
  const reads = options.reads ?? 4_000_000;
  const values = new Float64Array(length);
  // Indexes are masked, so the reads cover the largest power of two that fits.
  const mask = 2 ** Math.floor(Math.log2(length)) - 1;
  // Every page written once, so no pass pays for faulting them in.
  for (let index = 0; index < length; index += 512) values[index] = index;
  let best = Number.POSITIVE_INFINITY;
  let sum = 0;
  for (let pass = 0; pass < (options.passes ?? 3); pass += 1) {
    let state = 12_345 + pass;
    const startedAt = performance.now();
    for (let read = 0; read < reads; read += 1) {
      // A linear congruential step: addresses the hardware prefetcher cannot guess.
      state = (Math.imul(state, 1_103_515_245) + 12_345) | 0;
      sum += values[(state >>> 4) & mask] as number;
    }
    best = Math.min(best, ((performance.now() - startedAt) * 1e6) / reads);
  }
  // The sum is used, so the reads cannot be left out.
  return Number.isNaN(sum) ? Number.NaN : best;
}
