import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { onCopyClick } from '../lib/clipboard';
import { createMarkdownBlocks } from '../lib/markdown-blocks';
import { afterThisTask } from '../lib/next-task';
import { createProgressiveMarkdown } from '../lib/progressive-markdown';
import { createRenderBudget } from '../lib/render-budget';
import { useMarkdownRenderer } from './use-markdown';

/** Shared by every message on the page: a rendering pass draws markdown for about this long. */
const budget = createRenderBudget(6);

/** One block's HTML, which DOMPurify sanitised (lib/markdown.ts). */
function Block({ html }: { html: string }) {
  if (html === '') return null;
  return <div class="markdown-block" dangerouslySetInnerHTML={{ __html: html }} />;
}

/**
 * Sanitised markdown; code blocks highlighted, each with a copy button. The text is drawn block
 * by block, so while a reply streams only its open end is lexed and drawn again; much text at
 * once is drawn in several passes, each a task of its own (lib/progressive-markdown.ts). Nothing
 * is drawn until the renderer's chunk has loaded (the chat page waits for it, lib/markdown-loader.ts).
 */
export function Markdown({ text }: { text: string }) {
  const renderer = useMarkdownRenderer();
  const draw = useMemo(
    () =>
      renderer &&
      createProgressiveMarkdown({
        split: createMarkdownBlocks(renderer.lexMarkdown),
        render: renderer.renderMarkdownTokens,
        hasTime: budget.hasTime,
      }),
    [renderer],
  );
  const drawing = draw?.(text);
  const [, setPass] = useState(0);
  // The rest in a task of its own, right after this one: the page can paint and take input in
  // between, and catching up is not held to one pass per frame.
  useLayoutEffect(() => {
    if (!drawing || drawing.done) return;
    return afterThisTask(() => setPass((count) => count + 1));
  });
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // One listener for the copy buttons of every code block inside.
    const element = ref.current;
    if (!element) return;
    const onClick = (event: MouseEvent) => void onCopyClick(event);
    element.addEventListener('click', onClick);
    return () => element.removeEventListener('click', onClick);
  }, []);
  return (
    <div ref={ref} class="markdown">
      {drawing?.html.map((html, index) => (
        <Block html={html} key={index} />
      ))}
    </div>
  );
}
