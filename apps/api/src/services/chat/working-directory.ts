/**
 * Checks the directory a chat binds (docs/tools/filesystem.md#paths-and-the-working-directory): absolute or `~`-relative, and
 * an existing directory on this server. Stored resolved, so the agent prompt
 * and the tools see the same absolute path.
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { ApiError } from '../../errors';

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
