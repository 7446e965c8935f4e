import { useEffect, useState } from 'preact/hooks';
import { loadMarkdown, type MarkdownRenderer, markdownRenderer } from '../lib/markdown-loader';

/**
 * The markdown renderer; undefined until it has loaded (the component renders again then). With
 * `load` false it is not asked for yet.
 */
export function useMarkdownRenderer(load = true): MarkdownRenderer | undefined {
  const [renderer, setRenderer] = useState(markdownRenderer);
  useEffect(() => {
    if (load && !renderer) void loadMarkdown().then(setRenderer);
  }, [load, renderer]);
  return renderer;
}
