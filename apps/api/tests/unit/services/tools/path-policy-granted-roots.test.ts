/**
 * The granted-roots rule of the path policy (docs/tools/filesystem.md#the-path-policy): with
 * `grantedRoots` in the context, every path must lie inside one of them, on
 * the real path (a link out of a root is refused, a link into one from
 * outside is judged where it points), and walks see the same rule.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { PermissionDeniedError } from '../../../../src/services/tools/errors';
import {
  createPathFilter,
  resolveAndValidatePath,
} from '../../../../src/services/tools/path-policy';
import { createTempTree } from '../../../support/temp-tree';

const tree = createTempTree('mango-granted-roots-policy', {
  'root/a.txt': 'a',
  'root/sub/b.txt': 'b',
  'root-sibling/c.txt': 'c',
  'outside/d.txt': 'd',
  'root/link-out': { link: '../outside/d.txt' },
  'outside/link-in': { link: '../root/a.txt' },
});
afterAll(() => tree.remove());

const chat = (grantedRoots?: readonly string[]) => ({
  mode: 'chat' as const,
  restrictToWorkingDirectory: false,
  parameters: {},
  ...(grantedRoots ? { grantedRoots } : {}),
});

async function ruleOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PermissionDeniedError) return error.details?.rule;
    throw error;
  }
  return undefined;
}

describe('granted roots', () => {
  const granted = chat([tree.at('root')]);

  test('inside a root passes; beside it (a sibling prefix) and outside are refused', async () => {
    expect((await resolveAndValidatePath(tree.at('root/sub/b.txt'), granted)).exists).toBe(true);
    expect(await ruleOf(resolveAndValidatePath(tree.at('root-sibling/c.txt'), granted))).toBe(
      'grantedRoots',
    );
    expect(await ruleOf(resolveAndValidatePath('/etc/hostname', granted))).toBe('grantedRoots');
  });

  test('the real path decides: a link out of the root is refused, a link into it passes', async () => {
    expect(await ruleOf(resolveAndValidatePath(tree.at('root/link-out'), granted))).toBe(
      'grantedRoots',
    );
    const linkIn = await resolveAndValidatePath(tree.at('outside/link-in'), granted);
    expect(linkIn.realPath).toBe(tree.at('root/a.txt'));
  });

  test('no roots: nothing is reachable; no grantedRoots at all (an admin): no such rule', async () => {
    expect(await ruleOf(resolveAndValidatePath(tree.at('root/a.txt'), chat([])))).toBe(
      'grantedRoots',
    );
    expect((await resolveAndValidatePath('/etc', chat())).exists).toBe(true);
  });

  test('walks see the same rule', async () => {
    const filter = await createPathFilter(granted);
    expect(filter(tree.at('root/sub/b.txt'))).toBe(true);
    expect(filter(tree.at('outside/d.txt'))).toBe(false);
    expect(filter(tree.at('root-sibling'))).toBe(false);
    expect(filter.allowsEverythingBelow(tree.at('root'))).toBe(true);
    // A directory above the root holds paths outside it.
    expect(filter.allowsEverythingBelow(tree.root)).toBe(false);
  });
});
