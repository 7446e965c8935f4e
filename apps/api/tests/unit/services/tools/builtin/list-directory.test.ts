import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { execFileSync } from 'node:child_process';
import {
  executeTool,
  getDefaultToolSettings,
  getTool,
  mergeToolSettings,
  NotFoundError,
  ToolArgumentError,
  ToolParameterError,
} from '../../../../../src/services/tools';
import { listDirectory } from '../../../../../src/services/tools/builtin/list-directory';
import { createTempTree, type TempTree } from '../../../../support/temp-tree';
import { createTestCallContext, createTestToolContext } from '../../../../support/tool-context';

let tree: TempTree;

beforeAll(() => {
  tree = createTempTree('list-directory', {
    'w/b.txt': 'b',
    'w/a.txt': 'a',
    'w/.hidden': 'h',
    'w/Z-upper.txt': 'z',
    'w/sub/inner.txt': 'i',
    'w/link-to-a': { link: 'a.txt' },
    'w/link-out': { link: '../outside' },
    'w/secret/key.txt': 'k',
    'w/many/.keep': '',
    'outside/o.txt': 'o',
  });
  for (let index = 0; index < 30; index++)
    tree.add({ [`w/many/f${String(index).padStart(2, '0')}`]: '' });
  execFileSync('mkfifo', [tree.at('w/fifo')]);
});

afterAll(() => tree.remove());

const agent = (parameters: Record<string, unknown> = {}) =>
  createTestToolContext({
    mode: 'agent',
    workingDirectory: tree.at('w'),
    restrictToWorkingDirectory: true,
    parameters,
  });

describe('list_directory', () => {
  test('entries sorted by name with their types; links are not followed', async () => {
    const result = await listDirectory({ path: '.' }, agent());
    expect(result.path).toBe('.');
    expect(result.truncated).toBe(false);
    expect(result.entries).toEqual([
      { name: '.hidden', type: 'file' },
      { name: 'Z-upper.txt', type: 'file' },
      { name: 'a.txt', type: 'file' },
      { name: 'b.txt', type: 'file' },
      { name: 'fifo', type: 'other' },
      { name: 'link-out', type: 'symlink' },
      { name: 'link-to-a', type: 'symlink' },
      { name: 'many', type: 'directory' },
      { name: 'secret', type: 'directory' },
      { name: 'sub', type: 'directory' },
    ]);
  });

  test('an absolute path works and is echoed as received', async () => {
    const result = await listDirectory({ path: tree.at('w/sub') }, agent());
    expect(result).toEqual({
      path: tree.at('w/sub'),
      entries: [{ name: 'inner.txt', type: 'file' }],
      truncated: false,
    });
  });

  test('a directory larger than maxEntries is cut and says so', async () => {
    const result = await listDirectory({ path: 'many' }, agent({ maxEntries: 10 }));
    expect(result.entries.length).toBe(10);
    expect(result.entries[0]?.name).toBe('.keep');
    expect(result.truncated).toBe(true);
    expect(result.totalEntries).toBe(31);
    const exact = await listDirectory({ path: 'many' }, agent({ maxEntries: 31 }));
    expect(exact.truncated).toBe(false);
  });

  test('a denied sub-directory is not shown', async () => {
    const result = await listDirectory(
      { path: '.' },
      agent({ deniedPaths: [{ path: tree.at('w/secret'), enabled: true }] }),
    );
    expect(result.entries.map((entry) => entry.name)).not.toContain('secret');
  });

  test('a file, a missing path and a FIFO get errors that say what to do', async () => {
    await expect(listDirectory({ path: 'a.txt' }, agent())).rejects.toBeInstanceOf(
      ToolArgumentError,
    );
    await expect(listDirectory({ path: 'a.txt' }, agent())).rejects.toThrow('read_file');
    await expect(listDirectory({ path: 'nope' }, agent())).rejects.toBeInstanceOf(NotFoundError);
    await expect(listDirectory({ path: 'fifo' }, agent())).rejects.toBeInstanceOf(
      ToolArgumentError,
    );
  });

  test('chat mode needs an explicit absolute path', async () => {
    const chat = createTestToolContext({ workingDirectory: tree.at('w') });
    await expect(listDirectory({ path: '.' }, chat)).rejects.toBeInstanceOf(ToolArgumentError);
    const result = await listDirectory({ path: tree.at('w/sub') }, chat);
    expect(result.entries).toEqual([{ name: 'inner.txt', type: 'file' }]);
  });

  test('runs through executeTool with stored settings coerced', async () => {
    const result = (await executeTool(
      'list_directory',
      { path: 'many' },
      createTestCallContext({ mode: 'agent', workingDirectory: tree.at('w') }),
      { parameters: { maxEntries: 'not a number' } },
    )) as { entries: unknown[]; truncated: boolean };
    expect(result.entries.length).toBe(31);
    expect(result.truncated).toBe(false);
  });

  test('settings: defaults and strict validation of updates', () => {
    const tool = getTool('list_directory');
    if (!tool) throw new Error('list_directory is not registered');
    expect(getDefaultToolSettings(tool).parameters).toEqual({
      allowedPaths: [],
      deniedPaths: [],
      maxEntries: 1000,
    });
    expect(
      mergeToolSettings(tool, null, { parameters: { maxEntries: 5 } }).parameters.maxEntries,
    ).toBe(5);
    expect(() => mergeToolSettings(tool, null, { parameters: { maxEntries: 0 } })).toThrow(
      ToolParameterError,
    );
  });
});
