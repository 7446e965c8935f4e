/**
 * What README.md and docs/ point at must exist: every repository path in
 * backticks, every relative link and its #anchor, every npm script, every route
 * written as `METHOD /api/…`, and the variables of the configuration table.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import {
  docSection,
  headingAnchors,
  listDocs,
  REPO_ROOT,
  readDoc,
  withoutCodeBlocks,
} from '../support/markdown-docs';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-databases';

const docs = listDocs();
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: object })
    .scripts,
);

/** What the repository has at its top level: a backticked token starting with one is a repository path. */
const topLevel = new Set(
  readdirSync(REPO_ROOT).filter((name) => !['node_modules', '.git', 'data'].includes(name)),
);

function backticked(markdown: string): string[] {
  return [...withoutCodeBlocks(markdown).matchAll(/`([^`\n]+)`/g)].map(
    (match) => match[1] as string,
  );
}

function isRepositoryPath(token: string): boolean {
  // Placeholders, globs, ellipses and commands are not paths.
  if (/[\s*<>{}…$]/.test(token)) return false;
  return topLevel.has(token.split('/')[0] as string);
}

describe('docs: paths and links', () => {
  test('there are docs to check', () => {
    expect(docs).toContain('README.md');
    expect(docs).toContain('docs/architecture.md');
    expect(docs.length).toBeGreaterThan(8);
  });

  test('every repository path in backticks exists', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const doc of docs) {
      for (const token of backticked(readDoc(doc)).filter(isRepositoryPath)) {
        checked++;
        if (!existsSync(join(REPO_ROOT, token))) missing.push(`${doc}: ${token}`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  test('every docs/… reference in the source reaches a file, and its #anchor a heading there', () => {
    const sources = ['apps/api/src', 'apps/shared/src', 'bench'].flatMap((root) =>
      [...new Bun.Glob('**/*.ts').scanSync(join(REPO_ROOT, root))].map((file) => join(root, file)),
    );
    const cited: string[] = [];
    const broken: string[] = [];
    for (const source of sources) {
      const text = readFileSync(join(REPO_ROOT, source), 'utf8');
      expect(text).not.toContain('SPEC §');
      for (const [target] of text.matchAll(/(?:docs\/[\w./-]+|README)\.md(?:#[\w-]+)?/g)) {
        cited.push(target);
        const [path = '', anchor] = target.split('#');
        if (!existsSync(join(REPO_ROOT, path))) broken.push(`${source}: ${target} (no such file)`);
        else if (anchor !== undefined && !headingAnchors(readDoc(path)).has(anchor))
          broken.push(`${source}: ${target} (no heading #${anchor} in ${path})`);
      }
    }
    expect(cited.length).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  test('every relative link reaches a file, and its #anchor a heading there', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const doc of docs) {
      const links = withoutCodeBlocks(readDoc(doc)).matchAll(/\]\(([^)\s]+)\)/g);
      for (const [, target] of links) {
        if (!target || /^[a-z]+:/.test(target)) continue;
        checked++;
        const [file = '', anchor] = target.split('#');
        const path = file === '' ? doc : normalize(join(dirname(doc), file));
        if (!existsSync(join(REPO_ROOT, path))) {
          broken.push(`${doc}: ${target} (no ${path})`);
          continue;
        }
        if (anchor !== undefined && !headingAnchors(readDoc(path)).has(anchor))
          broken.push(`${doc}: ${target} (no heading #${anchor} in ${path})`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });
});

describe('docs: commands', () => {
  test('every npm script they name is defined in package.json', () => {
    const unknown: string[] = [];
    for (const doc of docs) {
      const text = readDoc(doc);
      for (const [, name] of text.matchAll(/\bnpm run ([a-z][\w:-]*)/g))
        if (!scripts.includes(name as string)) unknown.push(`${doc}: npm run ${name}`);
      for (const [, name] of text.matchAll(/\bnpm (start|test)\b/g))
        if (!scripts.includes(name as string)) unknown.push(`${doc}: npm ${name}`);
    }
    expect(unknown).toEqual([]);
  });
});

describe('docs: the configuration table', () => {
  /** Every variable the configuration code reads (`env.X`, or a name it looks up by string). */
  function variablesReadByCode(): string[] {
    const names = new Set<string>();
    for (const file of [
      'apps/api/src/config.ts',
      'apps/api/src/services/providers/provider-config.ts',
      'apps/api/src/services/providers/image-model-registry.ts',
    ]) {
      const source = readDoc(file);
      for (const [, name] of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g))
        names.add(name as string);
      for (const [, name] of source.matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g))
        names.add(name as string);
    }
    return [...names].sort();
  }

  test('lists exactly the variables the server reads', () => {
    const table = docSection('README.md', '## Configuration');
    const listed = new Set<string>();
    for (const [, cell] of table.matchAll(/^\| ([^|]+)\|/gm))
      for (const [, name] of (cell as string).matchAll(/`([A-Z][A-Z0-9_]*)`/g))
        listed.add(name as string);
    const read = variablesReadByCode();
    expect(read.length).toBeGreaterThan(10);
    expect([...listed].sort()).toEqual(read);
  });
});

describe('docs: routes', () => {
  let testDatabase: TestDatabase;
  let app: TestApp;
  let user: TestUser;
  let documented: Set<string>;

  const METHODS = 'GET|POST|PUT|PATCH|DELETE';
  /** `GET /api/chats/:id` and `/api/chats/{id}` alike become `GET /api/chats/{}`. */
  const routeKey = (method: string, path: string) =>
    `${method} ${path.replace(/:[A-Za-z]+/g, '{}').replace(/\{[^}]+\}/g, '{}')}`;

  beforeAll(async () => {
    testDatabase = await createTestDatabase('sqlite');
    app = startTestApp(testDatabase.database);
    user = await app.signUp();
    const response = await app.fetch('/api/openapi', { user });
    const document = (await response.json()) as { paths: Record<string, object> };
    documented = new Set(
      Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => routeKey(method.toUpperCase(), path)),
      ),
    );
  }, 30_000);
  afterAll(async () => {
    await app?.stop();
    await testDatabase?.dispose();
  });

  test('every METHOD /api/… they name is a route of the app', async () => {
    const named = new Map<string, string>();
    const pattern = new RegExp(
      `\\b((?:${METHODS})(?:/(?:${METHODS}))*) (/api/[^\\s\`'"),;?]*)`,
      'g',
    );
    for (const doc of docs) {
      for (const [, methods, rawPath] of readDoc(doc).matchAll(pattern)) {
        const path = (rawPath as string).replace(/[.:]+$/, '');
        for (const method of (methods as string).split('/')) named.set(routeKey(method, path), doc);
      }
    }
    expect(named.size).toBeGreaterThan(15);
    const missing: string[] = [];
    for (const [key, doc] of named) {
      if (documented.has(key)) continue;
      // Routes the document leaves out (itself, its page) must still answer.
      const [method, path] = key.split(' ') as [string, string];
      const status = path.includes('{}') ? 404 : (await app.fetch(path, { method, user })).status;
      if (status === 404) missing.push(`${doc}: ${key}`);
    }
    expect(missing).toEqual([]);
  });
});
