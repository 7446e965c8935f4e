import { describe, expect, test } from 'bun:test';
import {
  caseFoldedLiterals,
  compileCaseFoldedLiterals,
} from '../../../../../../src/services/tools/builtin/grep/case-folded-literals';

/** Every position at or after `from` where `needle` starts in any ASCII letter case, by brute force. */
function naiveFind(bytes: Buffer, needle: string, from: number): number {
  const lower = needle.toLowerCase();
  for (let start = Math.max(0, from); start + lower.length <= bytes.length; start++) {
    let same = true;
    for (let offset = 0; offset < lower.length && same; offset++) {
      const byte = bytes[start + offset] as number;
      const want = lower.charCodeAt(offset);
      const isLetter = want >= 0x61 && want <= 0x7a;
      same = byte === want || (isLetter && byte === want - 0x20);
    }
    if (same) return start;
  }
  return -1;
}

describe('case-folded literals: whichever window the search anchors on', () => {
  test('longer strings of letters, digits and symbols: every occurrence, in order, from any point', () => {
    let seed = 3;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    let found = 0;
    for (let round = 0; round < 400; round++) {
      // Few distinct characters, so partial and overlapping matches of every window are
      // common; every other round only two letters, where occurrences overlap (aab in aaab).
      const repetitive = round % 2 === 0;
      const alphabet = repetitive ? 'aAaAb' : 'aAbBzZqQ09(._ é\n';
      const needleAlphabet = repetitive ? 'aab' : 'abzq09(._';
      const needle = Array.from(
        { length: 2 + Math.floor(random() * 11) },
        () => needleAlphabet[Math.floor(random() * needleAlphabet.length)],
      ).join('');
      const planted = needle
        .split('')
        .map((character) => (random() < 0.5 ? character.toUpperCase() : character))
        .join('');
      const text = Array.from({ length: 400 }, (_, index) =>
        index % 97 === 13 ? planted : alphabet[Math.floor(random() * alphabet.length)],
      ).join('');
      const bytes = Buffer.from(text);
      const finder = compileCaseFoldedLiterals([needle]).in(bytes);
      // Walking forward from each hit gives every occurrence.
      const walked: number[] = [];
      for (let at = finder.find(0, 0); at !== -1; at = finder.find(0, at + 1)) walked.push(at);
      const expected: number[] = [];
      for (let at = naiveFind(bytes, needle, 0); at !== -1; at = naiveFind(bytes, needle, at + 1))
        expected.push(at);
      expect({ needle, walked }).toEqual({ needle, walked: expected });
      found += expected.length;
      // And random starting points, in any order, answer like a fresh search.
      for (let probe = 0; probe < 10; probe++) {
        const from = Math.floor(random() * (bytes.length + 3));
        expect({ needle, from, at: finder.find(0, from) }).toEqual({
          needle,
          from,
          at: naiveFind(bytes, needle, from),
        });
      }
    }
    expect(found).toBeGreaterThan(300);
  });

  test('one compiled set serves many files, each with its own positions', () => {
    const compiled = compileCaseFoldedLiterals(['econnrefused', 'abortsignal']);
    const first = Buffer.from('x ECONNREFUSED y AbortSignal');
    const second = Buffer.from('abortsignal then EconnRefused');
    const inFirst = compiled.in(first);
    const inSecond = compiled.in(second);
    expect([inFirst.find(0, 0), inFirst.find(1, 0)]).toEqual([2, 17]);
    expect([inSecond.find(0, 0), inSecond.find(1, 0)]).toEqual([17, 0]);
    expect(inFirst.lengths).toEqual([12, 11]);
    expect(caseFoldedLiterals(first, ['abortsignal']).find(0, 18)).toBe(-1);
  });
});
