/**
 * ASCII strings found in any letter case straight in a file's bytes: grep's
 * literal prefilter under `caseInsensitive` (docs/tools/filesystem.md#how-grep-runs).
 */
import type { LiteralFinder } from './match-lines';

/**
 * How common each byte is in source text, rarest first: a letter's rank is its
 * place in this list, anything else ranks after the letters but before the
 * space. The anchor of a case-folded search is the rarest place in the string.
 */
const COMMON_LAST = 'qjzxkvwybgfpmhdculsrnoiate';
function rarity(byte: number): number {
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x7a) return COMMON_LAST.indexOf(String.fromCharCode(lower));
  if (byte === 0x20) return 100;
  return COMMON_LAST.length;
}

const isAsciiLetter = (byte: number) => {
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
};

/** Every spelling of `window` in upper and lower case (at most 2^3 for three letters). */
function caseVariants(window: Buffer): Buffer[] {
  let variants: number[][] = [[]];
  for (const byte of window) {
    variants = isAsciiLetter(byte)
      ? variants.flatMap((prefix) => [
          [...prefix, byte | 0x20],
          [...prefix, byte & ~0x20],
        ])
      : variants.map((prefix) => [...prefix, byte]);
  }
  return variants.map((bytes) => Buffer.from(bytes));
}

/** One ASCII string found in any letter case, straight in the bytes. */
class FoldedString {
  readonly length: number;
  private readonly lower: Buffer;
  /** Where the anchor window starts in the string. */
  private readonly anchor: number;
  private readonly variants: Buffer[];
  /** Per variant: the last position searched from, and what was found there. */
  private readonly searchedFrom: number[];
  private readonly found: number[];

  constructor(
    private readonly bytes: Buffer,
    string: string,
  ) {
    this.lower = Buffer.from(string.toLowerCase(), 'latin1');
    this.length = this.lower.length;
    const width = Math.min(3, this.length);
    let best = 0;
    let bestScore = Number.POSITIVE_INFINITY;
    for (let start = 0; start + width <= this.length; start++) {
      let score = 0;
      for (let offset = 0; offset < width; offset++)
        score += rarity(this.lower[start + offset] as number);
      if (score < bestScore) {
        bestScore = score;
        best = start;
      }
    }
    this.anchor = best;
    this.variants = caseVariants(this.lower.subarray(best, best + width));
    this.searchedFrom = this.variants.map(() => -1);
    this.found = this.variants.map(() => -1);
  }

  /** The first position at or after `from` where the string starts, in any case; -1 when none. */
  find(from: number): number {
    let start = Math.max(0, from);
    while (start + this.length <= this.bytes.length) {
      const anchorFrom = start + this.anchor;
      let candidate = Number.POSITIVE_INFINITY;
      for (let index = 0; index < this.variants.length; index++) {
        let at = this.found[index] as number;
        const searched = this.searchedFrom[index] as number;
        // A search from an earlier point that found nothing, or found something
        // still ahead, answers this one too.
        if (searched < 0 || searched > anchorFrom || (at !== -1 && at < anchorFrom)) {
          at = this.bytes.indexOf(this.variants[index] as Buffer, anchorFrom);
          this.searchedFrom[index] = anchorFrom;
          this.found[index] = at;
        }
        if (at !== -1 && at < candidate) candidate = at;
      }
      if (candidate === Number.POSITIVE_INFINITY) return -1;
      const begin = candidate - this.anchor;
      if (this.matchesAt(begin)) return begin;
      start = begin + 1;
    }
    return -1;
  }

  private matchesAt(begin: number): boolean {
    if (begin < 0 || begin + this.length > this.bytes.length) return false;
    for (let offset = 0; offset < this.length; offset++) {
      const byte = this.bytes[begin + offset] as number;
      const want = this.lower[offset] as number;
      if (byte !== want && !(isAsciiLetter(want) && (byte | 0x20) === want)) return false;
    }
    return true;
  }
}

/**
 * ASCII strings found in any letter case, searched in the bytes themselves
 * (no copy of the file): the rarest three bytes of each string are looked up
 * in every case spelling with the native byte search, and each hit is
 * checked in full. Non-ASCII bytes never match an ASCII letter under `i`.
 */
export function caseFoldedLiterals(bytes: Buffer, strings: readonly string[]): LiteralFinder {
  const finders = strings.map((string) => new FoldedString(bytes, string));
  return {
    lengths: finders.map((finder) => finder.length),
    find: (index, from) => (finders[index] as FoldedString).find(from),
  };
}
