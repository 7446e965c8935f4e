import { describe, expect, test } from 'bun:test';
import { literalTextOf } from '../../../../../../src/services/tools/builtin/grep/required-literal';

describe('literalTextOf: the text a pattern of plain characters matches', () => {
  test('plain text and escaped punctuation are literal', () => {
    expect(literalTextOf('TODO')).toBe('TODO');
    expect(literalTextOf('new URL\\(')).toBe('new URL(');
    expect(literalTextOf('Symbol\\.asyncIterator')).toBe('Symbol.asyncIterator');
    expect(literalTextOf('a\\/b\\-c')).toBe('a/b-c');
    expect(literalTextOf('café au lait')).toBe('café au lait');
  });

  test('anything with regex meaning is not', () => {
    for (const source of [
      'a.b',
      'ab?c',
      'a+',
      'a*',
      'a{2}',
      '^abc',
      'abc$',
      'a|b',
      '(abc)',
      '[abc]',
      'a\\d',
      'a\\bc',
      '\\u0041',
      'a]b',
      'a}b',
      'tab\there',
      '😀',
      '',
      'trailing\\',
    ]) {
      expect([source, literalTextOf(source)]).toEqual([source, undefined]);
    }
  });

  test('a literal pattern matches a line exactly when the line contains its text', () => {
    const lines = ['new URL(x)', 'new URLx', 'NEW url(', 'a.b', 'axb', 'café au lait!'];
    for (const source of ['new URL\\(', 'a\\.b', 'café au lait']) {
      const text = literalTextOf(source) as string;
      for (const flags of ['', 'i']) {
        const pattern = new RegExp(source, flags);
        for (const line of lines) {
          const contains =
            flags === 'i' ? line.toLowerCase().includes(text.toLowerCase()) : line.includes(text);
          expect([source, flags, line, pattern.test(line)]).toEqual([
            source,
            flags,
            line,
            contains,
          ]);
        }
      }
    }
  });
});
