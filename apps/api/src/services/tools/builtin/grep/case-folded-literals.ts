/**
 * ASCII strings found in any letter case straight in a file's bytes: grep's
 * literal prefilter under `caseInsensitive` (docs/tools/filesystem.md#how-grep-runs).
 */
import type { LiteralFinder } from './match-lines';
import { frequencyOf } from './required-literal';

const isAsciiLetter = (byte: number) => {
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
};

/** How often a byte occurs per 1000 bytes of text in either letter case. */
function foldedFrequency(byte: number): number {
  const character = String.fromCharCode(byte);
  if (!isAsciiLetter(byte)) return frequencyOf(character);
  return frequencyOf(character.toLowerCase()) + frequencyOf(character.toUpperCase());
}

/** Anchor windows longer than this add spellings (passes) faster than they remove false hits. */
const MAX_ANCHOR_WIDTH = 4;
/**
 * What a hit that is not a match costs (a return from the native search and a
 * check in JavaScript), in passes of one spelling over one byte. Measured on
 * megabyte sources: a pass runs at ~0.05 ns per byte, a hit ~80 ns.
 */
const HIT_COST_IN_PASSES = 1600;

/**
 * The window of `lower` searched for natively: each spelling of it is one
 * pass over the file (2 per letter in it), each false hit a round trip, and
 * the window with the lowest expected total wins. Most words are best served
 * by two letters (four spellings); a window with a digit or a symbol needs
 * fewer spellings.
 */
function chooseAnchor(lower: Buffer): { start: number; width: number } {
  let best = { start: 0, width: Math.min(1, lower.length) };
  let bestCost = Number.POSITIVE_INFINITY;
  for (let width = 1; width <= Math.min(MAX_ANCHOR_WIDTH, lower.length); width++) {
    for (let start = 0; start + width <= lower.length; start++) {
      let spellings = 1;
      let probability = 1;
      for (let offset = 0; offset < width; offset++) {
        const byte = lower[start + offset] as number;
        if (isAsciiLetter(byte)) spellings *= 2;
        probability *= Math.min(1, foldedFrequency(byte) / 1000);
      }
      const cost = spellings + HIT_COST_IN_PASSES * probability;
      if (cost < bestCost) {
        bestCost = cost;
        best = { start, width };
      }
    }
  }
  return best;
}

/** Every spelling of `window` in upper and lower case (at most 2^4 for four letters). */
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

/** One ASCII string, compiled once per search: its lower-case bytes, anchor and spellings. */
class FoldedPattern {
  readonly length: number;
  readonly lower: Buffer;
  /** Where the anchor window starts in the string. */
  readonly anchor: number;
  readonly variants: readonly Buffer[];

  constructor(string: string) {
    this.lower = Buffer.from(string.toLowerCase(), 'latin1');
    this.length = this.lower.length;
    const { start, width } = chooseAnchor(this.lower);
    this.anchor = start;
    this.variants = caseVariants(this.lower.subarray(start, start + width));
  }
}

/** One compiled string searched in one file's bytes. */
class FoldedString {
  readonly length: number;
  /** Per variant: the last position searched from, and what was found there. */
  private readonly searchedFrom: number[];
  private readonly found: number[];

  constructor(
    private readonly bytes: Buffer,
    private readonly pattern: FoldedPattern,
  ) {
    this.length = pattern.length;
    this.searchedFrom = pattern.variants.map(() => -1);
    this.found = pattern.variants.map(() => -1);
  }

  /** The first position at or after `from` where the string starts, in any case; -1 when none. */
  find(from: number): number {
    const { anchor, variants } = this.pattern;
    let start = Math.max(0, from);
    while (start + this.length <= this.bytes.length) {
      const anchorFrom = start + anchor;
      let candidate = Number.POSITIVE_INFINITY;
      for (let index = 0; index < variants.length; index++) {
        let at = this.found[index] as number;
        const searched = this.searchedFrom[index] as number;
        // A search from an earlier point that found nothing, or found something
        // still ahead, answers this one too.
        if (searched < 0 || searched > anchorFrom || (at !== -1 && at < anchorFrom)) {
          at = this.bytes.indexOf(variants[index] as Buffer, anchorFrom);
          this.searchedFrom[index] = anchorFrom;
          this.found[index] = at;
        }
        if (at !== -1 && at < candidate) candidate = at;
      }
      if (candidate === Number.POSITIVE_INFINITY) return -1;
      const begin = candidate - anchor;
      if (this.matchesAt(begin)) return begin;
      start = begin + 1;
    }
    return -1;
  }

  private matchesAt(begin: number): boolean {
    const { lower } = this.pattern;
    if (begin < 0 || begin + this.length > this.bytes.length) return false;
    for (let offset = 0; offset < this.length; offset++) {
      const byte = this.bytes[begin + offset] as number;
      const want = lower[offset] as number;
      if (byte !== want && !(isAsciiLetter(want) && (byte | 0x20) === want)) return false;
    }
    return true;
  }
}

/** ASCII strings compiled once for a whole search; `in(bytes)` is the finder for one file. */
export interface CaseFoldedStrings {
  in(bytes: Buffer): LiteralFinder;
}

/**
 * ASCII strings found in any letter case, searched in the bytes themselves
 * (no copy of the file): the cheapest window of each string (see
 * chooseAnchor) is looked up in every case spelling with the native byte
 * search, and each hit is checked in full. Non-ASCII bytes never match an
 * ASCII letter under `i`.
 */
export function compileCaseFoldedLiterals(strings: readonly string[]): CaseFoldedStrings {
  const patterns = strings.map((string) => new FoldedPattern(string));
  const lengths = patterns.map((pattern) => pattern.length);
  return {
    in(bytes) {
      const finders = patterns.map((pattern) => new FoldedString(bytes, pattern));
      return { lengths, find: (index, from) => (finders[index] as FoldedString).find(from) };
    },
  };
}

/** `compileCaseFoldedLiterals(strings).in(bytes)`, for one file. */
export function caseFoldedLiterals(bytes: Buffer, strings: readonly string[]): LiteralFinder {
  return compileCaseFoldedLiterals(strings).in(bytes);
}
