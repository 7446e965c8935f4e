/**
 * write_file (docs/tools/filesystem.md#the-freshness-ledger): writes a whole file. New paths are created
 * exclusively with their parents; existing files need a complete, fresh read
 * by this chat, are replaced atomically, and keep their BOM, CRLF line endings
 * and permission bits.
 */
import { parseToolArguments, requireNonBlank } from '../arg-parsing';
import { FileNotReadError, ToolArgumentError } from '../errors';
import {
  GUARD_TEXT_MAX_BYTES,
  inspectTarget,
  loadForOverwrite,
} from '../freshness/overwrite-guard';
import { recordFileWrite } from '../freshness/read-before-write';
import {
  createFileExclusively,
  FileAlreadyExistsError,
  replaceFileAtomically,
} from '../fs/atomic-write';
import { stopIfCancelled, toToolError } from '../fs/file-errors';
import {
  defaultPathPolicyParameters,
  FILE_PATH_PROPERTY,
  PATH_POLICY_DESCRIPTORS,
} from '../fs/path-settings';
import { encodeText, toCrlf } from '../fs/text-encoding';
import { resolveAndValidatePath, toReportedPath } from '../path-policy';
import { registerTool } from '../registry';
import type { RegisteredTool, ToolContext, ToolDefinition } from '../types';

export interface WriteFileResult {
  path: string;
  bytesWritten: number;
  created: boolean;
  sha256: string;
}

const definition: ToolDefinition = {
  name: 'write_file',
  description:
    'Writes a whole file with the given content (verbatim; may be empty). A new file is created together with its missing parent directories. An existing file can only be overwritten after this chat has read all of it with read_file and while it is unchanged since; its BOM and CRLF line endings are kept. To change part of a file, prefer edit_file.',
  parameters: {
    type: 'object',
    properties: {
      path: FILE_PATH_PROPERTY,
      content: {
        type: 'string',
        description: 'The complete new content of the file.',
      },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
};

type WriteFileArguments = { path: string; content: string };

function checkSize(bytes: Uint8Array): void {
  if (bytes.length > GUARD_TEXT_MAX_BYTES) {
    throw new ToolArgumentError(
      `Argument "content" would make a file of ${bytes.length} bytes; write_file writes at most 10 MiB, the most read_file can read back.`,
      { details: { argument: 'content' } },
    );
  }
}

export async function writeFile(rawArgs: unknown, context: ToolContext): Promise<WriteFileResult> {
  const args = parseToolArguments<WriteFileArguments>(rawArgs, definition.parameters);
  requireNonBlank(args.path, 'path');
  const resolved = await resolveAndValidatePath(args.path, context);
  const target = resolved.realPath;
  return context.freshness.withLock(target, async () => {
    const existing = await inspectTarget(resolved, context, 'write_file');
    let bytes: Uint8Array;
    let text: string;
    let created: boolean;
    let stats: Awaited<ReturnType<typeof createFileExclusively>>;
    try {
      if (existing === undefined) {
        text = args.content;
        bytes = Buffer.from(text, 'utf8');
        checkSize(bytes);
        stopIfCancelled(context.signal);
        stats = await createFileExclusively(target, bytes);
        created = true;
      } else {
        const file = await loadForOverwrite(resolved, context, 'write_file');
        text = file.eol === 'crlf' ? toCrlf(args.content) : args.content;
        bytes = encodeText(text, file.encoding);
        checkSize(bytes);
        stopIfCancelled(context.signal);
        stats = await replaceFileAtomically(target, bytes, file.stats);
        created = false;
      }
    } catch (error) {
      if (error instanceof FileAlreadyExistsError) {
        throw new FileNotReadError(
          `write_file did not create "${resolved.input}": a file appeared at that path while this call was running. Read it with read_file, then decide whether to overwrite it.`,
        );
      }
      throw toToolError(error, resolved);
    }
    const sha256 = await recordFileWrite(context.freshness, target, { bytes, text, stats });
    return {
      path: toReportedPath(resolved.absolutePath, context),
      bytesWritten: bytes.length,
      created,
      sha256,
    };
  });
}

export const writeFileTool: RegisteredTool = {
  definition,
  reachesHost: true,
  settings: {
    title: 'Write file',
    description: 'Lets the model create files and overwrite files it has read completely.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: defaultPathPolicyParameters(),
    parameterDescriptors: PATH_POLICY_DESCRIPTORS,
  },
  execute: writeFile,
};

registerTool(writeFileTool);
