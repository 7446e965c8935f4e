import { expect, test } from 'bun:test';
import { splitMarkdownBlocks } from '../../src/lib/markdown-blocks';

test('markdown splits at blank lines, never inside fenced code', () => {
  const text = [
    '# Title',
    '',
    'A paragraph',
    'on two lines.',
    '',
    '```ts',
    'const a = 1;',
    '',
    'const b = 2;',
    '```',
    '',
    '~~~',
    '```',
    '',
    '~~~',
    'after',
  ].join('\n');
  expect(splitMarkdownBlocks(text)).toEqual([
    '# Title',
    'A paragraph\non two lines.',
    '```ts\nconst a = 1;\n\nconst b = 2;\n```',
    '~~~\n```\n\n~~~\nafter',
  ]);
});

test('an unterminated fence (a reply still streaming) stays one block to the end', () => {
  expect(splitMarkdownBlocks('Intro\n\n```py\nx = 1\n\ny = 2')).toEqual([
    'Intro',
    '```py\nx = 1\n\ny = 2',
  ]);
  expect(splitMarkdownBlocks('')).toEqual([]);
});
