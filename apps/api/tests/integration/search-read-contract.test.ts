/**
 * docs/tools/filesystem.md#paths-and-the-working-directory, "path convention, both ways": every path grep and glob report,
 * passed to read_file in the same chat, reaches the same file — with a bound
 * working directory, without one, under containment with the search root
 * below the working directory, through a link inside it, and outside it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { executeTool } from '../../src/services/tools';
import type { GlobResult } from '../../src/services/tools/builtin/glob';
import type { GrepResult } from '../../src/services/tools/builtin/grep';
import type { ReadFileResult } from '../../src/services/tools/builtin/read-file';
import type { ToolCallContext } from '../../src/services/tools/types';
import { createTempTree, type TempTree } from '../support/temp-tree';
import { createTestCallContext } from '../support/tool-context';

let tree: TempTree;
let work: string;

beforeAll(() => {
  tree = createTempTree('search-read-contract', {
    'w/top.ts': 'export const marker = "top";\n',
    'w/packages/p1/src/index.ts': 'import x from "y";\nexport const marker = "p1 index";\n',
    'w/packages/p1/src/deep/util.ts': '\n\nexport const marker = "p1 util";\n',
    'w/packages/p2/main.ts': 'export const marker = "p2 main";\n',
    'w/packages/p2/readme.md': 'marker in markdown\n',
    'w/linked': { link: 'packages/p2' },
    'elsewhere/e.ts': 'export const marker = "elsewhere";\n',
  });
  work = tree.at('w');
});

afterAll(() => tree.remove());

function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

async function readBack(file: string, context: ToolCallContext, line?: number) {
  return (await executeTool(
    'read_file',
    line === undefined ? { path: file } : { path: file, startLine: line, maxLines: 1 },
    context,
  )) as ReadFileResult;
}

/** Runs grep and glob from `root` and checks every reported path against read_file. */
async function checkContract(
  context: ToolCallContext,
  root: string,
  expectedRealFiles: string[],
): Promise<{ grep: GrepResult; glob: GlobResult }> {
  const grep = (await executeTool(
    'grep',
    { pattern: 'marker', path: root },
    context,
  )) as GrepResult;
  expect(grep.matches.length).toBeGreaterThan(0);
  const grepped = new Set<string>();
  for (const match of grep.matches) {
    const read = await readBack(match.file, context, match.line);
    // cat -n style: the line number, a tab, the line.
    const [, number, text] = /^\s*(\d+)\t(.*)\n?$/.exec(read.content) ?? [];
    expect([Number(number), text]).toEqual([match.line, match.text]);
    grepped.add(read.sha256);
  }
  const glob = (await executeTool(
    'glob',
    { pattern: '**/*.{ts,md}', cwd: root },
    context,
  )) as GlobResult;
  const globbed = new Set<string>();
  for (const file of glob.matches) {
    const read = await readBack(file, context);
    globbed.add(read.sha256);
  }
  const expected = new Set(expectedRealFiles.map(sha256Of));
  expect(globbed).toEqual(expected);
  expect(grepped).toEqual(expected);
  return { grep, glob };
}

describe('every grep/glob result path reads the same file with read_file', () => {
  test('bound working directory, search from it: relative paths', async () => {
    const context = createTestCallContext({ mode: 'agent', workingDirectory: work });
    const { grep, glob } = await checkContract(context, '.', [
      tree.at('w/top.ts'),
      tree.at('w/packages/p1/src/index.ts'),
      tree.at('w/packages/p1/src/deep/util.ts'),
      tree.at('w/packages/p2/main.ts'),
      tree.at('w/packages/p2/readme.md'),
    ]);
    for (const file of [...grep.matches.map((match) => match.file), ...glob.matches]) {
      expect(path.isAbsolute(file)).toBe(false);
    }
  });

  test('containment, search root below the working directory: relative to the working directory', async () => {
    const context = createTestCallContext({
      mode: 'agent',
      workingDirectory: work,
      restrictToWorkingDirectory: true,
    });
    const { grep, glob } = await checkContract(context, 'packages/p1', [
      tree.at('w/packages/p1/src/index.ts'),
      tree.at('w/packages/p1/src/deep/util.ts'),
    ]);
    expect(glob.matches).toEqual(['packages/p1/src/deep/util.ts', 'packages/p1/src/index.ts']);
    expect(grep.matches.map((match) => match.file)).toEqual([
      'packages/p1/src/deep/util.ts',
      'packages/p1/src/index.ts',
    ]);
  });

  test('a single-file grep reports the file relative to the working directory', async () => {
    const context = createTestCallContext({
      mode: 'agent',
      workingDirectory: work,
      restrictToWorkingDirectory: true,
    });
    const grep = (await executeTool(
      'grep',
      { pattern: 'marker', path: `${work}/packages/p2/main.ts` },
      context,
    )) as GrepResult;
    expect(grep.path).toBe(`${work}/packages/p2/main.ts`);
    expect(grep.matches.map((match) => match.file)).toEqual(['packages/p2/main.ts']);
    expect((await readBack('packages/p2/main.ts', context)).sha256).toBe(
      sha256Of(tree.at('w/packages/p2/main.ts')),
    );
  });

  test('through a link inside the working directory', async () => {
    const context = createTestCallContext({
      mode: 'agent',
      workingDirectory: work,
      restrictToWorkingDirectory: true,
    });
    const { glob } = await checkContract(context, 'linked', [
      tree.at('w/packages/p2/main.ts'),
      tree.at('w/packages/p2/readme.md'),
    ]);
    expect(glob.matches).toEqual(['linked/main.ts', 'linked/readme.md']);
  });

  test('no working directory (chat mode): absolute paths', async () => {
    const context = createTestCallContext({ mode: 'chat' });
    const { grep, glob } = await checkContract(context, tree.at('w/packages'), [
      tree.at('w/packages/p1/src/index.ts'),
      tree.at('w/packages/p1/src/deep/util.ts'),
      tree.at('w/packages/p2/main.ts'),
      tree.at('w/packages/p2/readme.md'),
    ]);
    for (const file of [...grep.matches.map((match) => match.file), ...glob.matches]) {
      expect(path.isAbsolute(file)).toBe(true);
      expect(realpathSync(file).startsWith(work)).toBe(true);
    }
  });

  test('a search outside the working directory (containment off): absolute paths', async () => {
    const context = createTestCallContext({ mode: 'agent', workingDirectory: work });
    const { glob } = await checkContract(context, tree.at('elsewhere'), [
      tree.at('elsewhere/e.ts'),
    ]);
    expect(glob.matches).toEqual([tree.at('elsewhere/e.ts')]);
  });

  test('glob with the absolute setting: absolute paths read the same files', async () => {
    const context = createTestCallContext({ mode: 'agent', workingDirectory: work });
    const glob = (await executeTool('glob', { pattern: '**/*.ts', cwd: 'packages' }, context, {
      parameters: { absolute: true },
    })) as GlobResult;
    expect(glob.matches.length).toBe(3);
    for (const file of glob.matches) {
      expect(path.isAbsolute(file)).toBe(true);
      expect(statSync(file).isFile()).toBe(true);
      expect((await readBack(file, context)).sha256).toBe(sha256Of(file));
    }
  });
});
