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
import type { ExecutableLookup } from './shell-interpreters';

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

/** How long a search of the PATH for `bwrap` is reused: bubblewrap installed later is found within it. */
export const SANDBOX_LOOKUP_TTL_MS = 60_000;

export interface RememberedLookupOptions {
  ttlMs: number;
  /** Milliseconds on any monotonic clock. */
  now?: () => number;
  /** The PATH the lookup searches: a different one is searched afresh. */
  path?: () => string | undefined;
}

/**
 * `which` with each command's answer kept for `ttlMs` while the PATH is the
 * same. Searching the PATH costs a `stat` per directory (about 20 µs here),
 * and the sandbox's status is asked for by every tool listing of a user with
 * granted roots, which the settings API makes on each request.
 */
export function createRememberedLookup(
  which: ExecutableLookup,
  options: RememberedLookupOptions,
): ExecutableLookup {
  const now = options.now ?? (() => performance.now());
  const pathOf = options.path ?? (() => process.env.PATH);
  const answers = new Map<
    string,
    { executable: string | null; path: string | undefined; at: number }
  >();
  return (command) => {
    const path = pathOf();
    const at = now();
    const known = answers.get(command);
    if (known && known.path === path && at - known.at < options.ttlMs) return known.executable;
    const executable = which(command);
    answers.set(command, { executable, path, at });
    return executable;
  };
}

const findInPath = createRememberedLookup((command) => Bun.which(command), {
  ttlMs: SANDBOX_LOOKUP_TTL_MS,
});

const NOT_INSTALLED: Promise<SandboxStatus> = Promise.resolve(
  Object.freeze({ available: false, reason: 'bubblewrap (bwrap) is not installed.' }),
);

/**
 * Finds `bwrap` and checks, once per executable, that it can start a sandbox
 * here. The same status comes back as the same promise while the answer
 * stands, so a caller can keep what it learnt from it.
 */
export function getSandboxStatus(which: ExecutableLookup = findInPath): Promise<SandboxStatus> {
  const executable = which('bwrap');
  if (!executable) return NOT_INSTALLED;
  let pending = probes.get(executable);
  if (!pending) {
    pending = probe(executable);
    probes.set(executable, pending);
  }
  return pending;
}
