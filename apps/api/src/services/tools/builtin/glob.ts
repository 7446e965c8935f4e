/**
 * glob (docs/tools/filesystem.md#glob): paths matching a `Bun.Glob` pattern below `cwd`, found by
 * a streaming walk that stops at `maxResults`. Result paths are re-anchored to
 * the chat's working directory so each one can go straight into read_file.
 */
import { statSync } from 'node:fs';
import { parseToolArguments } from '../arg-parsing';
import { NotFoundError, ToolArgumentError } from '../errors';
import { compileGlob } from '../fs/glob-pattern';
import { defaultPathPolicyParameters, PATH_POLICY_DESCRIPTORS } from '../fs/path-settings';
import { DEFAULT_WALK_LIMITS, type WalkLimits, walkTree } from '../fs/walk-tree';
import {
  createPathFilter,
  createReportedPathBuilder,
  getEffectiveWorkingDirectory,
  resolveAndValidatePath,
} from '../path-policy';
import { registerTool } from '../registry';
import { clampIntegerSetting, getBooleanSetting } from '../stored-setting-readers';
import type { RegisteredTool, ToolContext, ToolDefinition } from '../types';

export interface GlobResult {
  pattern: string;
  /** The `cwd` argument as received, or the directory used when it was omitted (absolute). */
  cwd: string;
  /** Relative to the chat's working directory; absolute without one, outside it, or with `absolute`. */
  matches: string[];
  truncated: boolean;
  truncatedReason?: string;
  notes?: string[];
}

export const GLOB_DEFAULT_MAX_RESULTS = 200;
export const GLOB_MAX_RESULTS_LIMIT = 5000;
/** The walk's own time budget, well inside the call's 30 s timeout, so a huge tree ends with a result. */
export const GLOB_TIME_BUDGET_MS = 10_000;

const definition: ToolDefinition = {
  name: 'glob',
  description:
    'Finds files and directories whose path matches a glob pattern, relative to cwd: "*" and "?" within a name, "**" across directories, "[abc]", "{ts,tsx}" alternatives, and a leading "!" to negate. "*.ts" matches only directly in cwd; use "**/*.ts" for any depth. Returned paths are relative to the chat\'s working directory (absolute when there is none), ready for read_file. Dot files are skipped unless the pattern names them or the includeDotfiles setting is on.',
  parameters: {
    type: 'object',
    properties: {
      pattern: {
        type: 'string',
        description: 'The glob pattern, e.g. "**/*.ts" or "src/**/*.{ts,tsx}".',
        minLength: 1,
        maxLength: 1000,
      },
      cwd: {
        type: 'string',
        description:
          'The directory to search from: absolute, starting with "~", or relative to the chat\'s working directory. Defaults to the working directory.',
        minLength: 1,
        maxLength: 4096,
      },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
};

export interface GlobRunOptions {
  /** Overrides for the walk's limits (tests exercise them with small values). */
  timeBudgetMs?: number;
  walkLimits?: Partial<Omit<WalkLimits, 'deadline'>>;
}

async function requireDirectory(realPath: string, input: string, exists: boolean): Promise<void> {
  let isDirectory = false;
  try {
    isDirectory = statSync(realPath).isDirectory();
  } catch {
    throw new NotFoundError(
      exists
        ? `"cwd" ("${input}") is a symbolic link whose target does not exist.`
        : `Directory "${input}" (argument "cwd") does not exist.`,
    );
  }
  if (!isDirectory) {
    throw new ToolArgumentError(
      `Argument "cwd" ("${input}") is a file, not a directory. Give the directory to search from, and put file names in the pattern.`,
      { details: { argument: 'cwd' } },
    );
  }
}

export async function runGlob(
  args: unknown,
  context: ToolContext,
  options: GlobRunOptions = {},
): Promise<GlobResult> {
  const parsed = parseToolArguments<{ pattern: string; cwd?: string }>(args, definition.parameters);
  const compiled = compileGlob(parsed.pattern, { argument: 'pattern', baseArgument: 'cwd' });
  const parameters = context.parameters;
  const maxResults = clampIntegerSetting(parameters.maxResults, {
    min: 1,
    max: GLOB_MAX_RESULTS_LIMIT,
    fallback: GLOB_DEFAULT_MAX_RESULTS,
  });
  const includeDotfiles = getBooleanSetting(parameters.includeDotfiles, false);
  const absolute = getBooleanSetting(parameters.absolute, false);

  const base = await resolveAndValidatePath(
    parsed.cwd ?? getEffectiveWorkingDirectory(context) ?? process.cwd(),
    context,
    { argument: 'cwd' },
  );
  await requireDirectory(base.realPath, base.input, base.exists);
  const walk = walkTree({
    baseRealPath: base.realPath,
    startSegments: compiled.literalPrefix,
    isAllowed: await createPathFilter(context),
    include: includeDotfiles
      ? undefined
      : (name) => !name.startsWith('.') || compiled.namesDotEntry(name),
    wantedDepth: compiled.maxDepth,
    limits: {
      ...DEFAULT_WALK_LIMITS,
      ...options.walkLimits,
      deadline: Date.now() + (options.timeBudgetMs ?? GLOB_TIME_BUDGET_MS),
    },
    signal: context.signal,
  });

  const result: GlobResult = {
    pattern: parsed.pattern,
    cwd: parsed.cwd ?? base.absolutePath,
    matches: [],
    truncated: false,
  };
  const prefix = base.absolutePath === '/' ? '' : base.absolutePath;
  const reported = createReportedPathBuilder(base.absolutePath, context);
  collect: for await (const batch of walk.batches) {
    for (const entry of batch) {
      if (!compiled.matches(entry.relativePath)) continue;
      if (result.matches.length === maxResults) {
        result.truncated = true;
        result.truncatedReason = `more than maxResults (${maxResults}) paths match; narrow the pattern or cwd, or ask the user to raise maxResults`;
        break collect;
      }
      result.matches.push(
        absolute ? `${prefix}/${entry.relativePath}` : reported(entry.relativePath),
      );
    }
  }
  if (!result.truncated && walk.report.incompleteBecause) {
    result.truncated = true;
    result.truncatedReason = walk.report.incompleteBecause;
  }
  const notes = walk.report.notes();
  if (notes.length > 0) result.notes = notes;
  return result;
}

export const globTool: RegisteredTool = {
  definition,
  reachesHost: true,
  settings: {
    title: 'Glob',
    description: 'Lets the model find files by name pattern (e.g. **/*.ts).',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {
      ...defaultPathPolicyParameters(),
      maxResults: GLOB_DEFAULT_MAX_RESULTS,
      includeDotfiles: false,
      absolute: false,
    },
    parameterDescriptors: [
      ...PATH_POLICY_DESCRIPTORS,
      {
        name: 'maxResults',
        label: 'Maximum results',
        description: 'The search stops after this many paths (the result says it was cut).',
        type: 'number',
        integer: true,
        min: 1,
        max: GLOB_MAX_RESULTS_LIMIT,
        defaultValue: GLOB_DEFAULT_MAX_RESULTS,
      },
      {
        name: 'includeDotfiles',
        label: 'Include dot files',
        description:
          'Also match files and folders whose name starts with "." (always matched when the pattern names them).',
        type: 'boolean',
        defaultValue: false,
      },
      {
        name: 'absolute',
        label: 'Absolute paths',
        description:
          "Return absolute paths instead of paths relative to the chat's working directory.",
        type: 'boolean',
        defaultValue: false,
      },
    ],
  },
  execute: (args, context) => runGlob(args, context),
};

registerTool(globTool);
