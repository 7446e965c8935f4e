import { describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import {
  comparePaths,
  DEFAULT_WALK_LIMITS,
  walkTree,
} from '../../../../../src/services/tools/fs/walk-tree';
import { createTempTree } from '../../../../support/temp-tree';

async function walkedPaths(root: string, order?: 'name' | 'directory'): Promise<string[]> {
  const walk = walkTree({
    baseRealPath: root,
    isAllowed: () => true,
    limits: { ...DEFAULT_WALK_LIMITS, deadline: Date.now() + 10_000 },
    ...(order ? { order } : {}),
  });
  const paths: string[] = [];
  for await (const batch of walk.batches) for (const entry of batch) paths.push(entry.relativePath);
  return paths;
}

describe('walkTree: the order within a directory', () => {
  test('names sorted by default; the file system’s own order with order: directory', async () => {
    const tree = createTempTree(
      'walk-order',
      Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`n${index}.txt`, 'x'])),
    );
    try {
      expect(await walkedPaths(tree.root)).toEqual(readdirSync(tree.root).sort());
      expect(await walkedPaths(tree.root, 'name')).toEqual(readdirSync(tree.root).sort());
      expect(await walkedPaths(tree.root, 'directory')).toEqual(readdirSync(tree.root));
    } finally {
      tree.remove();
    }
  });
});

describe('comparePaths: the order grep answers in', () => {
  test('segment by segment, as a walk with names sorted visits them', () => {
    // "-" sorts before "/" as a character, but "a" is a whole name that sorts before "a-c".
    expect(['a-c/x', 'a/b', 'B', 'a', 'a/b/c'].sort(comparePaths)).toEqual([
      'B',
      'a',
      'a/b',
      'a/b/c',
      'a-c/x',
    ]);
    expect(comparePaths('../w/x.ts', '../w/x.ts')).toBe(0);
  });
});
