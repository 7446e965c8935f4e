import { describe, expect, test } from 'bun:test';
import {
  requiredLiteralOf,
  requiredLiteralsOf,
} from '../../../../../src/services/tools/fs/required-literal';

describe('requiredLiteralOf', () => {
  const cases: Array<[string, string | undefined]> = [
    ['deprecatedHelper', 'deprecatedHelper'],
    ['function (get|set)\\w+Async\\(', 'Async('],
    ['\\w+Handler\\(', 'Handler('],
    ['export (async )?function', 'export '],
    ['colou?r', 'colo'],
    ['ab*cdef', 'cdef'],
    ['abc+', undefined],
    ['abcd+', 'abc'],
    ['x{2}yzw', 'yzw'],
    ['a{1,3}bcd', 'bcd'],
    ['[abc]def[ghi]', 'def'],
    ['foo|barbaz', undefined],
    ['(foo|bar)bazz', 'bazz'],
    ['^\\s*$', undefined],
    ['\\bword\\b', 'word'],
    ['a\\.b\\.c', 'a.b.c'],
    ['\\d{3}-\\d{4}', undefined],
    ['(?<=prefix)value', 'value'],
    ['(?!nope)keep', 'keep'],
    ['ab', undefined],
    ['caf\u00e9 time', 'caf\u00e9 time'],
    ['emoji😀here', 'emoji'],
    ['😀😀ab😀', undefined],
    ['{notcounted}', 'notcounted'],
  ];
  for (const [source, expected] of cases) {
    test(`${source} → ${String(expected)}`, () => {
      expect(requiredLiteralOf(source, false)).toBe(expected);
    });
  }

  test('every required run, the rarest character first, then the longest', () => {
    expect(requiredLiteralsOf('function (get|set)\\w+Async\\(', false)).toEqual([
      'Async(',
      'function ',
    ]);
    expect(requiredLiteralsOf('a\\d+bcd\\s+efgh', false)).toEqual(['bcd', 'efgh']);
    expect(requiredLiteralsOf('x\\d+ etat\\s+ette', false)).toEqual([' etat', 'ette']);
    expect(requiredLiteralsOf('x|yyyy', false)).toEqual([]);
  });

  test('no literal for case-insensitive patterns', () => {
    expect(requiredLiteralOf('deprecatedHelper', true)).toBeUndefined();
  });

  test('every match of the pattern contains the literal (seeded samples)', () => {
    const samples: Array<[string, string[]]> = [
      ['export (async )?function', ['export function x', 'export async function y']],
      ['colou?r', ['color', 'colour']],
      ['a{1,3}bcd', ['abcd', 'aaabcd']],
      ['(foo|bar)bazz', ['foobazz', 'barbazz']],
    ];
    for (const [source, texts] of samples) {
      const literal = requiredLiteralOf(source, false);
      for (const text of texts) {
        expect(new RegExp(source).test(text)).toBe(true);
        expect(literal === undefined || text.includes(literal)).toBe(true);
      }
    }
  });
});
