/** Builds real directory trees (files, folders, symbolic links) in a temp directory for filesystem tests. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A file's content, `{ dir: true }` for an empty directory, or `{ link: target }` for a symlink. */
export type TreeNode = string | Uint8Array | { dir: true } | { link: string };

/**
 * The containment tree: a working directory with every kind of way out of it.
 *
 * root/
 *   w/  (the working directory)  a.txt, sub/b.txt, secret/key.txt,
 *       link-out-file -> ../outside/o.txt, link-out-dir -> ../outside,
 *       chain1 -> chain2 -> ../outside/o.txt, broken-out -> ../outside/missing.txt,
 *       link-secret -> secret
 *   w2/x.txt   (sibling-prefix trick)
 *   outside/o.txt
 */
export const CONTAINMENT_TREE: Readonly<Record<string, TreeNode>> = {
  'w/a.txt': 'alpha\n',
  'w/sub/b.txt': 'beta\n',
  'w/secret/key.txt': 'key\n',
  'w2/x.txt': 'x\n',
  'outside/o.txt': 'outside\n',
  'w/link-out-file': { link: '../outside/o.txt' },
  'w/link-out-dir': { link: '../outside' },
  'w/chain1': { link: 'chain2' },
  'w/chain2': { link: '../outside/o.txt' },
  'w/broken-out': { link: '../outside/missing.txt' },
  'w/link-secret': { link: 'secret' },
};

export interface TempTree {
  /** The temp directory's real path. */
  root: string;
  /** Absolute path of a "/"-separated path below the root. */
  at(relativePath: string): string;
  add(spec: Record<string, TreeNode>): void;
  remove(): void;
}

export function createTempTree(prefix: string, spec: Record<string, TreeNode> = {}): TempTree {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), `${prefix}-`)));
  const at = (relativePath: string) => path.join(root, ...relativePath.split('/'));
  const add = (entries: Record<string, TreeNode>) => {
    for (const [relativePath, node] of Object.entries(entries)) {
      const target = at(relativePath);
      if (typeof node === 'object' && 'dir' in node) {
        mkdirSync(target, { recursive: true });
        continue;
      }
      mkdirSync(path.dirname(target), { recursive: true });
      if (typeof node === 'object' && 'link' in node) symlinkSync(node.link, target);
      else writeFileSync(target, node);
    }
  };
  add(spec);
  return { root, at, add, remove: () => rmSync(root, { recursive: true, force: true }) };
}
