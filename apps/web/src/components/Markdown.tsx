import { useEffect, useMemo, useRef } from 'preact/hooks';
import { onCopyClick, renderMarkdown } from '../lib/markdown';
import { splitMarkdownBlocks } from '../lib/markdown-blocks';

function Block({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: DOMPurify sanitised it (lib/markdown.ts).
  return <div class="markdown-block" dangerouslySetInnerHTML={{ __html: html }} />;
}

/**
 * Sanitised markdown; code blocks highlighted, each with a copy button. The text is drawn block
 * by block, so while a reply streams only its last (growing) block is parsed again.
 */
export function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => splitMarkdownBlocks(text), [text]);
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
      {blocks.map((block, index) => (
        <Block text={block} key={index} />
      ))}
    </div>
  );
}
