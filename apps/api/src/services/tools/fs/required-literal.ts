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
 * Every run of at least three plain characters that each match contains, the
 * most selective first (rarest character, then length); none for
 * case-insensitive patterns or top-level alternation.
 */
export function requiredLiteralsOf(source: string, caseInsensitive: boolean): string[] {
  if (caseInsensitive) return [];
  const runs: string[] = [];
  let run = '';
  const endRun = () => {
    if (run.length > 0) runs.push(run);
    run = '';
  };
  let index = 0;
  while (index < source.length) {
    const character = source[index] as string;
    let literal: string | undefined;
    let next = index + 1;
    if (character === '|') return [];
    if (character === '\\') {
      const escaped = source[index + 1];
      next = index + 2;
      // An escaped punctuation character is itself; letters and digits are classes, anchors or references.
      if (escaped !== undefined && /[^A-Za-z0-9]/.test(escaped)) literal = escaped;
    } else if (character === '[') {
      next = skipClass(source, index);
    } else if (character === '(') {
      next = skipGroup(source, index);
    } else if (character === '{') {
      // A counted quantifier's body ({2}, {1,3}) is not text; a lone brace is left out too.
      const counted = /^\{\d+(,\d*)?\}/.exec(source.slice(index));
      if (counted) next = index + counted[0].length;
    } else if (!'.^$)]}'.includes(character) && !QUANTIFIERS.has(character)) {
      literal = character;
    }
    const following = source[next];
    if (following !== undefined && QUANTIFIERS.has(following)) {
      // The atom is optional or repeated: it cannot extend a run in either case.
      endRun();
      index = next;
      continue;
    }
    if (literal !== undefined && isPlainCharacter(literal)) {
      run += literal;
    } else {
      endRun();
    }
    index = next;
  }
  endRun();
  return runs
    .filter((candidate) => candidate.length >= MIN_LITERAL_LENGTH)
    .map((candidate) => ({ candidate, rarity: rarityOf(candidate) }))
    .sort(
      (left, right) => left.rarity - right.rarity || right.candidate.length - left.candidate.length,
    )
    .map((entry) => entry.candidate);
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

function frequencyOf(character: string): number {
  const known = FREQUENCY.get(character);
  if (known !== undefined) return known;
  const lower = character.toLowerCase();
  // Capitals are rarer than their lower-case letters; other symbols and non-ASCII text are rare.
  if (lower !== character && FREQUENCY.has(lower))
    return Math.max(1, (FREQUENCY.get(lower) as number) / 5);
  return 3;
}

function rarityOf(literal: string): number {
  let rarest = Number.POSITIVE_INFINITY;
  for (const character of literal) rarest = Math.min(rarest, frequencyOf(character));
  return rarest;
}

/** The most selective of `requiredLiteralsOf`, or undefined. */
export function requiredLiteralOf(source: string, caseInsensitive: boolean): string | undefined {
  return requiredLiteralsOf(source, caseInsensitive)[0];
}
