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

describe('walkTree: entries name their directory', () => {
  test('an entry that is not a link is its directory joined with its name; a link names no directory', async () => {
    const tree = createTempTree('walk-directory', {
      'top.txt': 'x',
      'src/a.ts': 'x',
      'src/deep/b.ts': 'x',
      'src/link.ts': { link: 'a.ts' },
      'linked-dir': { link: 'src/deep' },
    });
    try {
      const walk = walkTree({
        baseRealPath: tree.root,
        isAllowed: () => true,
        limits: { ...DEFAULT_WALK_LIMITS, deadline: Date.now() + 10_000 },
      });
      const entries = [];
      for await (const batch of walk.batches) entries.push(...batch);
      const plain = entries.filter((entry) => !entry.viaSymlink);
      expect(plain.map((entry) => entry.relativePath).sort()).toEqual([
        'src',
        'src/a.ts',
        'src/deep',
        'src/deep/b.ts',
        'top.txt',
      ]);
      for (const entry of plain) {
        expect(`${entry.realDirectory}/${entry.name}`).toBe(entry.realPath);
        expect(entry.relativePath.split('/').at(-1)).toBe(entry.name);
      }
      // The two entries of src/ share one directory string.
      const inSrc = plain.filter(
        (entry) =>
          entry.relativePath.startsWith('src/') && !entry.relativePath.startsWith('src/deep/'),
      );
      expect(inSrc).toHaveLength(2);
      expect(inSrc[0]?.realDirectory).toBe(tree.at('src'));
      const links = entries.filter((entry) => entry.viaSymlink);
      expect(links.map((entry) => [entry.name, entry.realDirectory, entry.realPath])).toEqual(
        expect.arrayContaining([
          ['link.ts', undefined, tree.at('src/a.ts')],
          ['linked-dir', undefined, tree.at('src/deep')],
        ]),
      );
      // The linked directory was walked already (as src/deep), so it is not walked twice.
      expect(entries.some((entry) => entry.relativePath.startsWith('linked-dir/'))).toBe(false);
      expect(walk.report.notes().join(' ')).toContain('already walked');
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

  test('agrees with comparing the names one by one, on many paths of awkward characters', () => {
    // The definition, written the slow way: split into names, compare name by name.
    const byNames = (left: string, right: string): number => {
      const a = left.split('/');
      const b = right.split('/');
      for (let index = 0; index < Math.min(a.length, b.length); index++) {
        const x = a[index] as string;
        const y = b[index] as string;
        if (x !== y) return x < y ? -1 : 1;
      }
      return a.length - b.length;
    };
    // Characters on both sides of "/" (0x2f) in code-unit order, a surrogate pair and a dot.
    const alphabet = ['-', '.', '/', '0', 'A', '_', 'a', '~', 'é', '😀'];
    let seed = 7;
    const random = (below: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % below;
    };
    const paths = Array.from({ length: 400 }, () =>
      Array.from({ length: 1 + random(8) }, () => alphabet[random(alphabet.length)]).join(''),
    );
    for (const left of paths.slice(0, 100)) {
      for (const right of paths) {
        expect(Math.sign(comparePaths(left, right))).toBe(Math.sign(byNames(left, right)));
      }
    }
  });
});
