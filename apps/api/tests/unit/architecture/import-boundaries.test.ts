/**
 * The dependency rules of the layers, checked on the source: built-in tools
 * and provider adapters never reach the HTTP routes or the database, not even
 * through another module or a type-only import; the database layer reaches no
 * service; and the shared contracts import nothing from the API.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(import.meta.dir, '../../../../..');
const API_SRC = path.join(REPO, 'apps/api/src');
const SHARED_SRC = path.join(REPO, 'apps/shared/src');

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (statSync(full).isDirectory()) return filesUnder(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

const SPECIFIER =
  /(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\s)import\s*\(?\s*['"]([^'"]+)['"]/gm;

/** Every specifier a file imports or re-exports, type-only ones included. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].map((match) => (match[1] ?? match[2]) as string);
}

function resolveRelative(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return undefined;
}

/** The files `start` reaches through relative imports, with the chain that reached each. */
function reachable(start: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[start, [start]]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const specifier of specifiersOf(file)) {
      const target = resolveRelative(file, specifier);
      if (!target || chains.has(target)) continue;
      chains.set(target, [...(chains.get(file) ?? []), target]);
      queue.push(target);
    }
  }
  return chains;
}

const relative = (file: string) => path.relative(REPO, file);

function forbiddenReaches(roots: string[], forbidden: string[]): string[] {
  const found: string[] = [];
  for (const root of roots) {
    for (const [file, chain] of reachable(root)) {
      if (forbidden.some((directory) => file.startsWith(`${directory}${path.sep}`)))
        found.push(chain.map(relative).join(' → '));
    }
  }
  return found;
}

describe('import boundaries', () => {
  const forbidden = [path.join(API_SRC, 'routes'), path.join(API_SRC, 'db')];

  test('the checker sees imports (it finds the database below the tool settings repository)', () => {
    const repository = path.join(API_SRC, 'services/tools/tool-settings-repository.ts');
    expect(forbiddenReaches([repository], forbidden).length).toBeGreaterThan(0);
  });

  test('built-in tools reach neither the routes nor the database', () => {
    const builtins = filesUnder(path.join(API_SRC, 'services/tools/builtin'));
    expect(builtins.length).toBeGreaterThan(5);
    expect(forbiddenReaches(builtins, forbidden)).toEqual([]);
  });

  test('provider adapters reach neither the routes nor the database', () => {
    const adapters = filesUnder(path.join(API_SRC, 'services/providers'));
    expect(adapters.length).toBeGreaterThan(10);
    expect(forbiddenReaches(adapters, forbidden)).toEqual([]);
  });

  test('the database layer reaches no service (tools, chat, providers)', () => {
    const databaseFiles = filesUnder(path.join(API_SRC, 'db'));
    expect(forbiddenReaches(databaseFiles, [path.join(API_SRC, 'services')])).toEqual([]);
  });

  test('the shared contracts import nothing from the API', () => {
    const offending = filesUnder(SHARED_SRC).flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => {
          const target = resolveRelative(file, specifier);
          return (
            specifier.startsWith('@mango/api') ||
            (target !== undefined && !target.startsWith(`${SHARED_SRC}${path.sep}`))
          );
        })
        .map((specifier) => `${relative(file)} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });
});
