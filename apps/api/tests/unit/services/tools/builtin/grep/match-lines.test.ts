import { describe, expect, test } from 'bun:test';
import {
  caseFoldedLiterals,
  compileLinePatterns,
  cutAroundMatch,
  exactLiterals,
  MAX_MATCH_LINE_CHARS,
  searchLines,
  searchLinesContaining,
} from '../../../../../../src/services/tools/builtin/grep/match-lines';
import { requiredLiteralsOf } from '../../../../../../src/services/tools/builtin/grep/required-literal';

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
      literals.map((requirement) =>
        exactLiterals(
          bytes,
          requirement.map((literal) => Buffer.from(literal)),
        ),
      ),
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
        literals.map((literal) => exactLiterals(Buffer.from(text), [Buffer.from(literal)])),
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

  test('a requirement with alternatives: a line needs one of its strings, and every other requirement', () => {
    const text =
      'function getA Async(\nfunction setB\nAsync( function setC\nfunction putD Async(\nfunction getE\nAsync(';
    const search = (literals: string[][], source: string) =>
      searchLinesContaining(
        Buffer.from(text),
        literals.map((requirement) =>
          exactLiterals(
            Buffer.from(text),
            requirement.map((literal) => Buffer.from(literal)),
          ),
        ),
        compileLinePatterns(source, false),
        decode,
        { limit: 100 },
      ).matches.map((match) => match.line);
    const source = 'function (get|set)';
    const required = [['function get', 'function set'], ['Async(']];
    expect(search(required, source)).toEqual([1, 3]);
    expect(search([...required].reverse(), source)).toEqual([1, 3]);
    expect(search([['function get', 'function set']], source)).toEqual([1, 2, 3, 5]);
    expect(search([['function set', 'function get']], source)).toEqual([1, 2, 3, 5]);
  });

  test('generated patterns: every matching line meets every requirement, and the byte search finds exactly those lines', () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const atoms = [
      'ab',
      'ba',
      'abc',
      'b',
      '(ab|ba)',
      '(?:abc|cab)',
      '(a|b|c)',
      '(ab)',
      '\\w',
      '.',
      '[ab]',
      '(a|)',
      '(?<n>bc|ca)',
      '\\(',
      '(b\\.|a\\))',
    ];
    const suffixes = ['', '', '', '?', '+', '*', '{2}'];
    const alphabet = ['a', 'b', 'c', 'ab', 'abc', 'cab', 'bca', ' ', '(', ')', '.', '\n', '\r\n'];
    let checked = 0;
    for (let round = 0; round < 400; round++) {
      let source = '';
      const atomCount = 1 + Math.floor(random() * 5);
      for (let index = 0; index < atomCount; index++) {
        // Group names must be unique within a pattern.
        source += pick(atoms).replace('<n>', `<n${index}>`) + pick(suffixes);
      }
      const requirements = requiredLiteralsOf(source, false);
      let text = '';
      const size = Math.floor(random() * 60);
      for (let index = 0; index < size; index++) text += pick(alphabet);
      const expected = reference(text, source);
      for (const [, line] of expected) {
        for (const requirement of requirements) {
          expect([source, line, requirement.some((literal) => line.includes(literal))]).toEqual([
            source,
            line,
            true,
          ]);
        }
      }
      if (requirements.length === 0) continue;
      checked++;
      expect([source, text, byLiteral(text, source, 1000)]).toEqual([source, text, expected]);
    }
    // The generator must exercise the byte search, not only patterns without requirements.
    expect(checked).toBeGreaterThan(100);
  });

  test('patterns with literal groups find exactly what per-line testing finds', () => {
    const text = [
      'function getUserAsync(x)',
      'function setUserAsync(',
      'function putUserAsync(',
      'export const enum Color { Red }',
      'export enum Color',
      'import { a } from "b"; function getXAsync(',
      'const x = (get)',
      'getter setter',
    ].join('\n');
    for (const source of [
      'function (get|set)\\w+Async\\(',
      '(?:export|import) (const |)enum',
      'export (?:const )?enum (Color|Size)',
      '(?<verb>get|set)ter',
      '(get)',
      '(?:get|set)\\w+',
    ]) {
      expect(byLiteral(text, source)).toEqual(reference(text, source));
    }
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

describe('case-insensitive patterns: the literal prefilter in any letter case', () => {
  const decode = (line: Buffer) => line.toString('utf8');
  function folded(text: string, source: string, limit = 1000) {
    const bytes = Buffer.from(text);
    return searchLinesContaining(
      bytes,
      requiredLiteralsOf(source, true).map((strings) => caseFoldedLiterals(bytes, strings)),
      compileLinePatterns(source, true),
      decode,
      { limit },
    ).matches.map((match) => [match.line, match.text]);
  }
  function perLine(text: string, source: string) {
    const pattern = new RegExp(source, 'i');
    return text
      .replace(/\n$/, '')
      .split('\n')
      .flatMap((raw, index) => {
        const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
        return pattern.test(line) ? [[index + 1, line]] : [];
      });
  }

  test('requirements are lower case, and only ASCII ones are kept', () => {
    expect(requiredLiteralsOf('DeprecatedHelper', true)).toEqual([['deprecatedhelper']]);
    expect(requiredLiteralsOf('function (Get|SET)x', true)).toEqual([
      ['function getx', 'function setx'],
    ]);
    expect(requiredLiteralsOf('Ünïcode', true)).toEqual([]);
    expect(requiredLiteralsOf('Ünïcode\\s+plain', true)).toEqual([['plain']]);
  });

  test('finds exactly what per-line testing finds, in every case mix, around non-ASCII text', () => {
    const text = [
      'const DeprecatedHelper = 1;',
      'deprecatedhelper()',
      'DEPRECATEDHELPER',
      'deprecated helper',
      'ǅeprecatedHelper (a titlecase digraph, not a D)',
      'straße DeprecAtedHelPer ünïcödé\r',
      'ſ is not s: DeprecatedHelper',
      '',
    ].join('\n');
    for (const source of ['deprecatedhelper', 'DEPRECATED(Helper|Tool)', 'ss\\w*', 'ſ is']) {
      if (requiredLiteralsOf(source, true).length === 0) continue;
      expect([source, folded(text, source)]).toEqual([source, perLine(text, source)]);
    }
    expect(folded(text, 'deprecatedhelper').map(([line]) => line)).toEqual([1, 2, 3, 6, 7]);
  });

  test('generated patterns and texts: the folded search equals per-line testing', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const atoms = ['ab', 'Ba', 'aBc', 'b', '(ab|BA)', '(?:abc|Cab)', '\\w', '.', '[aB]', '\\('];
    const suffixes = ['', '', '', '?', '+', '*'];
    const alphabet = ['a', 'B', 'c', 'AB', 'aBC', 'cAb', 'é', 'ß', ' ', '(', '\n', '\r\n'];
    let checked = 0;
    for (let round = 0; round < 400; round++) {
      let source = '';
      const atomCount = 1 + Math.floor(random() * 5);
      for (let index = 0; index < atomCount; index++) source += pick(atoms) + pick(suffixes);
      if (requiredLiteralsOf(source, true).length === 0) continue;
      let text = '';
      const size = Math.floor(random() * 60);
      for (let index = 0; index < size; index++) text += pick(alphabet);
      checked++;
      expect([source, text, folded(text, source)]).toEqual([source, text, perLine(text, source)]);
    }
    expect(checked).toBeGreaterThan(100);
  });
});

describe('caseFoldedLiterals: finding ASCII strings in any case in raw bytes', () => {
  // A reference: the same search with a case-insensitive regular expression on a Latin-1 view.
  function reference(text: Buffer, needle: string, from: number): number {
    const pattern = new RegExp(needle.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'), 'gi');
    pattern.lastIndex = from;
    return pattern.exec(text.toString('latin1'))?.index ?? -1;
  }

  test('agrees with a case-insensitive regex at every starting point, in any order of calls', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const alphabet = 'aAbBcC-_ é\n';
    for (let round = 0; round < 200; round++) {
      const text = Buffer.from(
        Array.from({ length: 60 }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
      );
      const needle = Array.from(
        { length: 1 + Math.floor(random() * 4) },
        () => 'abc-_'[Math.floor(random() * 5)],
      ).join('');
      const finder = caseFoldedLiterals(text, [needle]);
      const starts = Array.from({ length: 20 }, () => Math.floor(random() * (text.length + 2)));
      for (const from of starts)
        expect({ needle, from, at: finder.find(0, from) }).toEqual({
          needle,
          from,
          at: reference(text, needle, from),
        });
    }
  });

  test('strings longer than the file, at its very end, and with no letters', () => {
    const bytes = Buffer.from('xx ECONNREFUSED\n42-17');
    expect(caseFoldedLiterals(bytes, ['econnrefused']).find(0, 0)).toBe(3);
    expect(caseFoldedLiterals(bytes, ['econnrefused']).find(0, 4)).toBe(-1);
    expect(caseFoldedLiterals(bytes, ['-17']).find(0, 0)).toBe(18);
    expect(caseFoldedLiterals(bytes, ['x'.repeat(40)]).find(0, 0)).toBe(-1);
  });
});
