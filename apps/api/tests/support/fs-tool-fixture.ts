/**
 * Shared fixtures for the filesystem tool tests: a real temp directory tree
 * with symlinks in and out, a context factory, and a call helper that goes
 * through executeTool like the turn loop does.
 */
import { expect } from 'bun:test';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createMemoryFreshnessLedger,
  executeTool,
  type FileFreshnessLedger,
  type StoredToolSettings,
  type ToolCallContext,
  ToolError,
} from '../../src/services/tools/index';

export interface FsFixture {
  root: string;
  work: string;
  outside: string;
  cleanup(): void;
}

/**
 * root/
 *   w/  (the working directory)  a.txt, sub/b.txt, secret/key.txt,
 *       link-out-file -> ../outside/o.txt, link-out-dir -> ../outside,
 *       chain1 -> chain2 -> ../outside/o.txt, broken-out -> ../outside/missing.txt,
 *       link-secret -> secret
 *   w2/x.txt   (sibling-prefix trick)
 *   outside/o.txt
 */
export function createFsFixture(prefix: string): FsFixture {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), `${prefix}-`)));
  const work = path.join(root, 'w');
  const outside = path.join(root, 'outside');
  mkdirSync(path.join(work, 'sub'), { recursive: true });
  mkdirSync(path.join(work, 'secret'));
  mkdirSync(path.join(root, 'w2'));
  mkdirSync(outside);
  writeFileSync(path.join(work, 'a.txt'), 'alpha\n');
  writeFileSync(path.join(work, 'sub', 'b.txt'), 'beta\n');
  writeFileSync(path.join(work, 'secret', 'key.txt'), 'key\n');
  writeFileSync(path.join(root, 'w2', 'x.txt'), 'x\n');
  writeFileSync(path.join(outside, 'o.txt'), 'outside\n');
  symlinkSync('../outside/o.txt', path.join(work, 'link-out-file'));
  symlinkSync('../outside', path.join(work, 'link-out-dir'));
  symlinkSync('chain2', path.join(work, 'chain1'));
  symlinkSync('../outside/o.txt', path.join(work, 'chain2'));
  symlinkSync('../outside/missing.txt', path.join(work, 'broken-out'));
  symlinkSync('secret', path.join(work, 'link-secret'));
  return { root, work, outside, cleanup: () => rmSync(root, { recursive: true, force: true }) };
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
  mode?: 'chat' | 'agent';
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
