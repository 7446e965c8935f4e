/**
 * Turning what the filesystem says into errors written for the model: a
 * missing file with "did you mean", a directory pointing to list_directory, a
 * FIFO or device refused before it is opened.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  NotFoundError,
  PermissionDeniedError,
  ToolArgumentError,
  ToolError,
  ToolExecutionError,
} from '../errors';
import {
  createPathFilter,
  type PathPolicyContext,
  type ResolvedPath,
  toReportedPath,
} from '../path-policy';
import { describeFileKind, NotRegularFileError } from './capped-read';
import { suggestSimilarPaths } from './did-you-mean';

export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/** A not_found error for `resolved`, with up to three similar names from its directory. */
export async function missingFileError(
  resolved: ResolvedPath,
  context: PathPolicyContext,
  suffix = '',
): Promise<NotFoundError> {
  if (resolved.exists && resolved.absolutePath !== resolved.realPath) {
    return new NotFoundError(
      `"${resolved.input}" is a symbolic link to "${resolved.realPath}", which does not exist.${suffix}`,
    );
  }
  const directory = path.dirname(resolved.realPath);
  const filter = await createPathFilter(context);
  const suggestions = await suggestSimilarPaths(
    directory,
    path.basename(resolved.realPath),
    filter,
  );
  const hint =
    suggestions.length > 0
      ? ` Did you mean ${suggestions.map((item) => `"${toReportedPath(item, context)}"`).join(', ')}?`
      : ' Check the path, or use glob or list_directory to find the file.';
  return new NotFoundError(`File "${resolved.input}" does not exist.${hint}${suffix}`);
}

export function notRegularFileError(
  resolved: ResolvedPath,
  kind: string,
  action: string,
): ToolArgumentError {
  if (kind === 'directory') {
    return new ToolArgumentError(
      `"${resolved.input}" is a directory, not a file. Use list_directory to see what it contains, then ${action} one of its files.`,
      { details: { argument: 'path' } },
    );
  }
  return new ToolArgumentError(
    `"${resolved.input}" is a ${kind}, not a regular file; ${action === 'read' ? 'read_file reads' : 'this tool handles'} regular files only.`,
    { details: { argument: 'path' } },
  );
}

/**
 * Checks that `resolved` names an existing regular file before anything opens
 * it, so a FIFO or a device is refused instead of blocked on.
 */
export async function requireRegularFile(
  resolved: ResolvedPath,
  context: PathPolicyContext,
  action: string,
): Promise<void> {
  let kind: string;
  try {
    const stats = await stat(resolved.realPath);
    if (stats.isFile()) return;
    kind = describeFileKind(stats);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR')
      throw await missingFileError(resolved, context);
    throw toToolError(error, resolved);
  }
  throw notRegularFileError(resolved, kind, action);
}

/** Any other filesystem failure, classified. */
export function toToolError(error: unknown, resolved: ResolvedPath): ToolError {
  if (error instanceof ToolError) return error;
  if (error instanceof NotRegularFileError)
    return notRegularFileError(resolved, error.kind, 'read');
  const code = errorCode(error);
  if (code === 'EACCES' || code === 'EPERM') {
    return new PermissionDeniedError(
      `The server's operating-system user is not permitted to access "${resolved.input}" (${code}).`,
      { cause: error },
    );
  }
  if (code === 'ELOOP') {
    return new ToolArgumentError(
      `"${resolved.input}" became a symbolic link while it was being opened; try again.`,
      {
        cause: error,
        details: { argument: 'path' },
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolExecutionError(`Could not access "${resolved.input}": ${message}`, {
    cause: error,
  });
}

/**
 * A call stopped by its time budget or a cancel must not change a file after
 * the model was told it failed: checked right before the write.
 */
export function stopIfCancelled(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw signal.reason instanceof ToolError
    ? signal.reason
    : new ToolExecutionError(
        'The call was cancelled before the file was written; nothing was changed.',
      );
}
