/**
 * Nothing a shell started outlives the server (docs/tools/shell.md#when-the-server-dies),
 * however the server dies:
 *
 * - **A guard in the command's process group.** The interpreter is started
 *   through `sh`, which forks a guard that blocks reading the server's end of
 *   a pipe (the command's stdin; the command itself gets /dev/null) and then
 *   execs the interpreter. When the server dies, even by SIGKILL, the kernel
 *   closes its end, the guard's read ends and it SIGKILLs the whole group.
 *   (Inside the sandbox, bubblewrap's `--die-with-parent` and its pid
 *   namespace end everything too.)
 * - **A sweep at start-up.** Every process of a command carries
 *   `MANGO_SHELL_SERVER=<pid>.<start time>` of the server that started it. A
 *   starting server SIGKILLs every process whose server is gone: what left
 *   the group (setsid, double forks) is found this way.
 */
import { readFileSync } from 'node:fs';
import {
  isProcessAlive,
  isProcessTableAvailable,
  listProcessIds,
  readProcessStatus,
} from './process-table';

/** Names the server that started a command's processes, `<pid>.<start time in ticks>`. */
export const SHELL_SERVER_MARKER_VARIABLE = 'MANGO_SHELL_SERVER';

/** The guard: fd 3 is the server's pipe; the guard's own output goes nowhere, so it holds no pipe of the command. */
const GUARD_SCRIPT = [
  'exec 3<&0',
  '{ read -r _ <&3; kill -KILL 0; } </dev/null >/dev/null 2>&1 &',
  'exec "$@" </dev/null 3<&-',
].join('\n');

/** argv that runs `argv` under the guard (POSIX); the caller gives the process a stdin pipe it keeps open. */
export function guardedArgv(argv: readonly string[], shell = '/bin/sh'): string[] {
  return [shell, '-c', GUARD_SCRIPT, 'mango-shell-guard', ...argv];
}

let serverIdentity: string | undefined;

/** This server process as its commands' marker names it. */
export function currentServerIdentity(): string {
  if (serverIdentity === undefined) {
    const status = readProcessStatus(process.pid);
    serverIdentity = `${process.pid}.${status?.startTime ?? '0'}`;
  }
  return serverIdentity;
}

/** The server named by the process's marker, if it has one (its initial environment, as /proc shows it). */
function markedServer(pid: number, prefix: string): string | undefined {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return undefined;
  }
  if (!environ.includes(prefix)) return undefined;
  for (const entry of environ.split('\0'))
    if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return undefined;
}

/**
 * SIGKILLs every process (of this user) that a server which is no longer
 * running started for a shell command. Resolves to the pids it signalled.
 */
export function sweepOrphanedShellProcesses(): number[] {
  if (!isProcessTableAvailable()) return [];
  const prefix = `${SHELL_SERVER_MARKER_VARIABLE}=`;
  const killed: number[] = [];
  const serverAlive = new Map<string, boolean>();
  for (const pid of listProcessIds()) {
    if (pid === process.pid) continue;
    const server = markedServer(pid, prefix);
    if (server === undefined) continue;
    let alive = serverAlive.get(server);
    if (alive === undefined) {
      const [serverPid, startTime] = server.split('.');
      alive = isProcessAlive(Number(serverPid), startTime);
      serverAlive.set(server, alive);
    }
    if (alive) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return killed;
}
