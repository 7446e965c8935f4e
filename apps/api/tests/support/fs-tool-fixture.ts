/**
 * Shared fixtures for the filesystem tool tests: the containment tree (a real
 * temp directory with symlinks in and out, built by `createTempTree`), a
 * context factory, and a call helper that goes through executeTool like the
 * turn loop does.
 */
import { expect } from 'bun:test';
import path from 'node:path';
import type { ChatMode } from '@mango/shared';
import {
  createMemoryFreshnessLedger,
  executeTool,
  type FileFreshnessLedger,
  type StoredToolSettings,
  type ToolCallContext,
  ToolError,
} from '../../src/services/tools/index';
import { CONTAINMENT_TREE, createTempTree, type TempTree, type TreeNode } from './temp-tree';

export interface FsFixture extends TempTree {
  /** The working directory, `root/w`. */
  work: string;
  /** `root/outside`, beside the working directory. */
  outside: string;
}

/** The containment tree (see `CONTAINMENT_TREE`) in a fresh temp directory, plus `extra` entries below its root. */
export function createFsFixture(prefix: string, extra: Record<string, TreeNode> = {}): FsFixture {
  const tree = createTempTree(prefix, { ...CONTAINMENT_TREE, ...extra });
  return { ...tree, work: tree.at('w'), outside: tree.at('outside') };
}

/** Paths (relative to the working directory unless absolute) that containment must refuse. */
export function containmentEscapes(fixture: FsFixture): Array<[string, string]> {
  return [
    ['../ escape', '../outside/o.txt'],
    ['absolute path outside', path.join(fixture.outside, 'o.txt')],
    ['sibling prefix /w vs /w2', path.join(fixture.root, 'w2', 'x.txt')],
    ['symlinked file pointing outside', 'link-out-file'],
    ['symlinked directory pointing outside', 'link-out-dir/o.txt'],
    ['relative symlink chain', 'chain1'],
    ['broken link pointing outside', 'broken-out'],
    ['new file under a missing dir below a link out', 'link-out-dir/new/deeper/file.txt'],
  ];
}

export interface ContextOptions {
  mode?: ChatMode;
  workingDirectory?: string;
  restrict?: boolean;
  freshness?: FileFreshnessLedger;
  chatId?: string;
}

export function createContext(fixture: FsFixture, options: ContextOptions = {}): ToolCallContext {
  return {
    userId: 'user-1',
    chatId: options.chatId ?? 'chat-1',
    mode: options.mode ?? 'agent',
    workingDirectory: 'workingDirectory' in options ? options.workingDirectory : fixture.work,
    restrictToWorkingDirectory: options.restrict ?? true,
    freshness: options.freshness ?? createMemoryFreshnessLedger(),
  };
}

export function callTool<T = Record<string, unknown>>(
  name: string,
  args: unknown,
  context: ToolCallContext,
  settings?: StoredToolSettings,
): Promise<T> {
  return executeTool(name, args, context, settings) as Promise<T>;
}

/** Awaits a call that must fail and returns its ToolError. */
export async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected the call to fail');
}

export function denySecret(fixture: FsFixture): StoredToolSettings {
  return {
    parameters: { deniedPaths: [{ path: path.join(fixture.work, 'secret'), enabled: true }] },
  };
}
