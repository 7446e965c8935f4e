/**
 * The containment suite for the walking tools (list_directory, glob's cwd,
 * grep's path): every way out of the working directory is refused, and a walk
 * never reports anything outside it or inside a denied path, ends on link
 * loops and says so. Run twice: agent-mode containment, and chat mode bound by
 * allowedPaths/deniedPaths.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { runGlob } from '../../../../../src/services/tools/builtin/glob';
import { runGrep } from '../../../../../src/services/tools/builtin/grep';
import { listDirectory } from '../../../../../src/services/tools/builtin/list-directory';
import { ToolError } from '../../../../../src/services/tools/errors';
import {
  createPathFilter,
  resolveAndValidatePath,
} from '../../../../../src/services/tools/path-policy';
import type { ToolContext } from '../../../../../src/services/tools/types';
import { createTempTree, type TempTree } from '../../../../support/temp-tree';
import { createTestToolContext } from '../../../../support/tool-context';

let tree: TempTree;
let work: string;

beforeAll(() => {
  tree = createTempTree('search-containment', {
    'w/a.txt': 'needle a\n',
    'w/sub/b.txt': 'needle b\n',
    'w/secret/key.txt': 'needle secret\n',
    'w/link-out-file': { link: '../outside/o.txt' },
    'w/link-out-dir': { link: '../outside' },
    'w/link-in-file': { link: 'a.txt' },
    'w/link-in-dir': { link: 'sub' },
    'w/chain1': { link: 'chain2' },
    'w/chain2': { link: '../outside' },
    'w/sub/relative-out': { link: '../../outside/o.txt' },
    'w/broken-in': { link: 'missing-file' },
    'w/broken-out': { link: '../outside/missing' },
    'w/link-secret': { link: 'secret' },
    'w/loop/up': { link: '..' },
    'w/loop/self': { link: '.' },
    'w/cycle1': { link: 'cycle2' },
    'w/cycle2': { link: 'cycle1' },
    'w2/x.txt': 'needle sibling\n',
    'outside/o.txt': 'needle outside\n',
    'outside/deeper/d.txt': 'needle deeper\n',
  });
  work = tree.at('w');
});

afterAll(() => tree.remove());

const deniedSecret = () => [{ path: tree.at('w/secret'), enabled: true }];

const contexts: Array<[string, () => ToolContext]> = [
  [
    'agent mode with containment',
    () =>
      createTestToolContext({
        mode: 'agent',
        workingDirectory: work,
        restrictToWorkingDirectory: true,
        parameters: { deniedPaths: deniedSecret(), includeDotfiles: true },
      }),
  ],
  [
    'chat mode bound by allowedPaths/deniedPaths',
    () =>
      createTestToolContext({
        parameters: {
          allowedPaths: [{ path: work, enabled: true }],
          deniedPaths: deniedSecret(),
          includeDotfiles: true,
        },
      }),
  ],
];

type RootCall = (root: string, context: ToolContext) => Promise<unknown>;
const tools: Array<[string, RootCall]> = [
  ['list_directory', (root, context) => listDirectory({ path: root }, context)],
  ['glob cwd', (root, context) => runGlob({ pattern: '**/*', cwd: root }, context)],
  ['grep path', (root, context) => runGrep({ pattern: 'needle', path: root }, context)],
];

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'accepted';
  } catch (error) {
    if (error instanceof ToolError) return error.code;
    throw error;
  }
}

/** Everything a result says, as one string, to check nothing from outside leaks into it. */
function textOf(result: unknown): string {
  return JSON.stringify(result);
}

for (const [contextLabel, makeContext] of contexts) {
  describe(`containment (${contextLabel})`, () => {
    for (const [toolLabel, call] of tools) {
      test(`${toolLabel}: every way out is permission_denied`, async () => {
        const ways = [
          `${work}/../outside`,
          tree.at('outside'),
          tree.at('w2'),
          `${work}/link-out-dir`,
          `${work}/link-out-dir/deeper`,
          `${work}/chain1`,
          `${work}/broken-out`,
          `${work}/secret`,
          `${work}/link-secret`,
          '/',
        ];
        for (const way of ways) {
          expect([way, await codeOf(call(way, makeContext()))]).toEqual([way, 'permission_denied']);
        }
      });

      test(`${toolLabel}: NUL bytes, over-long paths and a link loop are validation_failed`, async () => {
        for (const bad of [
          `${work}/a\0b`,
          `${work}/${'x'.repeat(300)}`,
          `${work}/${'ab/'.repeat(1400)}`,
        ]) {
          expect(await codeOf(call(bad, makeContext()))).toBe('validation_failed');
        }
        expect(await codeOf(call(`${work}/cycle1`, makeContext()))).toBe('validation_failed');
      });

      test(`${toolLabel}: a broken link inside is not_found`, async () => {
        expect(await codeOf(call(`${work}/broken-in`, makeContext()))).toBe('not_found');
      });
    }

    test('the walk filter agrees with resolveAndValidatePath on real paths, normal or not', async () => {
      const filter = await createPathFilter(makeContext());
      const candidates = [
        work,
        `${work}/a.txt`,
        `${work}/sub/b.txt`,
        `${work}/secret`,
        `${work}/secret/key.txt`,
        `${work}/secretive`,
        tree.at('w2/x.txt'),
        tree.at('outside/o.txt'),
        tree.root,
        '/',
        `${work}/`,
        `${work}/./a.txt`,
        `${work}/sub/../secret/key.txt`,
        `${work}//sub/b.txt`,
      ];
      for (const candidate of candidates) {
        const accepted = await resolveAndValidatePath(candidate, makeContext()).then(
          () => true,
          () => false,
        );
        expect([candidate, filter(candidate)]).toEqual([candidate, accepted]);
      }
    });

    test('grep: a file link out is refused as a root', async () => {
      for (const file of [`${work}/link-out-file`, `${work}/sub/relative-out`]) {
        expect(await codeOf(runGrep({ pattern: 'x', path: file }, makeContext()))).toBe(
          'permission_denied',
        );
      }
    });

    test('grep walk: nothing outside or denied is read; links loops end and are reported', async () => {
      const result = await runGrep({ pattern: 'needle', path: work }, makeContext());
      const text = textOf(result.matches);
      expect(text).not.toContain('outside');
      expect(text).not.toContain('sibling');
      expect(text).not.toContain('secret');
      expect(result.matches.map((match) => match.text).sort()).toEqual([
        'needle a',
        'needle a',
        'needle b',
      ]);
      expect(result.notes?.join(' ')).toContain('loop');
      expect(result.notes?.join(' ')).toContain('outside the paths this chat may access');
    });

    test('glob walk: nothing outside or denied is listed; loops end and are reported', async () => {
      const result = await runGlob({ pattern: '**/*', cwd: work }, makeContext());
      const text = textOf(result.matches);
      expect(text).not.toContain('outside');
      expect(text).not.toContain('secret');
      expect(text).not.toContain('broken');
      expect(result.matches.filter((match) => match.endsWith('b.txt'))).toHaveLength(1);
      expect(result.notes?.join(' ')).toContain('loop');
      expect(result.truncated).toBe(false);
    });

    test('list_directory: links are listed as links, denied entries are hidden', async () => {
      const result = await listDirectory({ path: work }, makeContext());
      const names = result.entries.map((entry) => entry.name);
      expect(names).toContain('link-out-dir');
      expect(result.entries.find((entry) => entry.name === 'link-out-dir')?.type).toBe('symlink');
      expect(names).not.toContain('secret');
    });
  });
}

describe('containment with relative arguments (agent mode)', () => {
  const context = () =>
    createTestToolContext({
      mode: 'agent',
      workingDirectory: work,
      restrictToWorkingDirectory: true,
    });

  for (const [toolLabel, call] of tools) {
    test(`${toolLabel}: ../, sibling prefix, links and chains out are refused`, async () => {
      for (const way of [
        '..',
        '../outside',
        '../w2',
        'sub/../../outside',
        'link-out-dir',
        'chain1',
      ]) {
        expect([way, await codeOf(call(way, context()))]).toEqual([way, 'permission_denied']);
      }
    });

    test(`${toolLabel}: a link that stays inside is followed`, async () => {
      expect(await codeOf(call('link-in-dir', context()))).toBe('accepted');
      expect(await codeOf(call('loop/up', context()))).toBe('accepted');
    });
  }

  test('a walk rooted at a link inside reports paths through the link', async () => {
    const result = await runGrep({ pattern: 'needle', path: 'link-in-dir' }, context());
    expect(result.matches).toEqual([{ file: 'link-in-dir/b.txt', line: 1, text: 'needle b' }]);
  });

  test('with containment off, a link out is followed (no rule stops it)', async () => {
    const open = createTestToolContext({ mode: 'agent', workingDirectory: work });
    const result = await runGrep({ pattern: 'needle', path: 'link-out-dir' }, open);
    expect(result.matches.map((match) => match.file)).toEqual([
      'link-out-dir/deeper/d.txt',
      'link-out-dir/o.txt',
    ]);
  });
});
