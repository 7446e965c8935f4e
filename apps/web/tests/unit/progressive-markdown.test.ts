/**
 * Much markdown at once is drawn over several frames, a piece at a time, and what is shown is
 * always a leading part of the text drawn exactly as that part would be drawn whole. The render
 * budget runs on a clock the test moves.
 */
import { describe, expect, test } from 'bun:test';
import { createMarkdownBlocks } from '../../src/lib/markdown-blocks';
import { lexMarkdown, markdownToHtml, tokensToHtml } from '../../src/lib/markdown-html';
import { createProgressiveMarkdown } from '../../src/lib/progressive-markdown';
import { createRenderBudget } from '../../src/lib/render-budget';

describe('the render budget', () => {
  test('the first question of a pass opens it; the time runs out within it; the next pass starts again', () => {
    let clock = 100;
    const pending: (() => void)[] = [];
    const budget = createRenderBudget(
      8,
      () => clock,
      (callback) => pending.push(callback),
    );
    expect(budget.hasTime()).toBe(true);
    clock += 5;
    expect(budget.hasTime()).toBe(true);
    clock += 3;
    expect(budget.hasTime()).toBe(false);
    expect(budget.hasTime()).toBe(false);
    for (const callback of pending.splice(0)) callback();
    clock += 50;
    expect(budget.hasTime()).toBe(true);
    expect(pending).toHaveLength(1);
  });
});

/** A budget of `pieces` pieces per pass, whatever the time. */
function piecesPerFrame(pieces: number) {
  let left = 0;
  let opened = false;
  return {
    hasTime: () => {
      if (!opened) {
        opened = true;
        left = pieces;
        return true;
      }
      left -= 1;
      return left > 0;
    },
    nextFrame: () => {
      opened = false;
    },
  };
}

const REPLY = [
  '# A reply',
  'Some text with **bold**.',
  '1. one\n\n2. two\n\n   still two',
  '```ts\nconst a = 1;\n\nconst b = 2;\n```',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  'The end.',
].join('\n\n');

describe('drawing markdown within a frame budget', () => {
  test('a long text arriving at once is drawn over several frames, each a leading part drawn as it would be whole', () => {
    const frames = piecesPerFrame(2);
    let rendered = 0;
    const draw = createProgressiveMarkdown({
      split: createMarkdownBlocks(lexMarkdown),
      render: (tokens) => {
        rendered++;
        return tokensToHtml(tokens);
      },
      hasTime: frames.hasTime,
    });
    const shown: string[] = [];
    for (let frame = 0; frame < 50; frame++) {
      const drawing = draw(REPLY);
      expect(REPLY.startsWith(drawing.shown)).toBe(true);
      expect(drawing.html.join('')).toBe(markdownToHtml(drawing.shown));
      shown.push(drawing.shown);
      frames.nextFrame();
      if (drawing.done) break;
    }
    expect(shown.length).toBeGreaterThan(2);
    expect(shown.at(-1)).toBe(REPLY);
    // Each frame shows more than the one before.
    for (let index = 1; index < shown.length; index++)
      expect((shown[index] as string).length).toBeGreaterThan((shown[index - 1] as string).length);
    // Drawn once more, nothing is rendered again.
    const before = rendered;
    expect(draw(REPLY).done).toBe(true);
    expect(rendered).toBe(before);
  });

  test('a text that grows a little each frame is drawn whole each frame', () => {
    const frames = piecesPerFrame(1);
    const draw = createProgressiveMarkdown({
      split: createMarkdownBlocks(lexMarkdown),
      render: tokensToHtml,
      hasTime: frames.hasTime,
    });
    for (let end = 1; end <= REPLY.length; end += 3) {
      const text = REPLY.slice(0, end);
      // At most one blank line arrives per frame here, so one piece is enough.
      let drawing = draw(text);
      while (!drawing.done) {
        frames.nextFrame();
        drawing = draw(text);
      }
      expect(drawing.html.join('')).toBe(markdownToHtml(text));
      frames.nextFrame();
    }
  });

  test('a text replaced by another is drawn afresh', () => {
    const draw = createProgressiveMarkdown({
      split: createMarkdownBlocks(lexMarkdown),
      render: tokensToHtml,
      hasTime: () => true,
    });
    expect(draw(REPLY).done).toBe(true);
    const drawing = draw('Something else entirely.');
    expect(drawing.html.join('')).toBe(markdownToHtml('Something else entirely.'));
  });
});
