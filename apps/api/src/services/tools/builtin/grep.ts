/**
 * grep (docs/tools/filesystem.md#grep): lines matching a JavaScript regular expression in one file
 * or in every file below a directory. The walk streams on the main thread; the
 * reading and matching run in the worker pool, with a time budget, so a
 * catastrophic pattern ends the search with a reason instead of stalling the
 * server. Result paths are re-anchored to the chat's working directory.
 */
import { stat } from 'node:fs/promises';
import { parseToolArguments } from '../arg-parsing';
import { GrepPatternError, NotFoundError, ToolArgumentError } from '../errors';
import { compileFileFilter } from '../fs/glob-pattern';
import { defaultPathPolicyParameters, PATH_POLICY_DESCRIPTORS } from '../fs/path-settings';
import { DEFAULT_WALK_LIMITS, type WalkLimits } from '../fs/walk-tree';
import {
  createPathFilter,
  createReportedPathBuilder,
  resolveAndValidatePath,
  toReportedPath,
} from '../path-policy';
import { registerTool } from '../registry';
import { clampIntegerSetting, getBooleanSetting } from '../stored-setting-readers';
import type { RegisteredTool, ToolContext, ToolDefinition } from '../types';
import { type GrepMatch, runGrepSearch } from './grep/grep-search';
import { type GrepWorkerPool, getGrepWorkerPool } from './grep/grep-worker-pool';

export interface GrepResult {
  pattern: string;
  /** The `path` argument as received. */
  path: string;
  matches: GrepMatch[];
  filesScanned: number;
  truncated: boolean;
  truncatedReason?: string;
  /** Files not searched: binary (a NUL byte in the first 8 KiB), over maxFileSizeBytes, unreadable. */
  skippedFiles?: { binary: number; tooLarge: number; unreadable: number };
  notes?: string[];
}

export const GREP_DEFAULTS = {
  maxResults: 100,
  maxMatchesPerFile: 20,
  maxFileSizeBytes: 1024 * 1024,
  includeDotfiles: false,
} as const;
export const GREP_MAX_RESULTS_LIMIT = 5000;
const MAX_MATCHES_PER_FILE_LIMIT = 1000;
/** Larger than read_file's text cap would find lines read_file cannot show. */
const MAX_FILE_SIZE_LIMIT = 10 * 1024 * 1024;
/** The search's own time budget, inside the call's 30 s timeout, so it ends with a result and a reason. */
export const GREP_TIME_BUDGET_MS = 15_000;

const definition: ToolDefinition = {
  name: 'grep',
  description:
    'Searches files for lines matching a JavaScript regular expression (no inline flags such as (?i): use caseInsensitive). path is one file or a directory searched recursively; glob filters the files of a directory search ("*.ts" matches at any depth, "src/**/*.ts" is relative to path). Binary files, files over the size limit and dot files are skipped. Each match gives the file (relative to the chat\'s working directory, ready for read_file), the 1-based line number and the line.',
  parameters: {
    type: 'object',
    properties: {
      pattern: {
        type: 'string',
        description:
          'The regular expression, JavaScript syntax, e.g. "parseConfig" or "export (async )?function".',
        minLength: 1,
        maxLength: 1000,
      },
      path: {
        type: 'string',
        description:
          'The file or directory to search: absolute, starting with "~", or relative to the chat\'s working directory (e.g. ".").',
        minLength: 1,
        maxLength: 4096,
      },
      glob: {
        type: 'string',
        description: 'Only search files matching this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}".',
        minLength: 1,
        maxLength: 1000,
      },
      caseInsensitive: {
        type: 'boolean',
        description: 'Match letters regardless of case. Defaults to false.',
      },
    },
    required: ['pattern', 'path'],
    additionalProperties: false,
  },
};

type GrepArguments = {
  pattern: string;
  path: string;
  glob?: string;
  caseInsensitive?: boolean;
};

export interface GrepRunOptions {
  /** Overrides the time budget (tests use a short one). */
  timeBudgetMs?: number;
  walkLimits?: Partial<Omit<WalkLimits, 'deadline'>>;
  pool?: GrepWorkerPool;
}

function checkPattern(source: string, caseInsensitive: boolean): void {
  try {
    new RegExp(source, caseInsensitive ? 'i' : '');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const hint = /^\(\?[a-z]+\)/i.test(source)
      ? ' Inline flags such as (?i) are not JavaScript syntax: drop them and set caseInsensitive to true.'
      : ' Escape special characters such as ( [ { * + ? with a backslash to match them literally.';
    throw new GrepPatternError(
      `Argument "pattern" is not a valid JavaScript regular expression: ${reason}.${hint}`,
      { details: { argument: 'pattern' } },
    );
  }
}

async function locateRoot(
  realPath: string,
  input: string,
  exists: boolean,
): Promise<'file' | 'directory'> {
  let stats: Awaited<ReturnType<typeof stat>>;
  try {
    stats = await stat(realPath);
  } catch {
    throw new NotFoundError(
      exists
        ? `"${input}" is a symbolic link whose target does not exist.`
        : `"${input}" does not exist. Use list_directory or glob to find the right path.`,
    );
  }
  if (stats.isDirectory()) return 'directory';
  if (stats.isFile()) return 'file';
  throw new ToolArgumentError(
    `"${input}" is neither a regular file nor a directory (a device, FIFO or socket); grep searches files and directories only.`,
    { details: { argument: 'path' } },
  );
}

function describeSkippedFile(skipped: GrepResult['skippedFiles'], maxBytes: number): string[] {
  if (skipped?.binary) {
    return [
      'The file is binary (a NUL byte in its first 8 KiB) and was not searched; read_file with view "hex" or "base64" shows its bytes.',
    ];
  }
  if (skipped?.tooLarge) {
    return [
      `The file is larger than maxFileSizeBytes (${maxBytes} bytes) and was not searched; read it in windows with read_file (startLine/maxLines).`,
    ];
  }
  if (skipped?.unreadable) return ['The file could not be read.'];
  return [];
}

export async function runGrep(
  args: unknown,
  context: ToolContext,
  options: GrepRunOptions = {},
): Promise<GrepResult> {
  const parsed = parseToolArguments<GrepArguments>(args, definition.parameters);
  const caseInsensitive = parsed.caseInsensitive ?? false;
  checkPattern(parsed.pattern, caseInsensitive);
  const fileFilter = parsed.glob === undefined ? undefined : compileFileFilter(parsed.glob, 'glob');
  const parameters = context.parameters;
  const maxResults = clampIntegerSetting(parameters.maxResults, {
    min: 1,
    max: GREP_MAX_RESULTS_LIMIT,
    fallback: GREP_DEFAULTS.maxResults,
  });
  const maxMatchesPerFile = clampIntegerSetting(parameters.maxMatchesPerFile, {
    min: 1,
    max: MAX_MATCHES_PER_FILE_LIMIT,
    fallback: GREP_DEFAULTS.maxMatchesPerFile,
  });
  const maxFileSizeBytes = clampIntegerSetting(parameters.maxFileSizeBytes, {
    min: 1,
    max: MAX_FILE_SIZE_LIMIT,
    fallback: GREP_DEFAULTS.maxFileSizeBytes,
  });
  const includeDotfiles = getBooleanSetting(
    parameters.includeDotfiles,
    GREP_DEFAULTS.includeDotfiles,
  );

  const resolved = await resolveAndValidatePath(parsed.path, context);
  const kind = await locateRoot(resolved.realPath, parsed.path, resolved.exists);
  const outcome = await runGrepSearch({
    source: parsed.pattern,
    caseInsensitive,
    root: { kind, realPath: resolved.realPath },
    fileFilter: kind === 'directory' ? fileFilter : undefined,
    includeDotfiles,
    isAllowed: await createPathFilter(context),
    // A walk's files are reported from their path below the root: one string join each.
    reportPath:
      kind === 'directory'
        ? createReportedPathBuilder(resolved.absolutePath, context)
        : () => toReportedPath(resolved.absolutePath, context),
    maxResults,
    maxMatchesPerFile,
    maxFileSizeBytes,
    limits: {
      ...DEFAULT_WALK_LIMITS,
      ...options.walkLimits,
      deadline: Date.now() + (options.timeBudgetMs ?? GREP_TIME_BUDGET_MS),
    },
    signal: context.signal,
    pool: options.pool ?? getGrepWorkerPool(),
  });

  const result: GrepResult = {
    pattern: parsed.pattern,
    path: parsed.path,
    matches: outcome.matches,
    filesScanned: outcome.filesScanned,
    truncated: outcome.truncated,
  };
  if (outcome.truncatedReason) result.truncatedReason = outcome.truncatedReason;
  const { binary, tooLarge, unreadable } = outcome.skipped;
  if (binary + tooLarge + unreadable > 0) result.skippedFiles = outcome.skipped;
  const notes = [...outcome.notes];
  if (kind === 'file') {
    notes.push(...describeSkippedFile(result.skippedFiles, maxFileSizeBytes));
    if (fileFilter) notes.push('"glob" filters directory searches; it was ignored for one file.');
  }
  if (notes.length > 0) result.notes = notes;
  return result;
}

export const grepTool: RegisteredTool = {
  definition,
  reachesHost: true,
  settings: {
    title: 'Grep',
    description: 'Lets the model search file contents with regular expressions.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { ...defaultPathPolicyParameters(), ...GREP_DEFAULTS },
    parameterDescriptors: [
      ...PATH_POLICY_DESCRIPTORS,
      {
        name: 'maxResults',
        label: 'Maximum results',
        description:
          'The search stops after this many matching lines (the result says it was cut).',
        type: 'number',
        integer: true,
        min: 1,
        max: GREP_MAX_RESULTS_LIMIT,
        defaultValue: GREP_DEFAULTS.maxResults,
      },
      {
        name: 'maxMatchesPerFile',
        label: 'Maximum matches per file',
        description: 'At most this many matching lines are reported from one file.',
        type: 'number',
        integer: true,
        min: 1,
        max: MAX_MATCHES_PER_FILE_LIMIT,
        defaultValue: GREP_DEFAULTS.maxMatchesPerFile,
      },
      {
        name: 'maxFileSizeBytes',
        label: 'Maximum file size (bytes)',
        description: 'Larger files are skipped (and counted in the result).',
        type: 'number',
        integer: true,
        min: 1,
        max: MAX_FILE_SIZE_LIMIT,
        defaultValue: GREP_DEFAULTS.maxFileSizeBytes,
      },
      {
        name: 'includeDotfiles',
        label: 'Include dot files',
        description: 'Also search files and folders whose name starts with "." (e.g. .github).',
        type: 'boolean',
        defaultValue: GREP_DEFAULTS.includeDotfiles,
      },
    ],
  },
  execute: (args, context) => runGrep(args, context),
};

registerTool(grepTool);
