import { useEffect, useMemo, useRef } from 'preact/hooks';
import { onCopyClick, renderMarkdown } from '../lib/markdown';

/** Sanitised markdown; code blocks highlighted, each with a copy button. */
export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // One listener for the copy buttons of every code block inside.
    const element = ref.current;
    if (!element) return;
    const onClick = (event: MouseEvent) => void onCopyClick(event);
    element.addEventListener('click', onClick);
    return () => element.removeEventListener('click', onClick);
  }, []);
  return <div ref={ref} class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
