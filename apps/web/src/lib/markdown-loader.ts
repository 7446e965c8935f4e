/**
 * The markdown renderer (`lib/markdown.ts`) is loaded on its own, as soon as
 * the page starts (`bootstrap.ts`), while the page's first requests travel.
 * Imports nothing, so it runs first.
 */
export type MarkdownRenderer = typeof import('./markdown');

let loaded: MarkdownRenderer | undefined;
let loading: Promise<MarkdownRenderer> | undefined;

export function loadMarkdown(): Promise<MarkdownRenderer> {
  loading ??= import('./markdown').then((renderer) => {
    loaded = renderer;
    return renderer;
  });
  return loading;
}

/** The renderer if it has loaded. */
export function markdownRenderer(): MarkdownRenderer | undefined {
  return loaded;
}
