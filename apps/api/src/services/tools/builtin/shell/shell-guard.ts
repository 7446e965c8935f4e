/**
 * Nothing a shell started outlives the server (docs/tools/shell.md#when-the-server-dies),
 * however the server dies:
 *
 * - **A guard process.** One small `sh` per server process, started with the
 *   first command, reads a pipe whose other end only the server holds. The
 *   server tells it each command's process group as the command starts
 *   (`add <pgid>`) and ends (`del <pgid>`, sent with the next `add` or
 *   within `GUARD_DELETE_DELAY_MS`). When the server dies, even by
 *   SIGKILL, the kernel closes its end; the guard's read ends and it SIGKILLs
 *   every group still registered, then exits. (Inside the sandbox,
 *   bubblewrap's `--die-with-parent` and its pid namespace end everything too.)
 * - **A sweep at start-up, and every minute.** Every process of a command
 *   carries `MANGO_SHELL_SERVER=<pid namespace>.<pid>.<start time>` of the
 *   server that started it. A server SIGKILLs every process whose server is
 *   gone: what left the group (setsid, double forks) is found this way.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import {
  isProcessAlive,
  isProcessTableAvailable,
  listProcessIds,
  readProcessStatus,
} from './process-table';

/** Names the server that started a command's processes, `<pid>.<start time in ticks>`. */
export const SHELL_SERVER_MARKER_VARIABLE = 'MANGO_SHELL_SERVER';

/**
 * The guard: registered groups are kept as shell variables (no process per
 * command); at end of input (the server is gone) every one left is killed.
 */
const GUARD_SCRIPT = [
  'while read -r op pgid; do',
  '  case $op in',
  '    add) eval "g_$pgid=1" ;;',
  '    del) unset "g_$pgid" ;;',
  '  esac',
  'done',
  `for pgid in $(set | sed -n 's/^g_\\([0-9][0-9]*\\)=.*/\\1/p'); do kill -KILL "-$pgid" 2>/dev/null; done`,
].join('\n');

interface Guard {
  registry: GroupRegistry;
}

/**
 * How long an ended command's `del` may wait to ride along with the next
 * command's `add`: one write, and one wake-up of the guard, per command instead
 * of two. A group is dead when its `del` is queued, and its number comes back
 * only after the kernel hands out every other pid first, so the delay leaves
 * nothing alive registered.
 */
export const GUARD_DELETE_DELAY_MS = 200;

export interface GroupRegistry {
  /** Registers `pgid` at once; the function returned unregisters it (within `deleteDelayMs`). */
  add(pgid: number): () => void;
}

/** The guard's protocol over `write`: `add` lines at once, preceded by the `del` lines waiting. */
export function createGroupRegistry(
  write: (text: string) => void,
  deleteDelayMs = GUARD_DELETE_DELAY_MS,
): GroupRegistry {
  let waiting = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const take = () => {
    clearTimeout(timer);
    timer = undefined;
    const text = waiting;
    waiting = '';
    return text;
  };
  const flush = () => {
    const text = take();
    if (text !== '') write(text);
  };
  return {
    add(pgid) {
      write(`${take()}add ${pgid}\n`);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        waiting += `del ${pgid}\n`;
        if (!timer) {
          timer = setTimeout(flush, deleteDelayMs);
          timer.unref?.();
        }
      };
    },
  };
}

let guard: Guard | null | undefined;

function startGuard(): Guard | null {
  try {
    const child = Bun.spawn(['/bin/sh', '-c', GUARD_SCRIPT], {
      stdio: ['pipe', 'ignore', 'ignore'],
      // Nothing of the server's environment: a command could read the guard's /proc/<pid>/environ.
      env: { PATH: '/usr/bin:/bin' },
      // Its own session: a Ctrl-C meant for the server's terminal does not end the guard first.
      detached: true,
    });
    // The guard lives as long as the server, but never keeps it from exiting.
    child.unref();
    const sink = child.stdin;
    let alive = true;
    void child.exited.then(() => {
      alive = false;
      guard = undefined;
    });
    return {
      registry: createGroupRegistry((text) => {
        if (!alive) return;
        try {
          sink.write(text);
          void Promise.resolve(sink.flush()).catch(() => {});
        } catch {
          // the guard is gone; the next command starts another
        }
      }),
    };
  } catch {
    return null;
  }
}

/**
 * Registers a command's process group with the guard; call the returned
 * function when the command has ended and its group is gone. POSIX only
 * (elsewhere a no-op).
 */
export function guardProcessGroup(pgid: number): () => void {
  if (process.platform === 'win32' || !Number.isInteger(pgid) || pgid <= 1) return () => {};
  if (guard === undefined) guard = startGuard();
  const current = guard;
  if (!current) return () => {};
  return current.registry.add(pgid);
}

let serverIdentity: string | undefined;

/**
 * The pid namespace pids are counted in (`pid:[4026531836]`). A marker from
 * another namespace (a server started inside a sandbox) names a pid that
 * means something else here, so it is never judged.
 */
function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid').replace(/[^\w]/g, '');
  } catch {
    return 'unknown';
  }
}

/** This server process as its commands' marker names it: `<pid namespace>.<pid>.<start time>`. */
export function currentServerIdentity(): string {
  if (serverIdentity === undefined) {
    const status = readProcessStatus(process.pid);
    serverIdentity = `${pidNamespace()}.${process.pid}.${status?.startTime ?? '0'}`;
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
  const namespace = pidNamespace();
  const killed: number[] = [];
  const serverAlive = new Map<string, boolean>();
  for (const pid of listProcessIds()) {
    if (pid === process.pid) continue;
    const server = markedServer(pid, prefix);
    if (server === undefined) continue;
    let alive = serverAlive.get(server);
    if (alive === undefined) {
      const [serverNamespace, serverPid, startTime] = server.split('.');
      // Another namespace's pid (or a marker it cannot read) is left alone: counted as alive.
      alive =
        serverNamespace !== namespace ||
        serverPid === undefined ||
        isProcessAlive(Number(serverPid), startTime);
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
