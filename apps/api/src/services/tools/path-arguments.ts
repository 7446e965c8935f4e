/**
 * A path argument's text, checked before the path policy resolves it
 * (docs/tools/filesystem.md#paths-and-the-working-directory): a string, not
 * blank, without NUL, within Linux's length limits, and `~` expanded.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { ToolArgumentError } from './errors';

/** Linux PATH_MAX: longer paths cannot be opened anyway. Measured in UTF-8 bytes. */
export const MAX_PATH_BYTES = 4096;
/** Linux NAME_MAX: the longest single path component, in UTF-8 bytes. */
export const MAX_PATH_COMPONENT_BYTES = 255;

export function argumentError(argument: string, message: string): ToolArgumentError {
  return new ToolArgumentError(message, { details: { argument } });
}

/** The path argument as a string the file system can take: not blank, no NUL, within the length limits. */
export function checkPathString(rawPath: unknown, argument: string): string {
  if (typeof rawPath !== 'string') {
    throw argumentError(argument, `Argument "${argument}" must be a path string.`);
  }
  if (rawPath.trim() === '') {
    throw argumentError(
      argument,
      `Argument "${argument}" must not be blank: give an absolute path, a path starting with "~", or one relative to the working directory.`,
    );
  }
  if (rawPath.includes('\0')) {
    throw argumentError(
      argument,
      `Argument "${argument}" contains a NUL byte, which no file path can contain. Send the path without it.`,
    );
  }
  checkLength(rawPath, argument);
  return rawPath;
}

/** Within PATH_MAX in all and NAME_MAX per component (UTF-8 bytes). */
export function checkLength(candidate: string, argument: string): void {
  const bytes = Buffer.byteLength(candidate, 'utf8');
  if (bytes > MAX_PATH_BYTES) {
    throw argumentError(
      argument,
      `Argument "${argument}" is ${bytes} bytes long; paths are limited to ${MAX_PATH_BYTES} bytes.`,
    );
  }
  for (const component of candidate.split(path.sep)) {
    if (Buffer.byteLength(component, 'utf8') > MAX_PATH_COMPONENT_BYTES) {
      throw argumentError(
        argument,
        `Argument "${argument}" has a name of more than ${MAX_PATH_COMPONENT_BYTES} bytes ("${component.slice(0, 40)}…"); no file or directory name can be that long.`,
      );
    }
  }
}

/** `~` and `~/x` are the server user's home; `~name` forms are refused rather than guessed. */
export function expandHome(candidate: string, argument: string): string {
  if (candidate === '~') return homedir();
  if (candidate.startsWith(`~${path.sep}`)) return path.join(homedir(), candidate.slice(2));
  if (candidate.startsWith('~')) {
    throw argumentError(
      argument,
      `Argument "${argument}" starts with "${candidate.split(path.sep)[0]}": only "~" (the server user's home) is expanded. For a file whose name starts with "~", write "./${candidate}".`,
    );
  }
  return candidate;
}
