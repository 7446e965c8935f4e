/**
 * Symlink resolution for the path policy: the real location of a path whose
 * tail may not exist yet, resolved component by component like the kernel.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolArgumentError } from '../errors';

/** How many symbolic links one resolution may follow before it is called a loop (Linux's MAXSYMLINKS). */
const MAX_SYMLINK_HOPS = 40;

function argumentError(argument: string, message: string): ToolArgumentError {
  return new ToolArgumentError(message, { details: { argument } });
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

function loopError(argument: string, input: string): ToolArgumentError {
  return argumentError(
    argument,
    `Path "${input}" cannot be resolved: it goes through a loop of symbolic links (or more than ${MAX_SYMLINK_HOPS} of them).`,
  );
}

/**
 * Resolves symlinks along an absolute, normalised path, component by
 * component, the way the kernel would; once a component does not exist the
 * rest is appended lexically. A broken link is followed to where it points,
 * so creating a file through it is checked at its real destination.
 * The calls are synchronous: each is a few microseconds of metadata work, and
 * a hop through the thread pool per component cost more than the call itself.
 */
export async function resolveRealPath(
  absolutePath: string,
  argument: string,
  input: string,
): Promise<string> {
  return (await resolveRealPathOf(absolutePath, argument, input)).realPath;
}

/**
 * `resolveRealPath`, also saying whether the path was found to exist on the
 * way: true when the whole path resolved at once (every component exists), so
 * a caller need not look it up again; false when that could not be told.
 */
export async function resolveRealPathOf(
  absolutePath: string,
  argument: string,
  input: string,
): Promise<{ realPath: string; exists: boolean }> {
  try {
    return { realPath: realpathSync(absolutePath), exists: true };
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ELOOP') throw loopError(argument, input);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const queue = absolutePath.split(path.sep).filter((part) => part !== '');
  let current = path.parse(absolutePath).root;
  let hops = 0;
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (name === '.') continue;
    if (name === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, name);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR')
        return { realPath: path.resolve(next, ...queue), exists: false };
      throw error;
    }
    if (!isLink) {
      current = next;
      continue;
    }
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS) throw loopError(argument, input);
    const target = readlinkSync(next);
    if (path.isAbsolute(target)) current = path.parse(target).root;
    queue.unshift(...target.split(path.sep).filter((part) => part !== ''));
  }
  // Every component existed here, yet realpath failed (a race with a change): look it up again.
  return { realPath: current, exists: false };
}
