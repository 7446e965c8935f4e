import { describe, expect, test } from 'bun:test';
import {
  requiredLiteralOf,
  requiredLiteralsOf,
} from '../../../../../../src/services/tools/builtin/grep/required-literal';

describe('requiredLiteralOf', () => {
  const cases: Array<[string, string[] | undefined]> = [
    ['deprecatedHelper', ['deprecatedHelper']],
    ['function (get|set)\\w+Async\\(', ['function get', 'function set']],
    ['\\w+Handler\\(', ['Handler(']],
    ['export (async )?function', ['function']],
    ['colou?r', ['colo']],
    ['ab*cdef', ['cdef']],
    ['abc+', undefined],
    ['abcd+', ['abc']],
    ['x{2}yzw', ['yzw']],
    ['a{1,3}bcd', ['bcd']],
    ['[abc]def[ghi]', ['def']],
    ['foo|barbaz', undefined],
    ['(foo|bar)bazz', ['foobazz', 'barbazz']],
    ['(?:get|set)Value', ['getValue', 'setValue']],
    ['(?<verb>ab|cd)ef', ['abef', 'cdef']],
    ['(abc)', ['abc']],
    ['(a|)bcd', ['bcd']],
    ['(a|b*)cde', ['cde']],
    ['(a.|bc)def', ['def']],
    ['(?i:abc)def', ['def']],
    ['(ab|cd)+ef', undefined],
    ['(a|b|c|d|e)(f|g|h|i)xyz', ['fxyz', 'gxyz', 'hxyz', 'ixyz']],
    ['^\\s*$', undefined],
    ['\\bword\\b', ['word']],
    ['a\\.b\\.c', ['a.b.c']],
    ['(a\\.|b\\))cd', ['a.cd', 'b)cd']],
    ['\\d{3}-\\d{4}', undefined],
    ['(?<=prefix)value', ['value']],
    ['(?<!nope)value', ['value']],
    ['(?!nope)keep', ['keep']],
    ['ab', undefined],
    ['caf\u00e9 time', ['caf\u00e9 time']],
    ['emoji😀here', ['emoji']],
    ['😀😀ab😀', undefined],
    ['(x😀|yz)abc', ['abc']],
    ['{notcounted}', ['notcounted']],
  ];
  for (const [source, expected] of cases) {
    test(`${source} → ${JSON.stringify(expected)}`, () => {
      expect(requiredLiteralOf(source, false)).toEqual(expected);
    });
  }

  test('every requirement, the least likely to occur first', () => {
    expect(requiredLiteralsOf('function (get|set)\\w+Async\\(', false)).toEqual([
      ['function get', 'function set'],
      ['Async('],
    ]);
    expect(requiredLiteralsOf('a\\d+bcd\\s+efgh', false)).toEqual([['efgh'], ['bcd']]);
    expect(requiredLiteralsOf('x\\d+ etat\\s+ette', false)).toEqual([[' etat'], ['ette']]);
    expect(requiredLiteralsOf('x|yyyy', false)).toEqual([]);
  });

  test('case-insensitive patterns: lower-case ASCII literals, none for non-ASCII runs', () => {
    expect(requiredLiteralOf('deprecatedHelper', true)).toEqual(['deprecatedhelper']);
    expect(requiredLiteralOf('Größe', true)).toBeUndefined();
  });

  test('every match of the pattern meets every requirement (samples)', () => {
    const samples: Array<[string, string[]]> = [
      ['export (async )?function', ['export function x', 'export async function y']],
      ['colou?r', ['color', 'colour']],
      ['a{1,3}bcd', ['abcd', 'aaabcd']],
      ['(foo|bar)bazz', ['foobazz', 'barbazz']],
      ['function (get|set)\\w+Async\\(', ['function getAAsync(', 'function setBAsync(']],
      ['(?<verb>ab|cd)ef', ['abef', 'cdef']],
      ['(a|b|c|d|e)(f|g|h|i)xyz', ['afxyz', 'eixyz', 'cgxyz']],
      ['(a\\.|b\\))cd', ['a.cd', 'b)cd']],
    ];
    for (const [source, texts] of samples) {
      const requirements = requiredLiteralsOf(source, false);
      expect(requirements.length).toBeGreaterThan(0);
      for (const text of texts) {
        expect(new RegExp(source).test(text)).toBe(true);
        for (const requirement of requirements) {
          expect(requirement.some((literal) => text.includes(literal))).toBe(true);
        }
      }
    }
  });
});
