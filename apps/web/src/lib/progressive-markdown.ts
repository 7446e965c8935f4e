/**
 * A growing markdown text drawn within a render budget: when much text
 * arrives at once (a burst of events, a long turn replayed on re-attach, a
 * long stored reply), it is drawn a piece at a time (up to the next blank
 * line), as if it had streamed in slowly, and the rest is left for the next
 * pass. What is shown is always a leading part of the text, drawn exactly as
 * that part would be drawn whole. Blocks already drawn are kept.
 */
import type { MarkdownBlock } from './markdown-blocks';

export interface MarkdownDrawing {
  /** The leading part of the text drawn so far. */
  shown: string;
  /** The HTML of each block of `shown`, in order. */
  html: string[];
  /** Whether all of the text is drawn; if not, call again in a later pass. */
  done: boolean;
}

export interface ProgressiveMarkdownOptions {
  /** Splits a text into blocks, reusing the blocks of the text it grew from (`createMarkdownBlocks`). */
  split: (text: string) => MarkdownBlock[];
  /** A block's HTML. */
  render: (tokens: MarkdownBlock['tokens']) => string;
  /** Whether this pass has time for another piece (`RenderBudget.hasTime`). */
  hasTime: () => boolean;
}

/** The end of the piece that starts at `from`: after the next blank line, or the end of the text. */
function pieceEnd(text: string, from: number): number {
  const blank = text.indexOf('\n\n', from);
  return blank === -1 ? text.length : blank + 2;
}

export function createProgressiveMarkdown({
  split,
  render,
  hasTime,
}: ProgressiveMarkdownOptions): (text: string) => MarkdownDrawing {
  let shown = '';
  let blocks: MarkdownBlock[] = [];
  const drawn = new WeakMap<MarkdownBlock, string>();
  const htmlOf = (block: MarkdownBlock) => {
    let html = drawn.get(block);
    if (html === undefined) {
      html = render(block.tokens);
      drawn.set(block, html);
    }
    return html;
  };
  return (text) => {
    if (!text.startsWith(shown)) {
      shown = '';
      blocks = [];
    }
    if (shown !== text) {
      // Opens the pass; its first piece is drawn whatever is left of the budget.
      hasTime();
      do {
        shown = text.slice(0, pieceEnd(text, shown.length));
        blocks = split(shown);
        // The last block may still grow with the next piece; it is drawn once at the end.
        for (const block of blocks.slice(0, -1)) htmlOf(block);
      } while (shown !== text && hasTime());
    }
    return { shown, html: blocks.map(htmlOf), done: shown === text };
  };
}
