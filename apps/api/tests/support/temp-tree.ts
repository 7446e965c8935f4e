/** Builds real directory trees (files, folders, symbolic links) in a temp directory for filesystem tests. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A file's content, `{ dir: true }` for an empty directory, or `{ link: target }` for a symlink. */
export type TreeNode = string | Uint8Array | { dir: true } | { link: string };

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
