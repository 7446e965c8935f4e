/**
 * Markdown split into its top-level blocks (marked's own tokens: a paragraph,
 * a list, a fenced code block…), for a text that grows at its end while a
 * reply streams. Each block is drawn (and cached) alone, and only the text
 * after the last blank line that later text cannot reach is lexed again:
 * the blocks before it are settled. Drawing the blocks one by one and joining
 * them gives the same HTML as drawing the whole text at once (the unit tests
 * hold it to that), since marked renders top-level tokens one after another.
 *
 * Why the blocks before a blank line are settled once the first line after
 * it is complete: markdown's blocks that span blank lines (a loose list,
 * indented code, an open fence or HTML comment) are one token, and whether
 * the line after a blank line goes on with a list or indented code is decided
 * by that line alone (its indentation, its bullet) — `2` might still become
 * `2. item` of the list above, a finished line cannot. The exception is a
 * reference definition (`[x]: url`), which changes links anywhere in the
 * text: once one is seen, the whole text is lexed each time.
 */
import type { Token, TokensList } from 'marked';

export interface MarkdownBlock {
  /** This block's part of the text (its tokens' raw text, blank lines after it included). */
  source: string;
  tokens: Token[];
  /**
   * Changes exactly when the block's HTML may change: its source, and once reference definitions
   * are in the text, those too.
   */
  key: string;
}

export type LexMarkdown = (text: string) => TokensList;

/** Groups tokens into blocks: one token that draws something, and the blank lines after it. */
function group(tokens: Token[]): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  for (const token of tokens) {
    const last = blocks.at(-1);
    if (token.type === 'space' && last) {
      last.tokens.push(token);
      last.source += token.raw;
    } else blocks.push({ source: token.raw, tokens: [token], key: '' });
  }
  for (const block of blocks) block.key = block.source;
  return blocks;
}

const endsWithBlankLine = (block: MarkdownBlock) => block.tokens.at(-1)?.type === 'space';

/**
 * A splitter for one growing text: call it with the whole text each time; it returns the blocks,
 * reusing the settled ones (the same objects) while the text only grew at its end.
 */
export function createMarkdownBlocks(lex: LexMarkdown): (text: string) => MarkdownBlock[] {
  let previous = '';
  let settled: MarkdownBlock[] = [];
  let settledSource = '';
  let withDefinitions = false;

  const whole = (text: string): MarkdownBlock[] => {
    const tokens = lex(text);
    const blocks = group(tokens);
    const links = JSON.stringify(tokens.links ?? {});
    withDefinitions = links !== '{}' || tokens.some((token) => token.type === 'def');
    if (withDefinitions) for (const block of blocks) block.key = `${block.source}\0${links}`;
    settled = [];
    settledSource = '';
    return blocks;
  };

  return (text) => {
    // Only a text that grew at its end keeps what was settled.
    if (!text.startsWith(previous)) {
      settled = [];
      settledSource = '';
      withDefinitions = false;
    }
    previous = text;
    if (withDefinitions) return whole(text);
    const rest = text.slice(settledSource.length);
    const tokens = lex(rest);
    if (tokens.some((token) => token.type === 'def') || Object.keys(tokens.links ?? {}).length > 0)
      return whole(text);
    const fresh = group(tokens);
    // marked keeps every character in some token's raw text; should that ever fail, nothing is
    // settled.
    if (fresh.map((block) => block.source).join('') !== rest) return whole(text);
    // Settled: the blocks before the last one that follows a blank line and whose first line is
    // complete.
    let open = 0;
    for (let index = fresh.length - 1; index > 0; index--) {
      const block = fresh[index] as MarkdownBlock;
      if (endsWithBlankLine(fresh[index - 1] as MarkdownBlock) && block.source.includes('\n')) {
        open = index;
        break;
      }
    }
    const blocks = [...settled, ...fresh];
    for (const block of fresh.slice(0, open)) {
      settled.push(block);
      settledSource += block.source;
    }
    return blocks;
  };
}
