/**
 * runShellCommand (docs/tools/shell.md#shell-tools): starts one interpreter with `Bun.spawn` in its
 * own session and process group, stdin closed, and returns a structured result
 * when the shell exits. The time budget is enforced by our own timer; a parent
 * abort is told apart from it. On any end, whatever the command left running
 * is killed (the group, then escaped descendants), so nothing outlives the
 * call, and the pipes are drained for a short moment only: a background child
 * that holds stdout open cannot keep the call waiting.
 */
import { statSync } from 'node:fs';
import { raceTimeout } from '../../../../race-timeout';
import {
  NotFoundError,
  ToolAbortedError,
  ToolArgumentError,
  ToolError,
  ToolExecutionError,
  ToolTimeoutError,
} from '../../errors';
import { buildSandboxArguments } from './bubblewrap-sandbox';
import { createOutputCapture, type OutputCapture } from './output-capture';
import { createDescendantTracker, terminateProcessTree } from './process-tree';
import { buildShellEnvironment } from './shell-environment';
import {
  currentServerIdentity,
  guardProcessGroup,
  SHELL_SERVER_MARKER_VARIABLE,
} from './shell-guard';
import type { ShellCommandResult, ShellInterpreter, ShellTermination } from './shell-types';

/** Every process of a run inherits `MANGO_SHELL_RUN=<id>`; it is how escaped descendants are found. */
export const SHELL_RUN_MARKER_VARIABLE = 'MANGO_SHELL_RUN';

/** How long the pipes may still deliver output after the shell exited and its tree was killed. */
export const DEFAULT_DRAIN_MS = 500;
/** How often the running tree is walked to remember descendants before they can escape. */
const TRACKER_INTERVAL_MS = 250;
/** Runs shorter than this only inspect processes created after the shell (see terminateProcessTree). */
const RECENT_SCOPE_MAX_MS = 1000;

export interface ShellSandboxOptions {
  /** The bubblewrap executable. */
  executable: string;
  /** Real paths of the only directories (besides a private /tmp) the command may write to. */
  writableDirectories: readonly string[];
  /** Real paths of directories the command must not see (the server's data directory). */
  hiddenDirectories?: readonly string[];
  /** Real paths of files the command must not see (the server's `.env`). */
  hiddenFiles?: readonly string[];
}

export interface RunShellCommandOptions {
  interpreter: ShellInterpreter;
  command: string;
  /** Absolute path of an existing directory. */
  cwd: string;
  timeoutMs: number;
  /** Per stream. */
  maxOutputBytes: number;
  /** Fires on cancel (reason `ToolAbortedError`) or on the caller's own budget (reason `ToolTimeoutError`). */
  signal?: AbortSignal;
  /** The environment to filter; defaults to the server's. */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  allowedEnvVars?: readonly string[];
  deniedEnvVars?: readonly string[];
  /** Run inside bubblewrap; undefined runs the interpreter directly. */
  sandbox?: ShellSandboxOptions;
  /** Why the command runs without the sandbox (reported in the result when `sandbox` is absent). */
  unsandboxedReason?: string;
  drainMs?: number;
}

function signalError(signal: AbortSignal): ToolError {
  const reason = signal.reason;
  if (reason instanceof ToolError) return reason;
  return new ToolAbortedError('The shell command was cancelled before it started.', {
    cause: reason,
  });
}

function checkDirectory(cwd: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    throw new NotFoundError(
      `The directory "${cwd}" does not exist. Pass an existing directory as "cwd".`,
    );
  }
  if (!isDirectory) {
    throw new ToolArgumentError(`"${cwd}" is not a directory. Pass a directory as "cwd".`, {
      details: { argument: 'cwd' },
    });
  }
}

/**
 * Output read between two requests for a garbage collection. The stream hands
 * over a fresh buffer per read; asking the collector along the way keeps a
 * command that prints gigabytes from inflating the heap while its output is
 * read and dropped. The request is scheduled, never forced: a forced full
 * collection every 4 MB stalled every other request for up to ~90 ms each.
 */
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;

async function pump(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  capture: OutputCapture,
): Promise<void> {
  let sinceCollection = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      capture.push(value);
      sinceCollection += value.byteLength;
      if (sinceCollection >= COLLECT_EVERY_BYTES) {
        sinceCollection = 0;
        Bun.gc(false);
      }
    }
  } catch {
    // A cancelled or broken pipe ends the capture; what was read is kept.
  }
}

export async function runShellCommand(
  options: RunShellCommandOptions,
): Promise<ShellCommandResult> {
  const { interpreter, command, cwd, signal } = options;
  if (command.includes('\0')) {
    throw new ToolArgumentError('Argument "command" must not contain a NUL character.', {
      details: { argument: 'command' },
    });
  }
  checkDirectory(cwd);
  if (signal?.aborted) throw signalError(signal);

  const runId = crypto.randomUUID();
  const marker = `${SHELL_RUN_MARKER_VARIABLE}=${runId}`;
  const { env } = buildShellEnvironment(options.baseEnv ?? process.env, {
    allowedEnvVars: options.allowedEnvVars,
    deniedEnvVars: options.deniedEnvVars,
    extra: {
      [SHELL_RUN_MARKER_VARIABLE]: runId,
      [SHELL_SERVER_MARKER_VARIABLE]: currentServerIdentity(),
    },
  });
  const interpreterArgv = [interpreter.executable, ...interpreter.commandArguments(command)];
  const argv = options.sandbox
    ? [
        options.sandbox.executable,
        ...buildSandboxArguments({
          writableDirectories: options.sandbox.writableDirectories,
          ...(options.sandbox.hiddenDirectories
            ? { hiddenDirectories: options.sandbox.hiddenDirectories }
            : {}),
          ...(options.sandbox.hiddenFiles ? { hiddenFiles: options.sandbox.hiddenFiles } : {}),
          cwd,
        }),
        ...interpreterArgv,
      ]
    : interpreterArgv;
  const posix = process.platform !== 'win32';

  const startedAt = performance.now();
  let child: Bun.Subprocess<'ignore', 'pipe', 'pipe'>;
  try {
    child = Bun.spawn(argv, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // POSIX: setsid, so the shell leads a new session and process group we can kill as one.
      detached: posix,
      windowsHide: true,
    });
  } catch (error) {
    throw new ToolExecutionError(
      `Could not start ${interpreter.shell} (${argv[0]}): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }

  // If the server dies while the command runs, the guard kills its group (shell-guard.ts).
  const releaseGuard = posix ? guardProcessGroup(child.pid) : () => {};
  const maxOutputBytes = options.maxOutputBytes;
  const stdout = createOutputCapture(maxOutputBytes, 'stdout');
  const stderr = createOutputCapture(maxOutputBytes, 'stderr');
  const stdoutReader = child.stdout.getReader();
  const stderrReader = child.stderr.getReader();
  let readingDone = false;
  const reading = Promise.all([pump(stdoutReader, stdout), pump(stderrReader, stderr)]).then(() => {
    readingDone = true;
  });
  const tracker = createDescendantTracker(child.pid, TRACKER_INTERVAL_MS);

  let exited = false;
  let stopReason: 'timed_out' | 'aborted' | undefined;
  let stopping: Promise<number[]> | undefined;
  const stop = (reason: 'timed_out' | 'aborted') => {
    if (exited || stopReason) return;
    stopReason = reason;
    tracker.stop();
    stopping = terminateProcessTree({
      rootPid: child.pid,
      marker,
      known: tracker.known,
      scope: 'all',
    });
  };
  const timer = setTimeout(() => stop('timed_out'), options.timeoutMs);
  const onAbort = () => stop(signal?.reason instanceof ToolTimeoutError ? 'timed_out' : 'aborted');
  signal?.addEventListener('abort', onAbort, { once: true });

  try {
    await child.exited;
  } finally {
    exited = true;
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    tracker.stop();
  }
  const durationMs = Math.round(performance.now() - startedAt);

  // Whatever the shell left behind dies with it: background jobs, setsid'd and double-forked children.
  // (Windows: taskkill walks the tree from a live root only, so there is nothing to sweep after exit.)
  const survivors = new Set(await (stopping ?? Promise.resolve([])));
  if (posix) {
    const leftovers = await terminateProcessTree({
      rootPid: child.pid,
      marker,
      known: tracker.known,
      scope: durationMs < RECENT_SCOPE_MAX_MS && !stopping ? 'recent' : 'all',
    });
    for (const pid of leftovers) survivors.add(pid);
  }

  releaseGuard();

  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  // Both pipes have usually reached their end by now: then no drain timer is needed.
  const drained =
    readingDone ||
    (await raceTimeout(
      reading.then(() => true),
      drainMs,
      false,
    ));
  if (!drained) {
    // A survivor still holds a pipe: stop reading rather than wait for it.
    await Promise.allSettled([stdoutReader.cancel(), stderrReader.cancel()]);
    await reading;
  }

  const out = stdout.finish();
  const err = stderr.finish();
  const termination: ShellTermination = stopReason ?? (child.signalCode ? 'signalled' : 'exited');
  const result: ShellCommandResult = {
    shell: interpreter.shell,
    command,
    cwd,
    exitCode: child.exitCode,
    signal: child.signalCode === null ? null : String(child.signalCode),
    stdout: out.text,
    stderr: err.text,
    truncated: out.truncated || err.truncated,
    droppedBytes: out.droppedBytes + err.droppedBytes,
    durationMs,
    termination,
    sandboxed: options.sandbox !== undefined,
  };
  if (!options.sandbox && options.unsandboxedReason)
    result.unsandboxedReason = options.unsandboxedReason;
  if (survivors.size > 0) result.survivingPids = [...survivors].sort((a, b) => a - b);
  return result;
}
