import { useEffect, useState } from 'preact/hooks';
import { loadMarkdown, type MarkdownRenderer, markdownRenderer } from '../lib/markdown-loader';

/** The markdown renderer; undefined until it has loaded (the component renders again then). */
export function useMarkdownRenderer(): MarkdownRenderer | undefined {
  const [renderer, setRenderer] = useState(markdownRenderer);
  useEffect(() => {
    if (!renderer) void loadMarkdown().then(setRenderer);
  }, [renderer]);
  return renderer;
}
