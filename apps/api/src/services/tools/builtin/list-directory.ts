/**
 * list_directory (docs/tools/filesystem.md#list_directory): the entries of one directory, sorted by name,
 * each typed file | directory | symlink | other, cut at `maxEntries`.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { parseToolArguments } from '../arg-parsing';
import { NotFoundError, ToolArgumentError, ToolExecutionError } from '../errors';
import { defaultPathPolicyParameters, PATH_POLICY_DESCRIPTORS } from '../fs/path-settings';
import { createPathFilter, resolveAndValidatePath } from '../path-policy';
import { registerTool } from '../registry';
import { clampIntegerSetting } from '../stored-setting-readers';
import type { RegisteredTool, ToolContext, ToolDefinition } from '../types';

export type DirectoryEntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface ListDirectoryResult {
  /** The `path` argument as received. */
  path: string;
  entries: Array<{ name: string; type: DirectoryEntryType }>;
  /** True when the directory held more than `maxEntries` entries and the list was cut. */
  truncated: boolean;
  /** How many entries the directory holds (after the path policy), when the list was cut. */
  totalEntries?: number;
}

export const LIST_DIRECTORY_DEFAULT_MAX_ENTRIES = 1000;
const MAX_ENTRIES_LIMIT = 10_000;

const definition: ToolDefinition = {
  name: 'list_directory',
  description:
    'Lists the entries of one directory (not recursive), sorted by name, each with its type: file, directory, symlink or other. Symbolic links are shown as "symlink" without following them. Use glob to find files by pattern across a tree.',
  parameters: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description:
          'The directory to list: absolute, starting with "~", or relative to the chat\'s working directory (e.g. "." or "src").',
        minLength: 1,
        maxLength: 4096,
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
};

function typeOf(entry: Dirent): DirectoryEntryType {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  return 'other';
}

export async function listDirectory(
  args: unknown,
  context: ToolContext,
): Promise<ListDirectoryResult> {
  const { path: input } = parseToolArguments<{ path: string }>(args, definition.parameters);
  const maxEntries = clampIntegerSetting(context.parameters.maxEntries, {
    min: 1,
    max: MAX_ENTRIES_LIMIT,
    fallback: LIST_DIRECTORY_DEFAULT_MAX_ENTRIES,
  });
  const resolved = await resolveAndValidatePath(input, context);
  let isDirectory = false;
  try {
    isDirectory = (await stat(resolved.realPath)).isDirectory();
  } catch {
    throw new NotFoundError(
      resolved.exists
        ? `"${input}" is a symbolic link whose target does not exist.`
        : `Directory "${input}" does not exist. List its parent directory to see what is there.`,
    );
  }
  if (!isDirectory) {
    throw new ToolArgumentError(
      `"${input}" is not a directory. Use read_file to read a file; list_directory lists directories.`,
      { details: { argument: 'path' } },
    );
  }
  const isAllowed = await createPathFilter(context);
  const base = resolved.realPath === '/' ? '' : resolved.realPath;
  // An entry the path policy refuses (a denied sub-directory) is not shown; a symbolic
  // link is shown as a link, whatever it points to, since its target is not listed.
  let listed: Dirent[];
  try {
    listed = await readdir(resolved.realPath, { withFileTypes: true });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    throw new ToolExecutionError(
      `Directory "${input}" could not be read (${typeof code === 'string' ? code : String(error)}): the server's user may lack permission to list it.`,
      { cause: error },
    );
  }
  const visible = listed
    .filter((entry) => isAllowed(`${base}/${entry.name}`))
    .map((entry) => ({ name: entry.name, type: typeOf(entry) }))
    .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  const result: ListDirectoryResult = {
    path: input,
    entries: visible.slice(0, maxEntries),
    truncated: visible.length > maxEntries,
  };
  if (result.truncated) result.totalEntries = visible.length;
  return result;
}

export const listDirectoryTool: RegisteredTool = {
  definition,
  reachesHost: true,
  settings: {
    title: 'List directory',
    description: 'Lets the model list the files and folders of a directory.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {
      ...defaultPathPolicyParameters(),
      maxEntries: LIST_DIRECTORY_DEFAULT_MAX_ENTRIES,
    },
    parameterDescriptors: [
      ...PATH_POLICY_DESCRIPTORS,
      {
        name: 'maxEntries',
        label: 'Maximum entries',
        description: 'A directory with more entries is cut at this many (the result says so).',
        type: 'number',
        integer: true,
        min: 1,
        max: MAX_ENTRIES_LIMIT,
        defaultValue: LIST_DIRECTORY_DEFAULT_MAX_ENTRIES,
      },
    ],
  },
  execute: listDirectory,
};

registerTool(listDirectoryTool);
