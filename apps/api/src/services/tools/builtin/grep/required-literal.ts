/**
 * Plain strings every match of a regular expression must contain, when they
 * can be read off the pattern safely. grep's workers look for their bytes
 * first: a file without all of them cannot match and is never decoded, and in
 * a file with them only the lines holding them all are decoded and tested.
 * Anything this reader does not fully understand ends the current run of
 * plain characters, so it can miss a literal but never invent one.
 */

/** Shorter runs are too common to be worth a pre-check. */
const MIN_LITERAL_LENGTH = 3;
const QUANTIFIERS = new Set(['*', '+', '?', '{']);

/** Index just past the `]` closing the class that starts at `start` (a `[`). */
function skipClass(source: string, start: number): number {
  let index = start + 1;
  if (source[index] === ']') index++;
  while (index < source.length && source[index] !== ']') {
    index += source[index] === '\\' ? 2 : 1;
  }
  return index + 1;
}

/** Index just past the `)` closing the group that starts at `start` (a `(`). */
function skipGroup(source: string, start: number): number {
  let depth = 0;
  let index = start;
  while (index < source.length) {
    const character = source[index];
    if (character === '\\') index += 2;
    else if (character === '[') index = skipClass(source, index);
    else {
      if (character === '(') depth++;
      else if (character === ')' && --depth === 0) return index + 1;
      index++;
    }
  }
  return index;
}

/** True for characters whose UTF-8 bytes always stand for themselves in decoded text. */
function isPlainCharacter(character: string): boolean {
  const code = character.charCodeAt(0);
  return code >= 0x20 && code < 0xd800 && code !== 0xfffd;
}

/**
 * The text a pattern made only of plain characters (and escaped punctuation,
 * such as `new URL\\(`) matches, or undefined for any other pattern. Such a
 * pattern matches a line exactly when the line contains this text (in any
 * letter case under `caseInsensitive`, for ASCII text).
 */
export function literalTextOf(source: string): string | undefined {
  let text = '';
  for (let index = 0; index < source.length; index++) {
    const character = source[index] as string;
    if (character === '\\') {
      const escaped = source[index + 1];
      if (escaped === undefined || !/[^A-Za-z0-9]/.test(escaped) || !isPlainCharacter(escaped))
        return undefined;
      text += escaped;
      index++;
    } else if ('.^$|()[]{}'.includes(character) || QUANTIFIERS.has(character)) {
      return undefined;
    } else if (!isPlainCharacter(character)) {
      return undefined;
    } else {
      text += character;
    }
  }
  return text === '' ? undefined : text;
}

/**
 * A requirement a match puts on the text: it contains at least one of these
 * strings (one string, or the expansions of a small alternation).
 */
export type RequiredLiteral = readonly string[];

/** A literal group's alternatives multiply the strings of a run; beyond this many the run ends. */
const MAX_ALTERNATIVES = 16;
const GROUP_OPENERS = ['(?:', '(?<', '('];

/**
 * The branches of a group holding only plain characters and `|` (e.g.
 * `(get|set)` or `(?:a|b)`), or undefined for anything else: nested groups,
 * classes, quantifiers, anchors, lookarounds, empty branches.
 */
function literalBranches(source: string, start: number, end: number): string[] | undefined {
  let bodyStart = -1;
  for (const opener of GROUP_OPENERS) {
    if (!source.startsWith(opener, start)) continue;
    if (opener === '(?<') {
      // A named group "(?<name>", not a lookbehind "(?<=" / "(?<!".
      const close = source.indexOf('>', start);
      if (source[start + 3] === '=' || source[start + 3] === '!' || close < 0 || close >= end)
        return undefined;
      bodyStart = close + 1;
    } else if (opener === '(' && source[start + 1] === '?') {
      return undefined;
    } else {
      bodyStart = start + opener.length;
    }
    break;
  }
  const branches: string[] = [''];
  for (let index = bodyStart; index < end - 1; index++) {
    const character = source[index] as string;
    if (character === '|') {
      branches.push('');
      continue;
    }
    let literal: string | undefined = character;
    if (character === '\\') {
      const escaped = source[index + 1];
      index++;
      literal = escaped !== undefined && /[^A-Za-z0-9]/.test(escaped) ? escaped : undefined;
    } else if ('.^$()[]{}'.includes(character) || QUANTIFIERS.has(character)) {
      literal = undefined;
    }
    if (literal === undefined || !isPlainCharacter(literal)) return undefined;
    branches[branches.length - 1] += literal;
  }
  return branches.every((branch) => branch.length > 0) ? branches : undefined;
}

/**
 * What every match must contain, read off the pattern: runs of plain
 * characters, expanded through small groups of plain alternatives
 * (`function (get|set)x` needs "function getx" or "function setx"), the
 * most selective first. Every string of a requirement is at least three
 * characters long. None for top-level alternation.
 *
 * For a case-insensitive pattern the strings are given in lower case, and
 * only requirements written in ASCII are kept: without the `u` flag, `i`
 * folds an ASCII letter to its other ASCII case only (no other character
 * matches it), so a file or line matches such a string case-insensitively
 * exactly when the pattern can match there. Non-ASCII letters fold in ways a
 * byte search cannot follow, so they give no requirement.
 */
export function requiredLiteralsOf(source: string, caseInsensitive: boolean): RequiredLiteral[] {
  const found = literalRequirements(source);
  if (!caseInsensitive) return found;
  return found
    .filter((requirement) => requirement.every(isAsciiText))
    .map((requirement) => [...new Set(requirement.map((literal) => literal.toLowerCase()))]);
}

function isAsciiText(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

function literalRequirements(source: string): RequiredLiteral[] {
  const found: RequiredLiteral[] = [];
  /** The strings the current run may be (one unless a literal group multiplied them). */
  let run: string[] = [''];
  const endRun = () => {
    if (run.every((candidate) => candidate.length >= MIN_LITERAL_LENGTH)) found.push(run);
    run = [''];
  };
  let index = 0;
  while (index < source.length) {
    const character = source[index] as string;
    let literals: string[] | undefined;
    let next = index + 1;
    if (character === '|') return [];
    if (character === '\\') {
      const escaped = source[index + 1];
      next = index + 2;
      // An escaped punctuation character is itself; letters and digits are classes, anchors or references.
      if (escaped !== undefined && /[^A-Za-z0-9]/.test(escaped) && isPlainCharacter(escaped))
        literals = [escaped];
    } else if (character === '[') {
      next = skipClass(source, index);
    } else if (character === '(') {
      next = skipGroup(source, index);
      literals = literalBranches(source, index, next);
    } else if (character === '{') {
      // A counted quantifier's body ({2}, {1,3}) is not text; a lone brace is left out too.
      const counted = /^\{\d+(,\d*)?\}/.exec(source.slice(index));
      if (counted) next = index + counted[0].length;
    } else if (
      !'.^$)]}'.includes(character) &&
      !QUANTIFIERS.has(character) &&
      isPlainCharacter(character)
    ) {
      literals = [character];
    }
    const following = source[next];
    if (following !== undefined && QUANTIFIERS.has(following)) {
      // The atom is optional or repeated: it cannot extend a run in either case.
      endRun();
      index = next;
      continue;
    }
    // `literals` holds plain characters only: one character, or a literal group's branches.
    if (literals === undefined) {
      endRun();
    } else if (run.length * literals.length <= MAX_ALTERNATIVES) {
      const extensions = literals;
      run = run.flatMap((prefix) => extensions.map((literal) => prefix + literal));
    } else {
      // Too many alternatives together: the group starts a fresh run of its own.
      endRun();
      run = literals;
    }
    index = next;
  }
  endRun();
  return found
    .map((requirement) => ({ requirement, expected: expectedOccurrences(requirement) }))
    .sort((left, right) => left.expected - right.expected)
    .map((entry) => entry.requirement);
}

/**
 * Rough frequencies (per 1000 bytes) of characters in source code and prose.
 * A literal is as selective as its rarest character: that one decides how
 * often the search stops on a line that cannot match.
 */
const FREQUENCY_GROUPS: Array<[string, number]> = [
  [' ', 150],
  ['e', 60],
  ['t', 50],
  ['aoinsr', 40],
  ['lcdu', 25],
  ['pmhgf', 15],
  ['().,;={}\'":', 15],
  ['_/', 10],
  ['bywvk0123456789-', 8],
  ['xjqz', 2],
];
const FREQUENCY = new Map<string, number>();
for (const [characters, frequency] of FREQUENCY_GROUPS) {
  for (const character of characters) FREQUENCY.set(character, frequency);
}

/** How often `character` occurs per 1000 bytes of source text (a rough estimate). */
export function frequencyOf(character: string): number {
  const known = FREQUENCY.get(character);
  if (known !== undefined) return known;
  const lower = character.toLowerCase();
  // Capitals are rarer than their lower-case letters; other symbols and non-ASCII text are rare.
  if (lower !== character && FREQUENCY.has(lower))
    return Math.max(1, (FREQUENCY.get(lower) as number) / 5);
  return 3;
}

/**
 * How often a requirement is expected to occur per byte of text: each string
 * as the product of its characters' frequencies (so longer strings count as
 * rarer), summed over the alternatives. Only the order matters.
 */
function expectedOccurrences(requirement: RequiredLiteral): number {
  let total = 0;
  for (const literal of requirement) {
    let probability = 1;
    for (const character of literal) probability *= frequencyOf(character) / 1000;
    total += probability;
  }
  return total;
}

/** The most selective requirement of `requiredLiteralsOf`, or undefined. */
export function requiredLiteralOf(
  source: string,
  caseInsensitive: boolean,
): RequiredLiteral | undefined {
  return requiredLiteralsOf(source, caseInsensitive)[0];
}
