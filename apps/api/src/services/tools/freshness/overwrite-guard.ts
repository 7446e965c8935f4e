/**
 * The read-before-overwrite guard shared by write_file and edit_file
 * (docs/tools/filesystem.md#the-freshness-ledger): what may be written to, whether this chat has read the current
 * content completely, and whether that content can be rewritten as text
 * without changing its encoding. Every refusal tells the model what to do next.
 */
import type { Stats } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { FileNotReadError, StaleFileError, ToolArgumentError } from '../errors';
import { looksBinaryForTextView } from '../fs/binary';
import {
  describeFileKind,
  FileOverCapError,
  openRegularFile,
  readAllCapped,
} from '../fs/capped-read';
import { errorCode, notRegularFileError, toToolError } from '../fs/file-errors';
import {
  detectEncoding,
  detectLineEndings,
  type LineEndings,
  type TextEncoding,
  tryDecodeStrict,
} from '../fs/text-encoding';
import { type PathPolicyContext, type ResolvedPath, toReportedPath } from '../path-policy';
import type { ToolContext } from '../types';
import { checkFreshness } from './read-before-write';

/** Mirrors read_file's caps: a file read_file cannot read completely cannot be overwritten. */
export const GUARD_TEXT_MAX_BYTES = 10 * 1024 * 1024;
export const GUARD_BYTE_VIEW_MAX_BYTES = 256 * 1024;

export type ToolName = 'write_file' | 'edit_file';

/** An existing file, loaded under the path's lock and cleared for rewriting. */
export interface ExistingTextFile {
  stats: Stats;
  encoding: TextEncoding;
  eol: LineEndings;
  /** The decoded content, BOM excluded. */
  text: string;
}

/**
 * Refuses a path whose last component is a symbolic link (even a broken one)
 * or that is not a regular file. Returns the target's stats, or undefined when
 * nothing exists there yet.
 */
export async function inspectTarget(
  resolved: ResolvedPath,
  context: PathPolicyContext,
  tool: ToolName,
): Promise<Stats | undefined> {
  if (resolved.exists) {
    const own = await lstat(resolved.absolutePath).catch(() => undefined);
    if (own?.isSymbolicLink()) {
      const target = await readlink(resolved.absolutePath).catch(() => resolved.realPath);
      const destination = toReportedPath(
        path.resolve(path.dirname(resolved.absolutePath), target),
        context,
      );
      throw new ToolArgumentError(
        `"${resolved.input}" is a symbolic link (to "${destination}"); ${tool} does not write through links. If "${destination}" is the file you mean, call ${tool} with that path.`,
        { details: { argument: 'path' } },
      );
    }
  }
  let stats: Stats;
  try {
    stats = await lstat(resolved.realPath);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    if (errorCode(error) === 'ENOTDIR') {
      throw new ToolArgumentError(
        `"${resolved.input}" goes through a file as if it were a directory; a parent of the path is a regular file.`,
        { details: { argument: 'path' } },
      );
    }
    throw toToolError(error, resolved);
  }
  if (!stats.isFile()) throw notRegularFileError(resolved, describeFileKind(stats), 'write');
  return stats;
}

function notReadMessage(
  resolved: ResolvedPath,
  tool: ToolName,
  bytes: Uint8Array | undefined,
  size: number,
): string {
  const refused = `${tool} refuses to change "${resolved.input}": this chat has not read it`;
  const binary = bytes !== undefined && looksBinaryForTextView(bytes);
  if (binary && size > GUARD_BYTE_VIEW_MAX_BYTES) {
    return `${refused}, and it cannot: it is a binary file of ${size} bytes, larger than read_file's 256 KiB byte-view limit, so no complete read is possible and ${tool} cannot overwrite it. Write to a new path instead, or ask the user to replace the file.`;
  }
  if (binary) {
    return `${refused}. It is a binary file: read it completely with read_file using view "hex" or view "base64", then call ${tool} again.`;
  }
  if (size > GUARD_TEXT_MAX_BYTES) {
    return `${refused}, and it cannot: at ${size} bytes it is larger than read_file's 10 MiB limit, so no complete read is possible and ${tool} cannot overwrite it. Write to a new path instead, or ask the user to change the file.`;
  }
  return `${refused}. Read it with read_file first (all of it: if it has more lines than one window shows, continue with startLine until endLine reaches totalLines), then call ${tool} again.`;
}

function encodingRefusal(
  resolved: ResolvedPath,
  tool: ToolName,
  encoding: TextEncoding,
): ToolArgumentError {
  const what =
    encoding === 'utf-16le' || encoding === 'utf-16be'
      ? `valid ${encoding.toUpperCase()}`
      : 'valid UTF-8';
  return new ToolArgumentError(
    `${tool} refuses to rewrite "${resolved.input}": its content is not ${what} (a legacy encoding such as Windows-1252 or Shift-JIS, or binary data). Rewriting it as text would silently re-encode or destroy bytes the model never saw correctly. Ask the user to convert it to UTF-8, or change it with a tool that understands its encoding.`,
    { details: { argument: 'path' } },
  );
}

async function readExisting(resolved: ResolvedPath): Promise<{ bytes?: Buffer; stats: Stats }> {
  let opened: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    opened = await openRegularFile(resolved.realPath);
  } catch (error) {
    throw toToolError(error, resolved);
  }
  const { handle, stats } = opened;
  try {
    if (stats.size > GUARD_TEXT_MAX_BYTES) return { stats };
    return { bytes: await readAllCapped(handle, GUARD_TEXT_MAX_BYTES, stats.size), stats };
  } catch (error) {
    if (error instanceof FileOverCapError) return { stats };
    throw toToolError(error, resolved);
  } finally {
    await handle.close();
  }
}

/**
 * Loads an existing file and applies the guard. Call it while holding the
 * path's ledger lock, so the check and the write that follows are one step.
 */
export async function loadForOverwrite(
  resolved: ResolvedPath,
  context: Pick<ToolContext, 'freshness'>,
  tool: ToolName,
): Promise<ExistingTextFile> {
  const { bytes, stats } = await readExisting(resolved);
  const verdict = await checkFreshness(context.freshness, resolved.realPath, {
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    bytes: async () => bytes ?? new Uint8Array(0),
  });
  if (verdict.status === 'not_read') {
    throw new FileNotReadError(notReadMessage(resolved, tool, bytes, stats.size));
  }
  if (verdict.status === 'partial') {
    const { linesCovered, totalLines, laterWindows = [] } = verdict.record;
    const read = [
      ...(linesCovered > 0 ? [{ startLine: 1, endLine: linesCovered }] : []),
      ...laterWindows,
    ]
      .map((window) => `${window.startLine}-${window.endLine}`)
      .join(', ');
    throw new FileNotReadError(
      `${tool} refuses to change "${resolved.input}": this chat has read only lines ${read} of ${totalLines}, and overwriting needs a complete read. Call read_file with startLine=${linesCovered + 1} and continue until every line has been read (or read it with view "hex"/"base64"), then call ${tool} again.`,
    );
  }
  if (verdict.status === 'stale' || bytes === undefined) {
    throw new StaleFileError(
      `${tool} refuses to change "${resolved.input}": it changed since this chat read it (someone or something else wrote to it), so the content you based this change on is out of date. Read it again with read_file, then redo the change on the current content.`,
    );
  }
  const encoding = detectEncoding(bytes);
  const text = tryDecodeStrict(bytes, encoding);
  if (text === undefined) throw encodingRefusal(resolved, tool, encoding);
  return { stats, encoding, eol: detectLineEndings(text), text };
}
