/**
 * Every `npm run <script>` the README and docs/ name exists, the README names
 * the two commands, and every path its Layout names is there.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listDocs, REPO_ROOT, readDoc } from '../support/markdown-docs';

const repoRoot = REPO_ROOT;
const readme = readDoc('README.md');
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: object }).scripts,
);

describe('README', () => {
  test('every npm script it and docs/ name is defined in package.json', () => {
    const text = listDocs().map(readDoc).join('\n');
    const named = [...text.matchAll(/npm run ([a-z][\w:-]*)/g)].map((match) => match[1]);
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((name) => !scripts.includes(name as string))).toEqual([]);
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });

  test('every path in the Layout block exists', () => {
    const section = readme.slice(readme.indexOf('## Layout'));
    const block = section.match(/```\n([\s\S]*?)```/)?.[1] ?? '';
    const parents: string[] = [];
    const paths: string[] = [];
    for (const line of block.split('\n')) {
      const match = line.match(/^( *)(\S+?)(\/)?(\s|$)/);
      if (!match?.[2] || match[2].includes(',')) continue;
      const depth = (match[1] ?? '').length / 2;
      // Continuation lines of a description are deeply indented prose, not entries.
      if (depth > parents.length) continue;
      parents.length = depth;
      const full = [...parents, match[2]].join('/');
      if (match[3]) parents.push(match[2]);
      paths.push(full);
    }
    expect(paths).toContain('apps/api/src/services/tools');
    expect(paths.filter((path) => !existsSync(join(repoRoot, path)))).toEqual([]);
  });
});
