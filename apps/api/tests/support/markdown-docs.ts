/**
 * Reads the repository's Markdown (README.md and docs/) for the doc tests:
 * whole files, one section by its heading, the anchors its headings get, and
 * the text outside fenced code blocks. Headings are found outside code blocks
 * only, so a `# comment` in a shell example is not one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dir, '../../../..');

/** A document's text, by its path from the repository root. */
export function readDoc(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}

/** README.md and every Markdown file under docs/, as paths from the repository root. */
export function listDocs(): string[] {
  const found: string[] = ['README.md'];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const full = join(directory, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) found.push(relative(REPO_ROOT, full));
    }
  };
  walk(join(REPO_ROOT, 'docs'));
  return found.sort();
}

interface Line {
  text: string;
  /** Inside a fenced code block (the fence lines included). */
  fenced: boolean;
}

function linesOf(markdown: string): Line[] {
  let fence: string | undefined;
  return markdown.split('\n').map((text) => {
    const marker = text.match(/^ {0,3}(`{3,}|~{3,})/)?.[1];
    if (fence === undefined && marker) {
      fence = marker;
      return { text, fenced: true };
    }
    if (fence !== undefined) {
      if (marker?.startsWith(fence)) fence = undefined;
      return { text, fenced: true };
    }
    return { text, fenced: false };
  });
}

function headingLevel(line: Line): number {
  if (line.fenced) return 0;
  return line.text.match(/^(#{1,6}) /)?.[1]?.length ?? 0;
}

/** The text outside fenced code blocks. */
export function withoutCodeBlocks(markdown: string): string {
  return linesOf(markdown)
    .filter((line) => !line.fenced)
    .map((line) => line.text)
    .join('\n');
}

/**
 * The section that starts at the heading line `heading` (e.g. "## Providers")
 * and runs to the next heading of the same or a higher level. Throws when the
 * document has no such heading, so a moved section fails loudly.
 */
export function docSection(path: string, heading: string): string {
  const lines = linesOf(readDoc(path));
  const start = lines.findIndex((line) => !line.fenced && line.text === heading);
  if (start === -1) throw new Error(`${path} has no heading "${heading}"`);
  const level = headingLevel(lines[start] as Line);
  let end = start + 1;
  while (end < lines.length) {
    const next = headingLevel(lines[end] as Line);
    if (next > 0 && next <= level) break;
    end++;
  }
  return lines
    .slice(start, end)
    .map((line) => line.text)
    .join('\n');
}

/** Whitespace runs collapsed to one space, so a phrase is found across line breaks. */
export function flatten(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** The anchor GitHub gives a heading: plain text, lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  const plain = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a document's headings get (repeats numbered -1, -2, … as GitHub does). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of linesOf(markdown)) {
    if (headingLevel(line) === 0) continue;
    const slug = headingSlug(line.text.replace(/^#+ /, ''));
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
