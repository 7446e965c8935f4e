/**
 * read_file (docs/tools/filesystem.md#read_file): a file as a numbered text window or as raw bytes
 * (hex, base64), read through one descriptor with caps on what it delivers,
 * recording the whole file's sha256 in the chat's freshness ledger.
 */
import { isUtf8 } from 'node:buffer';
import { parseToolArguments, requireNonBlank } from '../arg-parsing';
import { ToolArgumentError } from '../errors';
import { recordFileRead, sha256Hex } from '../freshness/read-before-write';
import { BINARY_SNIFF_BYTES, looksBinaryForTextView } from '../fs/binary';
import {
  FileOverCapError,
  type LeasedBytes,
  openRegularFile,
  readAllCappedLeased,
} from '../fs/capped-read';
import { errorCode, missingFileError, requireRegularFile, toToolError } from '../fs/file-errors';
import {
  defaultPathPolicyParameters,
  FILE_PATH_PROPERTY,
  PATH_POLICY_DESCRIPTORS,
} from '../fs/path-settings';
import {
  bomLength,
  decodeText,
  detectEncoding,
  type LineEndings,
  type TextEncoding,
} from '../fs/text-encoding';
import {
  MAX_LINE_CHARACTERS,
  MAX_WINDOW_BYTES,
  type TextWindow,
  windowOfText,
  windowOfUtf8,
} from '../fs/text-window';
import { type ResolvedPath, resolveAndValidatePath, toReportedPath } from '../path-policy';
import { registerTool } from '../registry';
import type { RegisteredTool, ToolContext, ToolDefinition } from '../types';

/** The text view reads files of at most this many bytes. */
export const TEXT_VIEW_MAX_BYTES = 10 * 1024 * 1024;
/** Byte views return the whole file to the model, so their cap is much smaller. */
export const BYTE_VIEW_MAX_BYTES = 256 * 1024;
export const DEFAULT_MAX_LINES = 2000;
export const MAX_MAX_LINES = 5000;

export type ReadFileView = 'text' | 'hex' | 'base64';

export interface ReadFileResult {
  content: string;
  path: string;
  size: number;
  sha256: string;
  totalLines: number;
  startLine: number;
  endLine: number;
  truncated: boolean;
  view?: 'hex' | 'base64';
  encoding?: TextEncoding;
  eol?: LineEndings;
  /** What the model should know about the window: what was cut and how to read on. */
  note?: string;
}

const definition: ToolDefinition = {
  name: 'read_file',
  description: `Reads a file. The default text view returns numbered lines like \`cat -n\` (the number, a tab, the line) for a window of at most ${DEFAULT_MAX_LINES} lines, and reports the file's encoding and line endings; use startLine/maxLines to page through longer files. Text files up to 10 MiB; files containing NUL bytes are binary and need view "hex" or "base64" (whole file, up to 256 KiB). Reading a file completely is required before write_file or edit_file may change it.`,
  parameters: {
    type: 'object',
    properties: {
      path: FILE_PATH_PROPERTY,
      startLine: {
        type: 'integer',
        description: 'Text view only: the first line to show (1-based). Default 1.',
        minimum: 1,
      },
      maxLines: {
        type: 'integer',
        description: `Text view only: how many lines to show. Default ${DEFAULT_MAX_LINES}, at most ${MAX_MAX_LINES}.`,
        minimum: 1,
        maximum: MAX_MAX_LINES,
      },
      view: {
        type: 'string',
        enum: ['text', 'hex', 'base64'],
        description:
          'How to show the file: "text" (default, numbered lines), or its raw bytes as "hex" or "base64".',
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
};

type ReadFileArguments = {
  path: string;
  startLine?: number;
  maxLines?: number;
  view?: ReadFileView;
};

function capRefusal(
  resolved: ResolvedPath,
  view: ReadFileView,
  size: number,
  delivered: boolean,
): ToolArgumentError {
  const measured = delivered ? 'delivers more than' : `is ${size} bytes, more than`;
  const message =
    view === 'text'
      ? `"${resolved.input}" ${measured} the text view's limit of ${TEXT_VIEW_MAX_BYTES} bytes (10 MiB), so it was not read. Search it with grep, or inspect parts of it with a shell command (e.g. head, tail, sed -n).`
      : `"${resolved.input}" ${measured} the byte views' limit of ${BYTE_VIEW_MAX_BYTES} bytes (256 KiB): a byte view returns the whole file to the model, so larger files are refused rather than cut. Use the text view for text, or a shell command for large binaries.`;
  return new ToolArgumentError(message, { details: { argument: 'path' } });
}

/** Opens, checks the declared size, and reads through the one descriptor up to the cap. */
async function readCapped(
  resolved: ResolvedPath,
  context: ToolContext,
  view: ReadFileView,
): Promise<{ leased: LeasedBytes; size: number; mtimeMs: number }> {
  const cap = view === 'text' ? TEXT_VIEW_MAX_BYTES : BYTE_VIEW_MAX_BYTES;
  let opened: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    opened = await openRegularFile(resolved.realPath);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') throw await missingFileError(resolved, context);
    throw toToolError(error, resolved);
  }
  const { handle, stats } = opened;
  try {
    if (stats.size > cap) throw capRefusal(resolved, view, stats.size, false);
    const leased = await readAllCappedLeased(handle, cap, stats.size);
    return { leased, size: stats.size, mtimeMs: stats.mtimeMs };
  } catch (error) {
    if (error instanceof FileOverCapError) throw capRefusal(resolved, view, stats.size, true);
    throw toToolError(error, resolved);
  } finally {
    await handle.close();
  }
}

function windowNote(
  window: TextWindow,
  view: { explicitMaxLines: boolean },
  validUtf8: boolean,
): string | undefined {
  const notes: string[] = [];
  if (window.totalLines === 0) notes.push('The file is empty.');
  if (window.endLine < window.totalLines) {
    const reason = window.byteLimited
      ? `the window stopped at ${MAX_WINDOW_BYTES} bytes of output`
      : view.explicitMaxLines
        ? 'maxLines was reached'
        : `the default window is ${DEFAULT_MAX_LINES} lines`;
    notes.push(
      `Showing lines ${window.startLine}-${window.endLine} of ${window.totalLines} (${reason}). To read on, call read_file with startLine=${window.endLine + 1}${window.byteLimited ? ' and a smaller maxLines' : ''}.`,
    );
  }
  if (window.linesCut) {
    notes.push(
      `Lines longer than ${MAX_LINE_CHARACTERS} characters were cut and marked "[line truncated …]"; use grep to find text in them, or a byte view for small files.`,
    );
  }
  if (!validUtf8) {
    notes.push(
      'The file is not valid UTF-8 (a legacy encoding such as Windows-1252, or binary data); invalid bytes are shown as U+FFFD. write_file and edit_file refuse to rewrite it as text; view "hex" shows the exact bytes.',
    );
  }
  return notes.length > 0 ? notes.join(' ') : undefined;
}

function textView(
  bytes: Buffer,
  resolved: ResolvedPath,
  args: ReadFileArguments,
): { window: TextWindow; encoding: TextEncoding; eol: LineEndings; note?: string } {
  const encoding = detectEncoding(bytes);
  const utf16 = encoding === 'utf-16le' || encoding === 'utf-16be';
  const decoded = utf16 ? decodeText(bytes, encoding) : undefined;
  if (looksBinaryForTextView(bytes)) {
    throw new ToolArgumentError(
      `"${resolved.input}" looks like a binary file (it has a NUL byte in its first ${BINARY_SNIFF_BYTES} bytes), so the text view does not show it. Read it with view "hex" or view "base64" (files up to 256 KiB); that also counts as a complete read for write_file.`,
      { details: { argument: 'view' } },
    );
  }
  const request = { startLine: args.startLine ?? 1, maxLines: args.maxLines ?? DEFAULT_MAX_LINES };
  const body = bytes.subarray(bomLength(encoding));
  const window =
    decoded === undefined ? windowOfUtf8(body, request) : windowOfText(decoded, request);
  if (request.startLine > Math.max(window.totalLines, 1)) {
    throw new ToolArgumentError(
      window.totalLines === 0
        ? `"${resolved.input}" is empty; read it without startLine.`
        : `startLine ${request.startLine} is past the end of "${resolved.input}", which has ${window.totalLines} lines. Use a startLine from 1 to ${window.totalLines}.`,
      { details: { argument: 'startLine' } },
    );
  }
  const eol = window.eol;
  const validUtf8 = utf16 || isUtf8(body);
  const note = windowNote(window, { explicitMaxLines: args.maxLines !== undefined }, validUtf8);
  return { window, encoding, eol, ...(note === undefined ? {} : { note }) };
}

export async function readFile(rawArgs: unknown, context: ToolContext): Promise<ReadFileResult> {
  const args = parseToolArguments<ReadFileArguments>(rawArgs, definition.parameters);
  requireNonBlank(args.path, 'path');
  const view = args.view ?? 'text';
  if (view !== 'text' && (args.startLine !== undefined || args.maxLines !== undefined)) {
    throw new ToolArgumentError(
      `startLine and maxLines apply to the text view only; view "${view}" always returns the whole file. Call again without them, or with view "text".`,
      { details: { argument: args.startLine !== undefined ? 'startLine' : 'maxLines' } },
    );
  }
  const resolved = await resolveAndValidatePath(args.path, context);
  await requireRegularFile(resolved, context, 'read');
  return context.freshness.withLock(resolved.realPath, async () => {
    const { leased, size, mtimeMs } = await readCapped(resolved, context, view);
    // The bytes live in a pooled buffer: everything returned below is a copy of them.
    try {
      return await describeRead(leased.bytes, { size, mtimeMs }, resolved, args, view, context);
    } finally {
      leased.release();
    }
  });
}

async function describeRead(
  bytes: Buffer,
  { size, mtimeMs }: { size: number; mtimeMs: number },
  resolved: ResolvedPath,
  args: ReadFileArguments,
  view: ReadFileView,
  context: ToolContext,
): Promise<ReadFileResult> {
  const sha256 = sha256Hex(bytes);
  const reportedPath = toReportedPath(resolved.absolutePath, context);
  if (view !== 'text') {
    await recordFileRead(context.freshness, resolved.realPath, {
      sha256,
      size,
      mtimeMs,
      totalLines: 0,
      wholeFile: true,
    });
    return {
      content: view === 'hex' ? bytes.toString('hex') : bytes.toString('base64'),
      path: reportedPath,
      size: bytes.length,
      sha256,
      totalLines: 0,
      startLine: 0,
      endLine: 0,
      truncated: false,
      view,
    };
  }
  const { window, encoding, eol, note } = textView(bytes, resolved, args);
  await recordFileRead(context.freshness, resolved.realPath, {
    sha256,
    size,
    mtimeMs,
    totalLines: window.totalLines,
    wholeFile: false,
    startLine: window.startLine,
    endLine: window.endLine,
  });
  const result: ReadFileResult = {
    content: window.content,
    path: reportedPath,
    size: bytes.length,
    sha256,
    totalLines: window.totalLines,
    startLine: window.startLine,
    endLine: window.endLine,
    truncated: window.endLine < window.totalLines || window.linesCut,
    encoding,
    eol,
  };
  if (note !== undefined) result.note = note;
  return result;
}

export const readFileTool: RegisteredTool = {
  definition,
  reachesHost: true,
  settings: {
    title: 'Read file',
    description: 'Lets the model read files on the server, as numbered text or as raw bytes.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: defaultPathPolicyParameters(),
    parameterDescriptors: PATH_POLICY_DESCRIPTORS,
  },
  execute: readFile,
};

registerTool(readFileTool);
