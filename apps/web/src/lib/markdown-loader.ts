/**
 * The markdown renderer (`lib/markdown.ts`) is a chunk of its own. Its file
 * is fetched with the page (`index.html` names it in a modulepreload, added by
 * `build.ts`); it is evaluated when something is to be drawn with it, or once
 * a chat is shown, so its evaluation does not hold up the page's first
 * answers.
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
