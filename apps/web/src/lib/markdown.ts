/**
 * Markdown to safe HTML: marked's HTML (`lib/markdown-html.ts`) sanitised by
 * DOMPurify — model output is untrusted, so no script, handler or foreign
 * frame survives. Links open in a new tab without an opener. This module and
 * what it imports (marked, highlight.js, DOMPurify: most of the page's code)
 * are a chunk of their own, loaded beside the page's first requests
 * (`lib/markdown-loader.ts`), so the page does not evaluate them before it
 * can show itself.
 */
import DOMPurify from 'dompurify';
import type { Token } from 'marked';
import { highlight, lexMarkdown, tokensToHtml } from './markdown-html';

export { highlight, lexMarkdown };

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.getAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});
// Set once: a configuration passed to each call is parsed again on each call.
DOMPurify.setConfig({
  ADD_ATTR: ['target'],
  FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select'],
});

const sanitize = (html: string) => DOMPurify.sanitize(html);

/** Some of a text's top-level tokens (a block of `lib/markdown-blocks.ts`). */
export function renderMarkdownTokens(tokens: Token[]): string {
  return sanitize(tokensToHtml(tokens));
}

const SAMPLES = [
  '# A heading\n\nA paragraph with **bold**, _emphasis_, `code` and a [link](https://example.test).',
  'A setext heading\n---\n\n- an item\n- [x] a task\n\n1. one\n2. two',
  '> a quote\n\n| a | b |\n|---|:-:|\n| 1 | 2 |',
  '```ts\nconst answer: number = 42;\n```\n\n```bash\necho "$HOME"\n```',
];
let warmedUp = false;

/**
 * Draws a few samples while the page is idle, one per idle moment, so that the first reply does
 * not pay for cold code (the lexer's regular expressions compiled, functions optimised on first
 * use: tens of milliseconds in one frame otherwise).
 */
export function warmUpMarkdown(): void {
  if (warmedUp) return;
  warmedUp = true;
  const samples = [...SAMPLES];
  const whenIdle = (callback: () => void) =>
    typeof requestIdleCallback === 'function'
      ? requestIdleCallback(callback, { timeout: 2000 })
      : setTimeout(callback, 100);
  const next = () => {
    const sample = samples.shift();
    if (sample === undefined) return;
    renderMarkdownTokens(lexMarkdown(sample));
    whenIdle(next);
  };
  whenIdle(next);
}
