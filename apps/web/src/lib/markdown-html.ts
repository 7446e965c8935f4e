/**
 * Markdown to HTML, not yet sanitised (`lib/markdown.ts` sanitises it):
 * GitHub-flavoured markdown by `marked`, fenced code highlighted by
 * highlight.js (a fixed set of common languages, to keep the bundle small)
 * with a copy button.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked, type Token, type TokensList } from 'marked';

const LANGUAGES = {
  bash,
  css,
  diff,
  go,
  javascript,
  json,
  markdown,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });
hljs.registerAliases(['md'], { languageName: 'markdown' });

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

export function highlight(code: string, language?: string): string {
  const name = language?.trim().split(/\s+/)[0]?.toLowerCase();
  if (name && hljs.getLanguage(name)) return hljs.highlight(code, { language: name }).value;
  return escapeHtml(code);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      const label = lang?.trim().split(/\s+/)[0] ?? '';
      return `<div class="code-block"><div class="code-head"><span>${escapeHtml(label || 'text')}</span><button type="button" class="copy" data-copy="code">Copy</button></div><pre><code class="hljs">${highlight(text, label)}</code></pre></div>`;
    },
  },
});

/** The whole text. */
export function markdownToHtml(text: string): string {
  return marked.parse(text, { async: false });
}

/** marked's tokens of a text, for drawing it block by block (`lib/markdown-blocks.ts`). */
export function lexMarkdown(text: string): TokensList {
  return marked.lexer(text);
}

/** Some of a text's top-level tokens. */
export function tokensToHtml(tokens: Token[]): string {
  return marked.parser(tokens);
}
