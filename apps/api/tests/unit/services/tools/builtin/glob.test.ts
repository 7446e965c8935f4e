import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import path from 'node:path';
import {
  executeTool,
  getDefaultToolSettings,
  getTool,
  NotFoundError,
  ToolArgumentError,
} from '../../../../../src/services/tools';
import { runGlob } from '../../../../../src/services/tools/builtin/glob';
import { createTempTree, type TempTree } from '../../../../support/temp-tree';
import { createTestCallContext, createTestToolContext } from '../../../../support/tool-context';

let tree: TempTree;

beforeAll(() => {
  tree = createTempTree('glob', {
    'w/a.ts': '',
    'w/b.js': '',
    'w/src/index.ts': '',
    'w/src/view.tsx': '',
    'w/src/deep/er/most.ts': '',
    'w/src/.cache/c.ts': '',
    'w/.github/workflows/ci.yml': '',
    'w/.env': '',
    'w/docs/readme.md': '',
    'w/empty': { dir: true },
  });
});

afterAll(() => tree.remove());

const agent = (parameters: Record<string, unknown> = {}) =>
  createTestToolContext({
    mode: 'agent',
    workingDirectory: tree.at('w'),
    restrictToWorkingDirectory: true,
    parameters,
  });

describe('glob: patterns (Bun.Glob semantics)', () => {
  test('** crosses directories; results are sorted, relative to the working directory', async () => {
    const result = await runGlob({ pattern: '**/*.ts' }, agent());
    expect(result).toEqual({
      pattern: '**/*.ts',
      cwd: tree.at('w'),
      matches: ['a.ts', 'src/deep/er/most.ts', 'src/index.ts'],
      truncated: false,
    });
  });

  test('* stays in one directory', async () => {
    expect((await runGlob({ pattern: '*.ts' }, agent())).matches).toEqual(['a.ts']);
  });

  test('{a,b} alternatives, ? and [] classes', async () => {
    expect((await runGlob({ pattern: 'src/*.{ts,tsx}' }, agent())).matches).toEqual([
      'src/index.ts',
      'src/view.tsx',
    ]);
    expect((await runGlob({ pattern: '?.[tj]s' }, agent())).matches).toEqual(['a.ts', 'b.js']);
  });

  test('a leading ! negates the pattern', async () => {
    const result = await runGlob({ pattern: '!**/*.ts' }, agent());
    expect(result.matches).toEqual([
      'b.js',
      'docs',
      'docs/readme.md',
      'empty',
      'src',
      'src/deep',
      'src/deep/er',
      'src/view.tsx',
    ]);
  });

  test('directories match too (onlyFiles: false)', async () => {
    expect((await runGlob({ pattern: 'src/*' }, agent())).matches).toEqual([
      'src/deep',
      'src/index.ts',
      'src/view.tsx',
    ]);
  });

  test('dot files are skipped unless the pattern names them or includeDotfiles is on', async () => {
    expect((await runGlob({ pattern: '**/*.yml' }, agent())).matches).toEqual([]);
    expect((await runGlob({ pattern: '.github/**/*.yml' }, agent())).matches).toEqual([
      '.github/workflows/ci.yml',
    ]);
    expect((await runGlob({ pattern: '.*' }, agent())).matches).toEqual(['.env', '.github']);
    const withDots = await runGlob({ pattern: '**/*.ts' }, agent({ includeDotfiles: true }));
    expect(withDots.matches).toEqual([
      'a.ts',
      'src/.cache/c.ts',
      'src/deep/er/most.ts',
      'src/index.ts',
    ]);
  });

  test('patterns that would leave cwd are refused with a pointer to cwd', async () => {
    for (const pattern of ['../*', 'src/../../x', '/etc/*', '~/x']) {
      const error = await runGlob({ pattern }, agent()).catch((caught) => caught);
      expect(error).toBeInstanceOf(ToolArgumentError);
      expect(String(error.message)).toContain('cwd');
    }
  });
});

describe('glob: cwd and result paths', () => {
  test('results are re-anchored from cwd to the working directory', async () => {
    const result = await runGlob({ pattern: '**/*.ts', cwd: 'src' }, agent());
    expect(result.cwd).toBe('src');
    expect(result.matches).toEqual(['src/deep/er/most.ts', 'src/index.ts']);
  });

  test('the absolute setting returns absolute paths', async () => {
    const result = await runGlob({ pattern: '*.ts', cwd: 'src' }, agent({ absolute: true }));
    expect(result.matches).toEqual([tree.at('w/src/index.ts')]);
  });

  test('chat mode: no bound directory, absolute results, cwd defaults to the process directory', async () => {
    const chat = createTestToolContext({ workingDirectory: tree.at('w') });
    const explicit = await runGlob({ pattern: '*.ts', cwd: tree.at('w') }, chat);
    expect(explicit.matches).toEqual([tree.at('w/a.ts')]);
    const previous = process.cwd();
    process.chdir(tree.at('w/src'));
    try {
      const defaulted = await runGlob({ pattern: '*.tsx' }, chat);
      expect(defaulted.cwd).toBe(tree.at('w/src'));
      expect(defaulted.matches).toEqual([tree.at('w/src/view.tsx')]);
    } finally {
      process.chdir(previous);
    }
    await expect(runGlob({ pattern: '*', cwd: 'src' }, chat)).rejects.toBeInstanceOf(
      ToolArgumentError,
    );
  });

  test('a missing cwd is not_found, a file cwd is validation_failed', async () => {
    await expect(runGlob({ pattern: '*', cwd: 'missing' }, agent())).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(runGlob({ pattern: '*', cwd: 'a.ts' }, agent())).rejects.toBeInstanceOf(
      ToolArgumentError,
    );
  });
});

describe('glob: limits', () => {
  test('stops at maxResults and sets truncated with a reason', async () => {
    const result = await runGlob({ pattern: '**/*' }, agent({ maxResults: 3 }));
    expect(result.matches).toEqual(['a.ts', 'b.js', 'docs']);
    expect(result.truncated).toBe(true);
    expect(result.truncatedReason).toContain('maxResults');
  });

  test('exactly maxResults matches is not truncated', async () => {
    const result = await runGlob({ pattern: '**/*.ts' }, agent({ maxResults: 3 }));
    expect(result.matches.length).toBe(3);
    expect(result.truncated).toBe(false);
  });

  test('a walk over its entry limit ends and says so', async () => {
    const big = createTempTree('glob-big');
    try {
      for (let index = 0; index < 600; index++) big.add({ [`d${index % 7}/f${index}.txt`]: '' });
      const context = createTestToolContext({ mode: 'agent', workingDirectory: big.root });
      const result = await runGlob({ pattern: '**/*.md' }, context, {
        walkLimits: { maxEntries: 300 },
      });
      expect(result.matches).toEqual([]);
      expect(result.truncated).toBe(true);
      expect(result.truncatedReason).toContain('300 entries');
    } finally {
      big.remove();
    }
  });

  test('a walk past its time budget ends and says so', async () => {
    const result = await runGlob({ pattern: '**/*.nothing' }, agent(), { timeBudgetMs: -1 });
    expect(result.truncated).toBe(true);
    expect(result.truncatedReason).toContain('time budget');
  });

  test('a tree deeper than the depth limit says so', async () => {
    const deep = createTempTree('glob-deep');
    try {
      deep.add({ [`${Array.from({ length: 12 }, (_, index) => `l${index}`).join('/')}/x.ts`]: '' });
      const context = createTestToolContext({ mode: 'agent', workingDirectory: deep.root });
      const result = await runGlob({ pattern: '**/*.ts' }, context, {
        walkLimits: { maxDepth: 5 },
      });
      expect(result.truncated).toBe(true);
      expect(result.truncatedReason).toContain('5 levels');
      const full = await runGlob({ pattern: '**/*.ts' }, context);
      expect(full.matches).toEqual([
        path.posix.join(...Array.from({ length: 12 }, (_, i) => `l${i}`), 'x.ts'),
      ]);
    } finally {
      deep.remove();
    }
  });
});

describe('glob: registration', () => {
  test('settings defaults', () => {
    const tool = getTool('glob');
    if (!tool) throw new Error('glob is not registered');
    expect(getDefaultToolSettings(tool).parameters).toEqual({
      allowedPaths: [],
      deniedPaths: [],
      maxResults: 200,
      includeDotfiles: false,
      absolute: false,
    });
  });

  test('runs through executeTool; stored maxResults is clamped into 1–5000', async () => {
    const result = (await executeTool(
      'glob',
      { pattern: '**/*' },
      createTestCallContext({ mode: 'agent', workingDirectory: tree.at('w') }),
      { parameters: { maxResults: 0 } },
    )) as { matches: string[]; truncated: boolean };
    expect(result.matches).toEqual(['a.ts']);
    expect(result.truncated).toBe(true);
  });
});
