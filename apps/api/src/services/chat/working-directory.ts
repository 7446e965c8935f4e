/**
 * Checks the directory a chat binds (docs/tools/filesystem.md#paths-and-the-working-directory): absolute or `~`-relative, and
 * an existing directory on this server. Stored resolved, so the agent prompt
 * and the tools see the same absolute path.
 */
import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { ChatMode } from '@mango/shared';
import { ApiError } from '../../errors';
import { isPathInside } from '../tools/path-policy';
import type { HostAccess } from '../tools/types';

export async function resolveWorkingDirectory(input: string): Promise<string> {
  const trimmed = input.trim();
  const expanded =
    trimmed === '~'
      ? homedir()
      : trimmed.startsWith('~/')
        ? join(homedir(), trimmed.slice(2))
        : trimmed;
  if (!isAbsolute(expanded))
    throw new ApiError(
      'validation_failed',
      `workingDirectory must be an absolute path or start with ~; got "${input}".`,
      { details: { field: 'workingDirectory' } },
    );
  const absolute = resolve(expanded);
  let isDirectory = false;
  try {
    isDirectory = (await stat(absolute)).isDirectory();
  } catch {
    throw new ApiError(
      'validation_failed',
      `workingDirectory "${absolute}" does not exist on the server.`,
      {
        details: { field: 'workingDirectory' },
      },
    );
  }
  if (!isDirectory)
    throw new ApiError(
      'validation_failed',
      `workingDirectory "${absolute}" is a file, not a directory.`,
      {
        details: { field: 'workingDirectory' },
      },
    );
  return absolute;
}

function realOrLexical(location: string): string {
  try {
    return realpathSync(location);
  } catch {
    return resolve(location);
  }
}

/**
 * Whether this user may bind the directory (docs/security.md#system-tools-are-granted): it lies
 * outside the server's data directory (for everyone) and, for a non-admin,
 * inside one of their granted roots. Checked on the real path, as the path
 * policy checks every path a tool is given.
 */
export function checkWorkingDirectoryAccess(
  directory: string,
  access: HostAccess | undefined,
  protectedPaths: readonly string[] = [],
): void {
  const real = realOrLexical(directory);
  for (const protectedPath of protectedPaths) {
    if (isPathInside(realOrLexical(protectedPath), real) || isPathInside(protectedPath, directory))
      throw new ApiError(
        'forbidden',
        `workingDirectory "${directory}" lies inside the server's own data directory, which no chat may bind.`,
        { details: { field: 'workingDirectory' } },
      );
  }
  if (access?.kind !== 'granted') return;
  if (!access.roots.some((root) => isPathInside(realOrLexical(root), real)))
    throw new ApiError(
      'forbidden',
      access.roots.length === 0
        ? `workingDirectory "${directory}" cannot be bound: an admin has granted you no directory on this server.`
        : `workingDirectory "${directory}" is outside the directories an admin granted you (${access.roots.map((root) => `"${root}"`).join(', ')}).`,
      { details: { field: 'workingDirectory' } },
    );
}

/** Agent mode works in a bound directory; a chat cannot be (or become) an agent chat without one. */
export function requireAgentWorkingDirectory(
  mode: ChatMode,
  workingDirectory: string | null,
): void {
  if (mode === 'agent' && workingDirectory === null)
    throw new ApiError(
      'validation_failed',
      'An agent chat needs a workingDirectory: give the directory its tools work in (inside the directories granted to you).',
      { details: { field: 'workingDirectory' } },
    );
}
