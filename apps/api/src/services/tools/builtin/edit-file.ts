/**
 * edit_file (docs/tools/filesystem.md#edit_file): exact string replacement in a file this chat has
 * read completely and that has not changed since. One occurrence unless
 * replaceAll; the write is atomic and keeps the file's encoding, BOM, line
 * endings and permission bits.
 */
import { parseToolArguments, requireNonBlank } from '../arg-parsing';
import { ToolArgumentError } from '../errors';
import {
  GUARD_TEXT_MAX_BYTES,
  inspectTarget,
  loadForOverwrite,
} from '../freshness/overwrite-guard';
import { recordFileWrite } from '../freshness/read-before-write';
import { replaceFileAtomically } from '../fs/atomic-write';
import { applyReplacement, explainMiss, lineOfOffset, planReplacement } from '../fs/exact-replace';
import { missingFileError, stopIfCancelled, toToolError } from '../fs/file-errors';
import {
  defaultPathPolicyParameters,
  FILE_PATH_PROPERTY,
  PATH_POLICY_DESCRIPTORS,
} from '../fs/path-settings';
import { encodeText } from '../fs/text-encoding';
import { resolveAndValidatePath, toReportedPath } from '../path-policy';
import { registerTool } from '../registry';
import type { RegisteredTool, ToolContext, ToolDefinition } from '../types';

export interface EditFileResult {
  path: string;
  replacements: number;
  sha256: string;
  /** 1-based line where the first replacement starts. */
  firstChangedLine: number;
}

const definition: ToolDefinition = {
  name: 'edit_file',
  description:
    'Replaces exact text in a file: oldString must appear exactly once (or set replaceAll to replace every occurrence), matched character for character including whitespace and indentation. Copy oldString from read_file output without the line-number prefix. The file must have been read completely by this chat and be unchanged since.',
  parameters: {
    type: 'object',
    properties: {
      path: FILE_PATH_PROPERTY,
      oldString: {
        type: 'string',
        description:
          'The exact text to replace; include enough surrounding lines to make it unique.',
        minLength: 1,
      },
      newString: {
        type: 'string',
        description: 'The text to put in its place (may be empty to delete).',
      },
      replaceAll: {
        type: 'boolean',
        description: 'Replace every occurrence instead of requiring exactly one. Default false.',
      },
    },
    required: ['path', 'oldString', 'newString'],
    additionalProperties: false,
  },
};

type EditFileArguments = {
  path: string;
  oldString: string;
  newString: string;
  replaceAll?: boolean;
};

const MAX_LISTED_LINES = 10;

function noMatch(input: string, text: string, oldString: string): ToolArgumentError {
  const hints = explainMiss(text, oldString);
  return new ToolArgumentError(
    `oldString was not found in "${input}". It must match the file exactly, character for character.${hints.length > 0 ? ` ${hints.join(' ')}` : ''} Read the file again with read_file and copy the text exactly, then retry.`,
    { details: { argument: 'oldString' } },
  );
}

function manyMatches(input: string, text: string, offsets: number[]): ToolArgumentError {
  const lines = offsets.slice(0, MAX_LISTED_LINES).map((offset) => lineOfOffset(text, offset));
  const more = offsets.length > MAX_LISTED_LINES ? ', …' : '';
  return new ToolArgumentError(
    `oldString occurs ${offsets.length} times in "${input}" (at lines ${lines.join(', ')}${more}). Include more surrounding text so it matches exactly one place, or set replaceAll to true to replace all ${offsets.length}.`,
    { details: { argument: 'oldString' } },
  );
}

export async function editFile(rawArgs: unknown, context: ToolContext): Promise<EditFileResult> {
  const args = parseToolArguments<EditFileArguments>(rawArgs, definition.parameters);
  requireNonBlank(args.path, 'path');
  if (args.oldString === args.newString) {
    throw new ToolArgumentError(
      'oldString and newString are identical, so the edit would change nothing.',
      {
        details: { argument: 'newString' },
      },
    );
  }
  const resolved = await resolveAndValidatePath(args.path, context);
  const target = resolved.realPath;
  return context.freshness.withLock(target, async () => {
    const existing = await inspectTarget(resolved, context, 'edit_file');
    if (existing === undefined) {
      throw await missingFileError(resolved, context, ' To create a new file, use write_file.');
    }
    const file = await loadForOverwrite(resolved, context, 'edit_file');
    const plan = planReplacement(file.text, args.oldString, args.newString);
    if (plan.offsets.length === 0) throw noMatch(resolved.input, file.text, args.oldString);
    if (plan.offsets.length > 1 && args.replaceAll !== true) {
      throw manyMatches(resolved.input, file.text, plan.offsets);
    }
    const text = applyReplacement(file.text, plan, args.replaceAll === true);
    const bytes = encodeText(text, file.encoding);
    if (bytes.length > GUARD_TEXT_MAX_BYTES) {
      throw new ToolArgumentError(
        `The edit would make "${resolved.input}" ${bytes.length} bytes long; files are limited to 10 MiB, the most read_file can read back.`,
        { details: { argument: 'newString' } },
      );
    }
    let stats: Awaited<ReturnType<typeof replaceFileAtomically>>;
    try {
      stopIfCancelled(context.signal);
      stats = await replaceFileAtomically(target, bytes, file.stats);
    } catch (error) {
      throw toToolError(error, resolved);
    }
    const sha256 = await recordFileWrite(context.freshness, target, { bytes, text, stats });
    return {
      path: toReportedPath(resolved.absolutePath, context),
      replacements: args.replaceAll === true ? plan.offsets.length : 1,
      sha256,
      firstChangedLine: lineOfOffset(file.text, plan.offsets[0] as number),
    };
  });
}

export const editFileTool: RegisteredTool = {
  definition,
  reachesHost: true,
  settings: {
    title: 'Edit file',
    description: 'Lets the model replace exact text in files it has read completely.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: defaultPathPolicyParameters(),
    parameterDescriptors: PATH_POLICY_DESCRIPTORS,
  },
  execute: editFile,
};

registerTool(editFileTool);
