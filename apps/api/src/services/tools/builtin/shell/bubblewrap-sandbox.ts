/**
 * The OS sandbox for shell commands (docs/tools/shell.md#the-sandbox), used whenever it
 * works here: bubblewrap with the whole file system mounted read-only, the
 * working directory (or the user's granted roots) mounted writable, the
 * server's data directory hidden, a private /tmp, /dev and /proc, and its own
 * pid namespace (so every process of the command dies with it, and the server
 * is not in its process table).
 *
 * bubblewrap needs either privileges or unprivileged user namespaces, which
 * many containers and hardened kernels refuse. Whether it works is learnt once
 * per executable by starting a trivial sandbox; when that fails, commands run
 * without the sandbox and their results say `sandboxed: false`.
 */
import { tmpdir } from 'node:os';

export interface SandboxStatus {
  available: boolean;
  /** The bubblewrap executable, when found. */
  executable?: string;
  /** Why the sandbox is not available (not installed, or what the probe printed). */
  reason?: string;
}

export interface SandboxLayout {
  /** Real paths of the directories the command may write to (the working directory, or the granted roots). */
  writableDirectories: readonly string[];
  /** Real paths of existing directories the command must not see at all (the server's data directory). */
  hiddenDirectories?: readonly string[];
  /** Real paths of existing files the command must not see (the server's `.env`): empty in the sandbox. */
  hiddenFiles?: readonly string[];
  /** Real path of the directory the command starts in. */
  cwd: string;
}

/** The bubblewrap arguments that come before the interpreter and its own arguments. */
export function buildSandboxArguments(layout: SandboxLayout): string[] {
  return [
    '--die-with-parent',
    // A new session: the command cannot push input into the server's terminal (TIOCSTI).
    '--new-session',
    '--unshare-pid',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    // After the /tmp mount, so a working directory under /tmp stays the real one.
    ...layout.writableDirectories.flatMap((directory) => ['--bind', directory, directory]),
    // Last, so a data directory below a writable one is hidden too: an empty tmpfs over it.
    ...(layout.hiddenDirectories ?? []).flatMap((directory) => ['--tmpfs', directory]),
    ...(layout.hiddenFiles ?? []).flatMap((file) => ['--ro-bind', '/dev/null', file]),
    '--chdir',
    layout.cwd,
    '--',
  ];
}

const PROBE_TIMEOUT_MS = 5000;
const probes = new Map<string, Promise<SandboxStatus>>();

async function probe(executable: string): Promise<SandboxStatus> {
  try {
    const directory = tmpdir();
    const child = Bun.spawn(
      [
        executable,
        ...buildSandboxArguments({ writableDirectories: [directory], cwd: directory }),
        'true',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS, killSignal: 'SIGKILL' },
    );
    const [exitCode, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    if (exitCode === 0) return { available: true, executable };
    return {
      available: false,
      executable,
      reason: `bubblewrap could not start a sandbox here (exit ${exitCode}): ${stderr.trim().slice(0, 300) || 'no message'}. It usually needs unprivileged user namespaces.`,
    };
  } catch (error) {
    return {
      available: false,
      executable,
      reason: `bubblewrap could not be started: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** Finds `bwrap` and checks, once per executable, that it can start a sandbox here. */
export function getSandboxStatus(
  which: (command: string) => string | null = (command) => Bun.which(command),
): Promise<SandboxStatus> {
  const executable = which('bwrap');
  if (!executable) {
    return Promise.resolve({ available: false, reason: 'bubblewrap (bwrap) is not installed.' });
  }
  let pending = probes.get(executable);
  if (!pending) {
    pending = probe(executable);
    probes.set(executable, pending);
  }
  return pending;
}
