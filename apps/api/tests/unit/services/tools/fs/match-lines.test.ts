import { describe, expect, test } from 'bun:test';
import {
  compileLinePatterns,
  cutAroundMatch,
  MAX_MATCH_LINE_CHARS,
  searchLines,
  searchLinesContaining,
} from '../../../../../src/services/tools/fs/match-lines';
import { requiredLiteralsOf } from '../../../../../src/services/tools/fs/required-literal';

function lines(text: string, source: string, limit = 100, caseInsensitive = false) {
  return searchLines(text, compileLinePatterns(source, caseInsensitive), { limit }).matches.map(
    (match) => [match.line, match.text],
  );
}

/** What testing every line on its own gives: the reference the whole-text pass must equal. */
function reference(text: string, source: string): Array<[number, string]> {
  if (text === '') return [];
  const split = text.split('\n');
  if (text.endsWith('\n')) split.pop();
  const single = new RegExp(source);
  return split
    .map((line, index): [number, string] => [index + 1, line.replace(/\r$/, '')])
    .filter(([, line]) => single.test(line));
}

describe('line semantics', () => {
  test('a file ending in a newline has no extra empty last line', () => {
    expect(lines('a\nb\n', '^$')).toEqual([]);
    expect(lines('a\n\nb\n', '^$')).toEqual([[2, '']]);
    expect(lines('a\nb', 'b$')).toEqual([[2, 'b']]);
    expect(lines('abc', '$')).toEqual([[1, 'abc']]);
    expect(lines('', '.*')).toEqual([]);
  });

  test('CRLF lines are reported without the carriage return, and $ matches before it', () => {
    expect(lines('one\r\ntwo\r\n', 'o$')).toEqual([[2, 'two']]);
    expect(lines('one\r\ntwo\r\n', 'e')).toEqual([[1, 'one']]);
  });

  test('a line matches once however many times the pattern occurs in it', () => {
    expect(lines('aa aa\nb\naa', 'a')).toEqual([
      [1, 'aa aa'],
      [3, 'aa'],
    ]);
  });

  test('a pattern that could span lines matches each line on its own, like per-line grep', () => {
    const text = 'x1\nfoo\nbar\nfoo bar\n';
    for (const source of [
      '[^q]*bar',
      '\\s+bar',
      'foo\\s*',
      'o\\nb',
      '[\\s\\S]+r',
      '^',
      '(?<=\\n)foo',
    ]) {
      expect(lines(text, source)).toEqual(reference(text, source));
    }
  });

  test('a lone carriage return or a line separator inside a line does not split it', () => {
    const text = 'ab\rcd\nx\u2028yz\n';
    for (const source of ['^cd', 'ab$', '^yz', 'x$', 'c']) {
      expect(lines(text, source)).toEqual(reference(text, source));
    }
  });

  test('equals per-line testing on seeded random texts and patterns', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const alphabet = ['a', 'b', ' ', '\n', '\n', '\r\n', 'ab'];
    const sources = ['a', 'b$', '^a', 'a\\s+b', '[^x]+', 'b\\n?a', '^$', '\\bab\\b', 'a*', '\\s$'];
    for (let round = 0; round < 300; round++) {
      let text = '';
      const size = Math.floor(random() * 30);
      for (let index = 0; index < size; index++) {
        text += alphabet[Math.floor(random() * alphabet.length)];
      }
      for (const source of sources) {
        expect([text, source, lines(text, source)]).toEqual([
          text,
          source,
          reference(text, source),
        ]);
      }
    }
  });

  test('case-insensitive matching', () => {
    expect(lines('Hello\nhello\nHELLO', 'hello', 100, true).length).toBe(3);
    expect(lines('Hello\nhello\nHELLO', 'hello').length).toBe(1);
  });

  test('the search stops after limit + 1 matches, so the caller can tell the limit cut it', () => {
    const text = Array.from({ length: 50 }, (_, index) => `match ${index}`).join('\n');
    const result = searchLines(text, compileLinePatterns('match', false), { limit: 5 });
    expect(result.matches.map((match) => match.line)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test('shouldStop ends the search and says so', () => {
    const result = searchLines('a\na\na', compileLinePatterns('a', false), {
      limit: 10,
      shouldStop: () => true,
    });
    expect(result).toEqual({ matches: [], slowLines: [], stopped: true });
  });
});

describe('searching bytes for the lines that hold a required literal', () => {
  const decode = (line: Buffer) => line.toString('utf8');
  function byLiteral(text: string | Buffer, source: string, limit = 100) {
    const literals = requiredLiteralsOf(source, false);
    if (literals.length === 0) throw new Error(`no literal in ${source}`);
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    return searchLinesContaining(
      bytes,
      literals.map((literal) => Buffer.from(literal)),
      compileLinePatterns(source, false),
      decode,
      { limit },
    ).matches.map((match) => [match.line, match.text]);
  }

  test('finds exactly what per-line testing finds', () => {
    const text =
      'const a = 1;\r\nfunction getUserAsync(x)\nnothing\n\nfunction setItemAsync(\nfunction other()\nlast function getAAsync(';
    for (const source of ['function (get|set)\\w+Async\\(', 'function', 'Async\\($']) {
      expect(byLiteral(text, source)).toEqual(reference(text, source));
    }
  });

  test('line numbers, CRLF, a BOM on line 1 and UTF-8 text', () => {
    const text = `\uFEFFcafé needle\r\nx\n\nnaïve needle été\nneedle`;
    expect(byLiteral(text, '^[^ ]+ needle')).toEqual([
      [1, 'café needle'],
      [4, 'naïve needle été'],
    ]);
    expect(byLiteral(text, 'needle$')).toEqual([
      [1, 'café needle'],
      [5, 'needle'],
    ]);
  });

  test('stops after limit + 1 matches', () => {
    expect(byLiteral('abc\n'.repeat(10), 'abc', 2).length).toBe(3);
  });

  test('where the literal is common, the rest of the file is searched in one pass: same lines', () => {
    const lines = Array.from({ length: 400 }, (_, index) =>
      index % 3 === 0
        ? `function getItem${index}Async(x)`
        : index % 3 === 1
          ? 'function plain()'
          : 'other',
    );
    const text = `${lines.join('\r\n')}\n`;
    for (const source of [
      'function (get|set)\\w+Async\\(',
      'function',
      'Async\\(x\\)$',
      'function \\w+Async\\(x',
    ]) {
      expect(byLiteral(text, source, 1000)).toEqual(reference(text, source));
    }
    expect(byLiteral(text, 'function', 150).length).toBe(151);
  });

  test('a line must hold every literal, wherever else in the file the others occur', () => {
    const text =
      'beta first\nalpha only\nalpha and beta\nbeta alone\nalpha, then\nbeta\nbeta alpha\nalpha';
    const search = (literals: string[], source: string) =>
      searchLinesContaining(
        Buffer.from(text),
        literals.map((literal) => Buffer.from(literal)),
        compileLinePatterns(source, false),
        decode,
        { limit: 100 },
      ).matches.map((match) => [match.line, match.text]);
    const expected = [
      [3, 'alpha and beta'],
      [7, 'beta alpha'],
    ];
    expect(search(['alpha', 'beta'], 'alpha|beta')).toEqual(expected);
    expect(search(['beta', 'alpha'], 'alpha|beta')).toEqual(expected);
    expect(search(['alpha', 'beta', 'ta'], 'alpha|beta')).toEqual(expected);
    // A string across a line break is in no line, so no line holds it.
    expect(search(['alpha', 'then\nbeta'], 'alpha')).toEqual([]);
  });
});

describe('long matched lines', () => {
  test('a line over the limit is cut around the match and marked', () => {
    const line = `${'x'.repeat(3000)}NEEDLE${'y'.repeat(3000)}`;
    const [match] = searchLines(`short\n${line}\n`, compileLinePatterns('NEEDLE', false), {
      limit: 10,
    }).matches;
    expect(match?.line).toBe(2);
    expect(match?.textTruncated).toBe(true);
    expect(match?.text).toContain('NEEDLE');
    expect(match?.text.startsWith('…')).toBe(true);
    expect(match?.text.endsWith('…')).toBe(true);
    expect(match?.text.length).toBeLessThanOrEqual(MAX_MATCH_LINE_CHARS + 2);
  });

  test('a line at exactly the limit is not cut', () => {
    const line = 'z'.repeat(MAX_MATCH_LINE_CHARS);
    const [match] = searchLines(line, compileLinePatterns('z', false), { limit: 1 }).matches;
    expect(match?.text).toBe(line);
    expect(match?.textTruncated).toBeUndefined();
  });

  test('a match at the start keeps the head; the cut never splits a surrogate pair', () => {
    const head = cutAroundMatch(`NEEDLE${'y'.repeat(2000)}`, 0, 6);
    expect(head.startsWith('NEEDLE')).toBe(true);
    expect(head.endsWith('…')).toBe(true);
    const emoji = '😀'.repeat(1000);
    for (let index = 0; index < 40; index++) {
      const cut = cutAroundMatch(emoji, 600 + index, 1).replaceAll('…', '');
      expect(cut.length % 2).toBe(0);
      expect(cut).toBe('😀'.repeat(cut.length / 2));
    }
  });
});
