/**
 * buildShellTool (docs/tools/shell.md#shell-tools): one implementation behind the bash, zsh and
 * powershell tools; they differ only by interpreter. This module turns a tool
 * call into a `runShellCommand` call: arguments, settings, the `cwd` through
 * the path policy, the time budget, and the sandbox when containment is on.
 */

import { realpathSync, statSync } from 'node:fs';
import { parseToolArguments, requireNonBlank } from '../../arg-parsing';
import { NotFoundError, ToolArgumentError, ToolUnavailableError } from '../../errors';
import {
  getEffectiveWorkingDirectory,
  isContainmentActive,
  resolveAndValidatePath,
} from '../../path-policy';
import {
  clampIntegerSetting,
  getBooleanSetting,
  getStringListSetting,
} from '../../stored-setting-readers';
import type { JsonSchema, RegisteredTool, ToolContext, ToolDefinition } from '../../types';
import { getSandboxStatus, type SandboxStatus } from './bubblewrap-sandbox';
import { runShellCommand, type ShellSandboxOptions } from './run-shell-command';
import type { ShellCommandResult, ShellInterpreter, ShellName } from './shell-types';

export const SHELL_TIMEOUT_SECONDS = { min: 5, max: 600, default: 30 } as const;
export const SHELL_MAX_OUTPUT_BYTES = { min: 1024, max: 1024 * 1024, default: 100 * 1024 } as const;
/** Longest command accepted, in characters (Windows refuses command lines past 32,767). */
export const MAX_COMMAND_LENGTH = 30_000;
/**
 * The part of the call's budget kept for ending the tree and collecting its
 * output. executeTool stops the call at `timeoutSeconds`; the command's own
 * timer fires this much earlier, so an overrunning command comes back as a
 * `timed_out` result with its partial output rather than a bare `timeout` error.
 */
export const SHELL_CLEANUP_RESERVE_MS = 1000;

const TITLES: Record<ShellName, string> = { bash: 'Bash', zsh: 'Zsh', powershell: 'PowerShell' };

function sourceParameters(): JsonSchema {
  return {
    type: 'object',
    properties: {
      command: {
        type: 'string',
        description: 'The command to run, as you would type it into the shell.',
        minLength: 1,
        maxLength: MAX_COMMAND_LENGTH,
      },
      cwd: {
        type: 'string',
        description:
          'Directory to run in: absolute, starting with "~", or relative to the chat\'s working directory. Defaults to the working directory in agent mode, else the server\'s own directory.',
        minLength: 1,
        maxLength: 4096,
      },
    },
    required: ['command'],
    additionalProperties: false,
  };
}

function describeTool(shell: ShellName, timeoutSeconds: number, maxOutputBytes: number): string {
  return [
    `Runs a ${TITLES[shell]} command on the server and returns its exit code, stdout, stderr, duration and how it ended (termination: exited, timed_out, aborted or signalled).`,
    'A non-zero exit code is a normal result, not an error.',
    `The command is stopped after ${timeoutSeconds} seconds; stdin is closed, so interactive prompts fail instead of waiting.`,
    `Each stream keeps at most ${maxOutputBytes} bytes: its head and tail, with the number of bytes dropped in between.`,
    'Processes the command starts in the background are killed when it ends; nothing outlives the call.',
  ].join(' ');
}

function readSettings(parameters: Record<string, unknown>) {
  return {
    timeoutSeconds: clampIntegerSetting(parameters.timeoutSeconds, {
      min: SHELL_TIMEOUT_SECONDS.min,
      max: SHELL_TIMEOUT_SECONDS.max,
      fallback: SHELL_TIMEOUT_SECONDS.default,
    }),
    maxOutputBytes: clampIntegerSetting(parameters.maxOutputBytes, {
      min: SHELL_MAX_OUTPUT_BYTES.min,
      max: SHELL_MAX_OUTPUT_BYTES.max,
      fallback: SHELL_MAX_OUTPUT_BYTES.default,
    }),
    allowedEnvVars: getStringListSetting(parameters.allowedEnvVars, []),
    deniedEnvVars: getStringListSetting(parameters.deniedEnvVars, []),
    sandbox: getBooleanSetting(parameters.sandbox, true),
  };
}

/** Why a non-admin's shell is unavailable: their commands run only in the sandbox. */
export function sandboxRequiredReason(status: SandboxStatus): string {
  return `Shell commands of users other than admins run only inside the bubblewrap sandbox, which does not work on this server: ${status.reason ?? 'bubblewrap is not available'}`;
}

/** A non-admin's shell is unavailable exactly when the sandbox is. */
function reasonWithoutSandbox(status: SandboxStatus): string | undefined {
  return status.available ? undefined : sandboxRequiredReason(status);
}

export const SANDBOX_SWITCHED_OFF_REASON =
  "The sandbox is switched off in this tool's settings (sandbox: false).";

export interface BuildShellToolOptions {
  /** How the sandbox's availability is learnt; tests replace it. Defaults to finding and probing `bwrap`. */
  sandboxStatus?: () => Promise<SandboxStatus>;
}

async function resolveWorkingDirectory(
  requested: string | undefined,
  context: ToolContext,
): Promise<string> {
  // A non-admin's commands start in their first granted root when no directory is named.
  const fallback =
    getEffectiveWorkingDirectory(context) ?? context.grantedRoots?.[0] ?? process.cwd();
  const resolved = await resolveAndValidatePath(requested ?? fallback, context, {
    argument: 'cwd',
  });
  if (!resolved.exists) {
    throw new NotFoundError(
      `The directory "${resolved.absolutePath}" does not exist. Pass an existing directory as "cwd"${requested === undefined ? ", or ask the user to fix the chat's working directory" : ''}.`,
    );
  }
  return resolved.realPath;
}

function existingRealPaths(
  paths: readonly string[] | undefined,
  kind: 'directory' | 'file' = 'directory',
): string[] {
  const real: string[] = [];
  for (const candidate of paths ?? []) {
    try {
      const resolved = realpathSync(candidate);
      if (statSync(resolved).isDirectory() === (kind === 'directory')) real.push(resolved);
    } catch {
      // gone or not made yet: nothing to mount or hide
    }
  }
  return [...new Set(real)];
}

/**
 * What the sandbox lets the command write (docs/tools/shell.md#the-sandbox): the working
 * directory under containment; else a non-admin's granted roots; else (an
 * admin) the agent chat's working directory and the directory it runs in.
 */
async function writableDirectoriesFor(context: ToolContext, cwd: string): Promise<string[]> {
  if (isContainmentActive(context)) {
    const directory = getEffectiveWorkingDirectory(context) as string;
    return [(await resolveAndValidatePath(directory, context, { argument: 'cwd' })).realPath];
  }
  if (context.grantedRoots !== undefined) return existingRealPaths(context.grantedRoots);
  const directory = getEffectiveWorkingDirectory(context);
  return existingRealPaths([...(directory ? [directory] : []), cwd]);
}

interface SandboxPlan {
  sandbox?: ShellSandboxOptions;
  unsandboxedReason?: string;
}

/**
 * The sandbox runs every command whenever it works here, in both modes. An
 * admin may switch it off (the `sandbox` setting); a non-admin's commands run
 * only inside it, so without it they are refused.
 */
async function planSandbox(
  context: ToolContext,
  cwd: string,
  wanted: boolean,
  sandboxStatus: () => Promise<SandboxStatus>,
): Promise<SandboxPlan> {
  const required = context.grantedRoots !== undefined;
  if (!required && !wanted) return { unsandboxedReason: SANDBOX_SWITCHED_OFF_REASON };
  const status = await sandboxStatus();
  if (!status.available || !status.executable) {
    if (required) throw new ToolUnavailableError(`${sandboxRequiredReason(status)}.`);
    return { unsandboxedReason: status.reason ?? 'bubblewrap is not available here.' };
  }
  return {
    sandbox: {
      executable: status.executable,
      writableDirectories: await writableDirectoriesFor(context, cwd),
      hiddenDirectories: existingRealPaths(context.protectedPaths),
      hiddenFiles: existingRealPaths(context.protectedPaths, 'file'),
    },
  };
}

export function buildShellTool(
  interpreter: ShellInterpreter,
  options: BuildShellToolOptions = {},
): RegisteredTool {
  const sandboxStatus = options.sandboxStatus ?? (() => getSandboxStatus());
  // By the promise `sandboxStatus` handed out: `getSandboxStatus` hands out the same one while its answer stands.
  const settledStatuses = new WeakMap<Promise<SandboxStatus>, SandboxStatus>();
  const shell = interpreter.shell;
  const definition: ToolDefinition = {
    name: shell,
    description: describeTool(shell, SHELL_TIMEOUT_SECONDS.default, SHELL_MAX_OUTPUT_BYTES.default),
    parameters: sourceParameters(),
  };
  return {
    definition,
    reachesHost: true,
    // A non-admin's commands run only in the sandbox: without it their shells are not offered.
    unavailableReason: (scope) => {
      if (scope.hostAccess?.kind !== 'granted') return undefined;
      // A status already learnt answers at once, so a listing (made per request) needs no
      // promise and no time budget for the shells.
      const pending = sandboxStatus();
      const known = settledStatuses.get(pending);
      if (known) return reasonWithoutSandbox(known);
      return pending.then((status) => {
        settledStatuses.set(pending, status);
        return reasonWithoutSandbox(status);
      });
    },
    buildDefinition: (settings) => {
      const { timeoutSeconds, maxOutputBytes } = readSettings(settings.parameters);
      return { ...definition, description: describeTool(shell, timeoutSeconds, maxOutputBytes) };
    },
    settings: {
      title: TITLES[shell],
      description: `Lets the model run ${TITLES[shell]} commands on the server (${interpreter.executable}). Off by default: a command can do anything the server's user can.`,
      category: 'system',
      enabledByDefault: false,
      canDisable: true,
      defaultParameters: {
        timeoutSeconds: SHELL_TIMEOUT_SECONDS.default,
        maxOutputBytes: SHELL_MAX_OUTPUT_BYTES.default,
        allowedEnvVars: [],
        deniedEnvVars: [],
        sandbox: true,
      },
      parameterDescriptors: [
        {
          name: 'timeoutSeconds',
          label: 'Timeout (seconds)',
          description:
            'How long one command may run before it and every process it started are killed.',
          type: 'number',
          integer: true,
          min: SHELL_TIMEOUT_SECONDS.min,
          max: SHELL_TIMEOUT_SECONDS.max,
          defaultValue: SHELL_TIMEOUT_SECONDS.default,
        },
        {
          name: 'maxOutputBytes',
          label: 'Output cap per stream (bytes)',
          description:
            'Bytes of stdout and of stderr kept for the model (head and tail); the rest is counted and dropped.',
          type: 'number',
          integer: true,
          min: SHELL_MAX_OUTPUT_BYTES.min,
          max: SHELL_MAX_OUTPUT_BYTES.max,
          defaultValue: SHELL_MAX_OUTPUT_BYTES.default,
        },
        {
          name: 'allowedEnvVars',
          label: 'Secret variables passed through',
          description:
            'Exact names of secret-looking environment variables (containing API_KEY, SECRET, TOKEN, PASSWORD, CREDENTIAL, PRIVATE_KEY or ACCESS_KEY) that commands may see anyway.',
          type: 'string_list',
          defaultValue: [],
        },
        {
          name: 'sandbox',
          label: 'Run in the sandbox',
          description:
            "Run commands inside bubblewrap (read-only system, writable working directory or granted roots, the server's data hidden) whenever it works on this server. Only admins can switch it off; other users' commands always run inside it.",
          type: 'boolean',
          defaultValue: true,
        },
        {
          name: 'deniedEnvVars',
          label: 'Variables withheld',
          description:
            'Exact names of further environment variables commands must not see (wins over the list above).',
          type: 'string_list',
          defaultValue: [],
        },
      ],
    },
    execute: async (args, context): Promise<ShellCommandResult> => {
      const startedAt = performance.now();
      const parsed = parseToolArguments<{ command: string; cwd?: string }>(
        args,
        definition.parameters,
      );
      const command = requireNonBlank(parsed.command, 'command');
      if (command.includes('\0')) {
        throw new ToolArgumentError('Argument "command" must not contain a NUL character.', {
          details: { argument: 'command' },
        });
      }
      const settings = readSettings(context.parameters);
      const cwd = await resolveWorkingDirectory(parsed.cwd, context);
      const plan = await planSandbox(context, cwd, settings.sandbox, sandboxStatus);
      const spent = performance.now() - startedAt;
      const timeoutMs = Math.max(
        1,
        settings.timeoutSeconds * 1000 - SHELL_CLEANUP_RESERVE_MS - spent,
      );
      return runShellCommand({
        interpreter,
        command,
        cwd,
        timeoutMs,
        maxOutputBytes: settings.maxOutputBytes,
        signal: context.signal,
        allowedEnvVars: settings.allowedEnvVars,
        deniedEnvVars: settings.deniedEnvVars,
        ...plan,
      });
    },
  };
}
