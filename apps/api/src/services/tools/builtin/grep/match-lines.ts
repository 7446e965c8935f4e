/**
 * Line-oriented regex search over one decoded file, for grep's workers. A
 * line is the text between "\n"s (a trailing "\r" is not part of it; a file
 * that ends in "\n" has no extra empty last line). The fast path runs the
 * pattern over the whole text once and confirms each hit against its line
 * alone, so the result is exactly what testing every line separately gives,
 * without paying for a split or a regex call per line.
 */
import { isAscii } from 'node:buffer';
import { literalTextOf } from './required-literal';

/** A matched line longer than this is cut around the match and marked. */
export const MAX_MATCH_LINE_CHARS = 500;
/** A regex call slower than this that finds nothing may have hit the engine's backtracking limit. */
export const SLOW_REGEX_CALL_MS = 200;
const ELLIPSIS = '…';

export interface LineMatch {
  /** 1-based line number. */
  line: number;
  text: string;
  /** Set when the line was longer than MAX_MATCH_LINE_CHARS and `text` is a window around the match. */
  textTruncated?: true;
}

export interface LineSearchResult {
  /** At most `limit + 1` matches: one more than the limit says the limit cut the result. */
  matches: LineMatch[];
  /** Lines where a regex call came back empty-handed only after SLOW_REGEX_CALL_MS (the engine gave up). */
  slowLines: number[];
  /** `shouldStop` ended the search before the end of the text. */
  stopped: boolean;
}

export interface LineSearchOptions {
  /** Matches wanted; the search stops after finding `limit + 1`. */
  limit: number;
  /** Polled between regex calls: true stops the search (deadline, cancel). */
  shouldStop?: () => boolean;
  /** The number of the text's first line (when the text is the rest of a file). */
  firstLineNumber?: number;
}

export interface LinePatterns {
  /** The pattern with the `g` and `m` flags: the whole-text pass. */
  global: RegExp;
  /** The pattern without `g`: one line at a time. */
  single: RegExp;
  /**
   * The text the pattern matches when it is nothing but that text (ASCII
   * only under `caseInsensitive`): a line matches exactly when it contains
   * it, so a line the literal search found needs no regex call.
   */
  literal?: string;
}

/** Compiles the two forms a search needs; throws SyntaxError like `new RegExp` for an invalid pattern. */
export function compileLinePatterns(source: string, caseInsensitive: boolean): LinePatterns {
  const flags = caseInsensitive ? 'i' : '';
  const patterns: LinePatterns = {
    global: new RegExp(source, `${flags}gm`),
    single: new RegExp(source, flags),
  };
  const literal = literalTextOf(source);
  if (literal !== undefined && (!caseInsensitive || isAsciiText(literal)))
    patterns.literal = literal;
  return patterns;
}

function isAsciiText(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** A window of MAX_MATCH_LINE_CHARS around the match, never splitting a surrogate pair. */
export function cutAroundMatch(line: string, matchIndex: number, matchLength: number): string {
  if (line.length <= MAX_MATCH_LINE_CHARS) return line;
  const visible = Math.min(matchLength, MAX_MATCH_LINE_CHARS);
  let start = Math.max(0, matchIndex - Math.floor((MAX_MATCH_LINE_CHARS - visible) / 2));
  let end = Math.min(line.length, start + MAX_MATCH_LINE_CHARS);
  start = Math.max(0, end - MAX_MATCH_LINE_CHARS);
  if (start > 0 && isLowSurrogate(line.charCodeAt(start))) start++;
  if (end < line.length && isHighSurrogate(line.charCodeAt(end - 1))) end--;
  return `${start > 0 ? ELLIPSIS : ''}${line.slice(start, end)}${end < line.length ? ELLIPSIS : ''}`;
}

/** Records a matched line, cut around the match when it is long; true once the result holds `limit + 1`. */
function recordMatch(
  result: LineSearchResult,
  limit: number,
  line: string,
  lineNumber: number,
  matchIndex: () => number,
  matchLength: number,
): boolean {
  const found: LineMatch = { line: lineNumber, text: line };
  if (line.length > MAX_MATCH_LINE_CHARS) {
    found.text = cutAroundMatch(line, matchIndex(), matchLength);
    found.textTruncated = true;
  }
  result.matches.push(found);
  return result.matches.length > limit;
}

/**
 * Tests one line (without its line break) and records a match; true once the
 * result holds `limit + 1` matches. `lineNumber` is only asked for when needed.
 */
function testOneLine(
  single: RegExp,
  line: string,
  lineNumber: () => number,
  result: LineSearchResult,
  limit: number,
): boolean {
  const started = performance.now();
  const match = single.exec(line);
  if (!match) {
    if (performance.now() - started > SLOW_REGEX_CALL_MS) result.slowLines.push(lineNumber());
    return false;
  }
  return recordMatch(result, limit, line, lineNumber(), () => match.index, match[0].length);
}

/**
 * Below this many bytes per candidate line, testing candidates one by one
 * costs more than one pass over the decoded rest of the file, and the search
 * switches to it.
 */
const DENSE_BYTES_PER_CANDIDATE = 2048;
const CANDIDATES_BEFORE_DENSITY_CHECK = 16;

/**
 * Finds the strings of one requirement in a file: `find(index, from)` is the
 * first position at or after `from` where string `index` starts (-1 when
 * none), and `lengths[index]` its length in bytes.
 */
export interface LiteralFinder {
  lengths: readonly number[];
  find(index: number, from: number): number;
}

/** The strings as bytes, found as they are. */
export function exactLiterals(bytes: Buffer, strings: readonly Buffer[]): LiteralFinder {
  return {
    lengths: strings.map((string) => string.length),
    find: (index, from) => bytes.indexOf(strings[index] as Buffer, from),
  };
}

export { caseFoldedLiterals } from './case-folded-literals';

/** Whether one of the finder's strings occurs anywhere. */
export function containsAny(finder: LiteralFinder): boolean {
  return finder.lengths.some((_, index) => finder.find(index, 0) !== -1);
}

/**
 * Where the strings of one requirement occur next, scanning forward only: each
 * string's occurrences are looked up once, however many lines are asked about.
 */
class OccurrenceCursor {
  private readonly next: number[];

  constructor(private readonly finder: LiteralFinder) {
    this.next = finder.lengths.map(() => -1);
  }

  /** The next occurrence of the string at `index` that starts at or after `from`. */
  private occurrence(index: number, from: number): number {
    let next = this.next[index] as number;
    if (next < from && next !== Number.POSITIVE_INFINITY) {
      next = this.finder.find(index, from);
      if (next === -1) next = Number.POSITIVE_INFINITY;
      this.next[index] = next;
    }
    return next;
  }

  /** The first position at or after `from` where one of the strings starts, or -1. */
  firstFrom(from: number): number {
    let first = Number.POSITIVE_INFINITY;
    for (let index = 0; index < this.finder.lengths.length; index++) {
      first = Math.min(first, this.occurrence(index, from));
    }
    return first === Number.POSITIVE_INFINITY ? -1 : first;
  }

  /** Whether one of the strings lies wholly inside [start, end). */
  within(start: number, end: number): boolean {
    for (let index = 0; index < this.finder.lengths.length; index++) {
      // Later occurrences end later still: the first one from `start` decides.
      if (this.occurrence(index, start) + (this.finder.lengths[index] as number) <= end)
        return true;
    }
    return false;
  }
}

/**
 * Searches raw bytes for the lines that meet every requirement in `literals`
 * (each a set of strings, one of which every match contains; the first set is
 * searched for, the others checked in its lines): only those lines are
 * decoded and tested, so a file where they are rare is never decoded whole.
 * Where candidate lines are common, the rest of the file is decoded and
 * searched in one pass instead. Either way: exactly the lines testing every
 * line would find. When the pattern is a plain literal and the only
 * requirement is that literal, a line holding it is a match without a regex
 * call (and the switch to one pass is never worth it).
 */
export function searchLinesContaining(
  bytes: Buffer,
  literals: readonly LiteralFinder[],
  patterns: LinePatterns,
  decode: (bytes: Buffer) => string,
  options: LineSearchOptions,
): LineSearchResult {
  const { limit, shouldStop } = options;
  const result: LineSearchResult = { matches: [], slowLines: [], stopped: false };
  const length = bytes.length;
  const bomLength =
    length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let cursorLine = 1;
  let cursorPosition = 0;
  const lineNumberAt = (lineStart: number): number => {
    let newline = bytes.indexOf(10, cursorPosition);
    while (newline !== -1 && newline < lineStart) {
      cursorLine++;
      cursorPosition = newline + 1;
      newline = bytes.indexOf(10, cursorPosition);
    }
    return cursorLine;
  };
  const [first, ...others] = literals.map((requirement) => new OccurrenceCursor(requirement));
  if (first === undefined || literals.some((requirement) => requirement.lengths.length === 0)) {
    throw new Error('searchLinesContaining needs at least one requirement, each with strings');
  }
  // Pure ASCII (checked once, with SIMD) reads the same in every decoding: lines are sliced
  // straight from the bytes, without a Buffer view per line ('ascii' is Bun's fast slice).
  const ascii = isAscii(bytes);
  const lineText = (start: number, end: number): string =>
    ascii ? bytes.toString('ascii', start, end) : decode(bytes.subarray(start, end));
  // The requirement is the pattern's own text when its one string is as long as that text
  // (a requirement of a literal pattern is a part of it).
  const literal = patterns.literal;
  const literalOnly =
    literal !== undefined &&
    literals.length === 1 &&
    first !== undefined &&
    literals[0]?.lengths.length === 1 &&
    literals[0].lengths[0] === Buffer.byteLength(literal);
  let from = 0;
  let candidates = 0;
  while (from < length) {
    if (shouldStop?.()) {
      result.stopped = true;
      break;
    }
    const hit = first.firstFrom(from);
    if (hit === -1) break;
    const lineStart = hit === 0 ? 0 : bytes.lastIndexOf(10, hit - 1) + 1;
    let lineEnd = bytes.indexOf(10, hit);
    if (lineEnd === -1) lineEnd = length;
    from = lineEnd + 1;
    if (!others.every((other) => other.within(lineStart, lineEnd))) continue;
    const contentEnd = lineEnd > lineStart && bytes[lineEnd - 1] === 13 ? lineEnd - 1 : lineEnd;
    const contentStart = lineStart === 0 ? bomLength : lineStart;
    const line = lineText(contentStart, Math.max(contentStart, contentEnd));
    if (literalOnly && hit >= contentStart) {
      // The hit is the first occurrence in the line; its index there counts UTF-16 units.
      const matchIndex = () =>
        ascii ? hit - contentStart : decode(bytes.subarray(contentStart, hit)).length;
      const lineNumber = lineNumberAt(lineStart);
      if (recordMatch(result, limit, line, lineNumber, matchIndex, (literal as string).length))
        break;
      continue;
    }
    if (testOneLine(patterns.single, line, () => lineNumberAt(lineStart), result, limit)) break;
    candidates++;
    if (
      candidates >= CANDIDATES_BEFORE_DENSITY_CHECK &&
      from < length &&
      from / candidates < DENSE_BYTES_PER_CANDIDATE
    ) {
      const rest = searchLines(decode(bytes.subarray(from)), patterns, {
        limit: limit - result.matches.length,
        shouldStop,
        firstLineNumber: lineNumberAt(from),
      });
      result.matches.push(...rest.matches);
      result.slowLines.push(...rest.slowLines);
      result.stopped = rest.stopped;
      break;
    }
  }
  return result;
}

/** Searches `text` line by line; see the module comment for the line rules. */
export function searchLines(
  text: string,
  patterns: LinePatterns,
  options: LineSearchOptions,
): LineSearchResult {
  const { global, single } = patterns;
  const { limit, shouldStop } = options;
  const result: LineSearchResult = { matches: [], slowLines: [], stopped: false };
  const length = text.length;
  // Line-number cursor: `cursorLine` is the number of the line starting at `cursorStart`.
  let cursorLine = options.firstLineNumber ?? 1;
  let cursorStart = 0;
  const lineNumberAt = (lineStart: number): number => {
    let index = text.indexOf('\n', cursorStart);
    while (index !== -1 && index < lineStart) {
      cursorLine++;
      index = text.indexOf('\n', index + 1);
    }
    cursorStart = lineStart;
    return cursorLine;
  };
  const lineEndFrom = (index: number): number => {
    const end = text.indexOf('\n', index);
    return end === -1 ? length : end;
  };

  /** Tests one line on its own; true when the search has all it needs. */
  const testLine = (lineStart: number, lineEnd: number): boolean => {
    let line = text.slice(lineStart, lineEnd);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    return testOneLine(single, line, () => lineNumberAt(lineStart), result, limit);
  };

  /** The careful path: every remaining line on its own. */
  const lineByLine = (from: number): void => {
    let lineStart = from;
    while (lineStart < length) {
      if (shouldStop?.()) {
        result.stopped = true;
        return;
      }
      const lineEnd = lineEndFrom(lineStart);
      if (testLine(lineStart, lineEnd)) return;
      lineStart = lineEnd + 1;
    }
  };

  let position = 0;
  while (position < length) {
    if (shouldStop?.()) {
      result.stopped = true;
      break;
    }
    global.lastIndex = position;
    const started = performance.now();
    const match = global.exec(text);
    if (!match) {
      // The engine may have given up on catastrophic backtracking and reported "no match".
      if (performance.now() - started > SLOW_REGEX_CALL_MS) lineByLine(position);
      break;
    }
    const matchStart = match.index;
    // A match at the very end after a final newline belongs to no line (there is no empty last line).
    if (matchStart >= length && text.charCodeAt(length - 1) === 10) break;
    const lineStart = matchStart === 0 ? 0 : text.lastIndexOf('\n', matchStart - 1) + 1;
    const matchEnd = matchStart + match[0].length;
    const lineEnd = lineEndFrom(matchStart);
    if (matchEnd <= lineEnd) {
      if (testLine(lineStart, lineEnd)) break;
      position = lineEnd + 1;
      continue;
    }
    // The match spans lines: each line it touches is tested on its own.
    const lastLineEnd = lineEndFrom(matchEnd - 1);
    let current = lineStart;
    let done = false;
    while (current <= lastLineEnd && current < length) {
      const end = lineEndFrom(current);
      if (testLine(current, end)) {
        done = true;
        break;
      }
      current = end + 1;
    }
    if (done) break;
    position = lastLineEnd + 1;
  }
  return result;
}
