/**
 * docs/tool-system.md#tool-arguments for list_directory, glob and grep: wrong types, unknown names and
 * missing or blank required arguments are validation_failed errors naming the
 * argument; `null` means absent; nothing is ever substituted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { executeTool, ToolError } from '../../../../../src/services/tools';
import { createTempTree, type TempTree } from '../../../../support/temp-tree';
import { createTestCallContext } from '../../../../support/tool-context';

let tree: TempTree;

beforeAll(() => {
  tree = createTempTree('search-arguments', { 'w/a.ts': 'alpha\nAlpha\n', 'w/sub/b.ts': 'beta\n' });
});

afterAll(() => tree.remove());

const context = () => createTestCallContext({ mode: 'agent', workingDirectory: tree.at('w') });

async function rejection(name: string, args: unknown): Promise<ToolError> {
  try {
    await executeTool(name, args, context());
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error(`${name} accepted ${JSON.stringify(args)}`);
}

const cases: Array<[string, unknown, string]> = [
  ['list_directory', { path: 42 }, '"path"'],
  ['list_directory', {}, '"path"'],
  ['list_directory', { path: '' }, '"path"'],
  ['list_directory', { path: '   ' }, '"path"'],
  ['list_directory', { path: null }, '"path"'],
  ['list_directory', { path: '.', recursive: true }, '"recursive"'],
  ['list_directory', { path: 'x'.repeat(5000) }, '"path"'],
  ['list_directory', '{"path": "."}', 'JSON object'],
  ['glob', {}, '"pattern"'],
  ['glob', { pattern: ['*.ts'] }, '"pattern"'],
  ['glob', { pattern: '' }, '"pattern"'],
  ['glob', { pattern: '   ' }, '"pattern"'],
  ['glob', { pattern: '*', cwd: true }, '"cwd"'],
  ['glob', { pattern: '*', cwd: '' }, '"cwd"'],
  ['glob', { pattern: '*', cwd: ' ' }, '"cwd"'],
  ['glob', { pattern: '*', maxResults: 5 }, '"maxResults"'],
  ['grep', { path: '.' }, '"pattern"'],
  ['grep', { pattern: 'alpha' }, '"path"'],
  ['grep', { pattern: 'alpha', path: '  ' }, '"path"'],
  ['grep', { pattern: 5, path: '.' }, '"pattern"'],
  ['grep', { pattern: 'alpha', path: 42 }, '"path"'],
  ['grep', { pattern: 'alpha', path: '.', caseInsensitive: 'true' }, '"caseInsensitive"'],
  ['grep', { pattern: 'alpha', path: '.', caseInsensitive: 1 }, '"caseInsensitive"'],
  ['grep', { pattern: 'alpha', path: '.', glob: 7 }, '"glob"'],
  ['grep', { pattern: 'alpha', path: '.', glob: '' }, '"glob"'],
  ['grep', { pattern: 'alpha', path: '.', glob: '../*.ts' }, '"glob"'],
  ['grep', { pattern: 'alpha', path: '.', regex: true }, '"regex"'],
];

describe('docs/tool-system.md#tool-arguments argument rules', () => {
  for (const [name, args, named] of cases) {
    test(`${name} ${JSON.stringify(args).slice(0, 80)} → validation_failed naming ${named}`, async () => {
      const error = await rejection(name, args);
      expect(error.code).toBe('validation_failed');
      expect(error.message).toContain(named);
    });
  }

  test('wrong types say what was expected and what was received', async () => {
    const error = await rejection('grep', { pattern: 'a', path: '.', caseInsensitive: 'true' });
    expect(error.message).toContain('boolean');
    expect(error.message).toContain('"true"');
    const list = await rejection('list_directory', { path: 42 });
    expect(list.message).toContain('string');
    expect(list.message).toContain('42');
  });

  test('null is the same as absent', async () => {
    expect(await executeTool('glob', { pattern: '**/*.ts', cwd: null }, context())).toEqual(
      await executeTool('glob', { pattern: '**/*.ts' }, context()),
    );
    const withNulls = await executeTool(
      'grep',
      { pattern: 'alpha', path: '.', glob: null, caseInsensitive: null },
      context(),
    );
    expect(withNulls).toEqual(
      await executeTool('grep', { pattern: 'alpha', path: '.' }, context()),
    );
    expect((withNulls as { matches: unknown[] }).matches).toEqual([
      { file: 'a.ts', line: 1, text: 'alpha' },
    ]);
  });
});
