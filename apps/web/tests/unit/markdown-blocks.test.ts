/**
 * Markdown drawn block by block while it streams must be the markdown drawn whole: at every length
 * the text passes through, by small and uneven pieces. This compares marked's HTML, code
 * highlighting included (`lib/markdown-html.ts`); in the page each block's HTML is then sanitised
 * on its own, which the browser tests cover.
 */
import { describe, expect, test } from 'bun:test';
import { createMarkdownBlocks, type LexMarkdown } from '../../src/lib/markdown-blocks';
import { lexMarkdown, markdownToHtml, tokensToHtml } from '../../src/lib/markdown-html';

const TEXTS: Record<string, string> = {
  paragraphs:
    'One paragraph\non two lines.\n\nAnother *one* with `code`.\n\n\n\nAfter three blank lines.',
  headings: '# Title\nText right under it.\n\nSetext title\n===\n\n## Two\n\n---\n\nEnd',
  'fenced code with blank lines inside': [
    'Intro',
    '',
    '```ts',
    'const a = 1;',
    '',
    '',
    'const b = 2;',
    '```',
    '',
    '~~~',
    '```',
    '',
    '~~~',
    'after',
  ].join('\n'),
  'an unfinished fence': 'Intro\n\n```py\nx = 1\n\ny = 2\n\n# still code',
  'a loose ordered list':
    '1. first\n\n2. second\n\n   more of the second\n\n3. third\n\nAfter the list.',
  'a tight list, then a nested one':
    '- a\n- b\n  - b1\n  - b2\n- c\n\n* other bullet\n\n+ third bullet',
  'a list that goes on after blank lines':
    '- a\n\n\n- b\n\n  continued\n\n      indented code in an item',
  'indented code with blank lines':
    'Text\n\n    code one\n\n    code two\n\n\n    code three\n\nText again',
  'a blockquote': '> quoted\n>\n> more\nlazy line\n\n> another quote\n\n>> nested',
  'a table': '| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\n\nAfter the table.',
  'raw HTML':
    '<div>\n\ninside\n\n</div>\n\n<!-- a comment\n\nstill the comment -->\n\nText <b>bold</b> and <br> a break.',
  'reference links':
    'See [the docs][docs] and [x].\n\nMore text.\n\n[docs]: https://example.test/docs\n[x]: <https://example.test/x> "X"\n\nAfter.',
  'tasks and emphasis':
    '- [ ] todo\n- [x] done\n\n**bold _nested_** and ~~gone~~ and https://example.test/auto',
  'a numbered paragraph that becomes a list': 'Intro\n\n1. one\n\n2\n\n2. two',
  'tabs, trailing spaces, and blank lines first':
    '\n\n\tcode by tab\n\nline with break  \nnext line\n\n   \n\nend',
};

/** Every length the text passes through when it arrives in pieces of the given sizes (cycled). */
function prefixes(text: string, sizes: number[]): string[] {
  const result: string[] = [];
  for (let end = 0, index = 0; end < text.length; index++) {
    end = Math.min(text.length, end + (sizes[index % sizes.length] as number));
    result.push(text.slice(0, end));
  }
  return result;
}

const PIECES = [[1], [3], [7, 1, 2], [40]];

describe('markdown block by block equals markdown whole', () => {
  for (const [name, text] of Object.entries(TEXTS))
    test(name, () => {
      for (const sizes of PIECES) {
        const split = createMarkdownBlocks(lexMarkdown);
        for (const prefix of prefixes(text, sizes)) {
          const blocks = split(prefix);
          expect(blocks.map((block) => tokensToHtml(block.tokens)).join('')).toBe(
            markdownToHtml(prefix),
          );
        }
      }
    });

  test('all the texts one after another, as one reply', () => {
    const text = Object.values(TEXTS).join('\n\n');
    const split = createMarkdownBlocks(lexMarkdown);
    for (const prefix of prefixes(text, [5, 2, 11])) {
      const html = split(prefix)
        .map((block) => tokensToHtml(block.tokens))
        .join('');
      expect(html).toBe(markdownToHtml(prefix));
    }
  });

  test('a text that is replaced rather than grown is split afresh', () => {
    const split = createMarkdownBlocks(lexMarkdown);
    split('1. one\n\n2. two\n\nText');
    const blocks = split('1. one\n\n   continued\n\nText');
    expect(blocks.map((block) => tokensToHtml(block.tokens)).join('')).toBe(
      markdownToHtml('1. one\n\n   continued\n\nText'),
    );
  });
});

describe('a growing text is lexed again only from its open end', () => {
  const counting = () => {
    const lexed: string[] = [];
    const lex: LexMarkdown = (text) => {
      lexed.push(text);
      return lexMarkdown(text);
    };
    return { lexed, lex };
  };

  test('finished blocks are kept, the same objects, and not lexed again', () => {
    const { lexed, lex } = counting();
    const split = createMarkdownBlocks(lex);
    const paragraphs = Array.from({ length: 50 }, (_, index) => `Paragraph ${index} of the reply.`);
    let text = '';
    let first: unknown;
    for (const [index, paragraph] of paragraphs.entries()) {
      text += `${paragraph}\n\n`;
      const blocks = split(text);
      // Settled once the second paragraph has begun.
      if (index === 1) first = blocks[0];
      if (index >= 1) expect(blocks[0]).toBe(first as never);
    }
    // The last call lexed what follows the last settled block, not the whole text.
    expect(lexed.at(-1)?.length).toBeLessThan(2 * `${paragraphs.at(-1)}\n\n`.length + 1);
    expect(split(text)).toHaveLength(50);
  });

  test('a list stays open across blank lines until a line after them is finished', () => {
    const { lexed, lex } = counting();
    const split = createMarkdownBlocks(lex);
    split('1. one\n\n2');
    split('1. one\n\n2. two\n\n');
    // '2' could have become an item of the list, so the list was lexed again with it.
    expect(lexed.at(-1)).toBe('1. one\n\n2. two\n\n');
    split('1. one\n\n2. two\n\nAfter.\n');
    split('1. one\n\n2. two\n\nAfter.\n\nMore');
    expect(lexed.at(-1)?.startsWith('1.')).toBe(false);
  });

  test('once a reference definition appears, the whole text is lexed', () => {
    const { lexed, lex } = counting();
    const split = createMarkdownBlocks(lex);
    split('See [x].\n\nMore.\n\n');
    const blocks = split('See [x].\n\nMore.\n\n[x]: https://example.test/x\n');
    expect(lexed.at(-1)).toBe('See [x].\n\nMore.\n\n[x]: https://example.test/x\n');
    expect(tokensToHtml(blocks[0]?.tokens ?? [])).toContain('href="https://example.test/x"');
  });
});
