import { expect, test } from 'bun:test';
import { editDistance } from '../../src/edit-distance';

test('edit distance counts insertions, deletions and substitutions, ignoring case', () => {
  expect(editDistance('gpt-5', 'gpt-5')).toBe(0);
  expect(editDistance('GPT-5', 'gpt-5')).toBe(0);
  expect(editDistance('gpt-5', 'gpt-5o')).toBe(1);
  expect(editDistance('claude-sonet', 'claude-sonnet')).toBe(1);
  expect(editDistance('kitten', 'sitting')).toBe(3);
  expect(editDistance('', 'abc')).toBe(3);
});
