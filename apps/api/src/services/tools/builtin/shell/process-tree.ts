/**
 * Ending a shell command's whole process tree. The shell leads its own process
 * group, so one SIGKILL to the group ends everything that stayed in it. What
 * left the group (setsid, double fork) is found two ways on Linux: by parent
 * links (a tracker records descendants while the command runs, and a last walk
 * happens before the kill), and by a marker variable that every descendant
 * inherits in its environment. Whatever cannot be killed is reported by pid.
 */
import {
  environmentContains,
  isProcessAlive,
  isProcessTableAvailable,
  isThreadGroupLeader,
  listProcessIds,
  type ProcessStatus,
  processEntryExists,
  readLastPid,
  readProcessStatus,
} from './process-table';

/** Descendants seen while the command ran, keyed by pid, valued by start time. */
export type KnownProcesses = Map<number, string>;

export interface DescendantTracker {
  readonly known: KnownProcesses;
  /** Walks the table once now, adding every current descendant of the root. */
  scan(): void;
  stop(): void;
}

function statusesOf(pids: Iterable<number>): ProcessStatus[] {
  const statuses: ProcessStatus[] = [];
  for (const pid of pids) {
    const status = readProcessStatus(pid);
    if (status) statuses.push(status);
  }
  return statuses;
}

/** Pids in the table whose parent chain leads to `rootPid` or to an already known descendant. */
function findDescendants(
  statuses: readonly ProcessStatus[],
  rootPid: number,
  known: KnownProcesses,
): ProcessStatus[] {
  const children = new Map<number, ProcessStatus[]>();
  for (const status of statuses) {
    const list = children.get(status.ppid);
    if (list) list.push(status);
    else children.set(status.ppid, [status]);
  }
  const found: ProcessStatus[] = [];
  const seen = new Set<number>([rootPid]);
  const queue: number[] = [rootPid];
  for (const status of statuses) {
    if (known.get(status.pid) === status.startTime && !seen.has(status.pid)) {
      seen.add(status.pid);
      queue.push(status.pid);
      found.push(status);
    }
  }
  while (queue.length > 0) {
    const parent = queue.shift() as number;
    for (const child of children.get(parent) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      queue.push(child.pid);
      found.push(child);
    }
  }
  return found;
}

const noopTracker = (): DescendantTracker => ({ known: new Map(), scan() {}, stop() {} });

/**
 * Records the root's descendants every `intervalMs` (first walk after one
 * interval, so quick commands never pay for it). Linux only; elsewhere it
 * records nothing.
 */
export function createDescendantTracker(rootPid: number, intervalMs: number): DescendantTracker {
  if (!isProcessTableAvailable()) return noopTracker();
  const known: KnownProcesses = new Map();
  const scan = () => {
    for (const status of findDescendants(statusesOf(listProcessIds()), rootPid, known)) {
      known.set(status.pid, status.startTime);
    }
  };
  const timer = setInterval(scan, intervalMs);
  timer.unref?.();
  return { known, scan, stop: () => clearInterval(timer) };
}

function signalProcess(pid: number, signal: NodeJS.Signals): 'sent' | 'gone' | 'denied' {
  try {
    process.kill(pid, signal);
    return 'sent';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'denied' : 'gone';
  }
}

async function killWindowsTree(rootPid: number): Promise<void> {
  // taskkill /T walks the tree by parent links, /F forces: the Windows equivalent of a group SIGKILL.
  const killer = Bun.spawn(['taskkill', '/T', '/F', '/PID', String(rootPid)], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  await killer.exited;
}

/**
 * With few pids handed out since the root started, reading their entries is
 * cheaper than listing all of /proc (most of which is older than the root).
 */
const MAX_RECENT_PIDS_WALKED = 16;

/**
 * The known descendants and every pid number handed out after the root, when
 * there are few of them; undefined when /proc must be listed instead (many
 * pids since, or the numbers wrapped around). The root itself is not among
 * them: this scope is for a root that has exited and been waited for, whose
 * entry is gone (and whose number cannot have been handed out again while no
 * later one was).
 */
function recentPids(
  rootPid: number,
  lastPid: number,
  known: Iterable<number>,
): number[] | undefined {
  if (lastPid < rootPid || lastPid - rootPid > MAX_RECENT_PIDS_WALKED) return undefined;
  const pids = new Set<number>(known);
  for (let pid = rootPid + 1; pid <= lastPid; pid++) pids.add(pid);
  // A pid that is gone costs an exception to read; asking whether it exists is cheaper.
  return [...pids].filter(processEntryExists);
}

/** Pids allocated after `rootPid`, given the kernel's last allocated pid (pids wrap around). */
function allocatedAfter(pid: number, rootPid: number, lastPid: number): boolean {
  return lastPid >= rootPid ? pid > rootPid && pid <= lastPid : pid > rootPid || pid <= lastPid;
}

export interface TerminateProcessTreeOptions {
  rootPid: number;
  /** `NAME=value` of the run marker every descendant inherits. */
  marker: string;
  known?: KnownProcesses;
  /**
   * `recent`: only processes created after the root are inspected, which is
   * exact while fewer pids than pid_max were handed out since it started (use
   * it for short runs, once the root has exited and been waited for); `all`:
   * the whole table.
   */
  scope: 'recent' | 'all';
  platform?: NodeJS.Platform;
}

/**
 * The processes of a run still to kill, among `statuses`: the root while it is
 * not a zombie, its descendants by parent links (through `known`), members of
 * its process group, and whatever carries the run marker. Group members count
 * even when the other ways miss them: a child caught mid-exec after its parent
 * exited has no parent link to us and, for a moment, no environment to read.
 * Zombies and dead processes are left out.
 */
export function selectLeftovers(
  statuses: readonly ProcessStatus[],
  run: { rootPid: number; known: KnownProcesses; hasMarker: (pid: number) => boolean },
): ProcessStatus[] {
  const { rootPid } = run;
  const byPid = new Map<number, ProcessStatus>();
  for (const status of findDescendants(statuses, rootPid, run.known)) byPid.set(status.pid, status);
  for (const status of statuses) {
    if (byPid.has(status.pid)) continue;
    if (status.pid === rootPid || status.pgid === rootPid || run.hasMarker(status.pid))
      byPid.set(status.pid, status);
  }
  return [...byPid.values()].filter((status) => status.state !== 'Z' && status.state !== 'X');
}

const KILL_ROUNDS = 8;

/**
 * SIGKILLs the root's process group, then every descendant found outside it,
 * in rounds until none is left alive (zombies count as dead). Resolves to the
 * pids still alive at the end (normally none).
 */
export async function terminateProcessTree(
  options: TerminateProcessTreeOptions,
): Promise<number[]> {
  const platform = options.platform ?? process.platform;
  const { rootPid } = options;
  if (platform === 'win32') {
    await killWindowsTree(rootPid);
    return [];
  }
  if (!isProcessTableAvailable(platform)) {
    signalProcess(-rootPid, 'SIGKILL');
    return [];
  }
  const needle = Buffer.from(`${options.marker}\0`);
  const known: KnownProcesses = new Map(options.known);
  let targets: ProcessStatus[] = [];
  for (let round = 0; round < KILL_ROUNDS; round++) {
    const lastPid = options.scope === 'recent' ? readLastPid() : undefined;
    const candidates =
      lastPid === undefined ? undefined : recentPids(rootPid, lastPid, known.keys());
    // No process at all since the root (the common end of a short command): nothing to kill,
    // and no group either, since every member of the group was started after the root.
    if (candidates?.length === 0) return [];
    const pids = (candidates ?? listProcessIds()).filter(
      (pid) =>
        pid !== process.pid &&
        (lastPid === undefined ||
          pid === rootPid ||
          known.has(pid) ||
          allocatedAfter(pid, rootPid, lastPid)),
    );
    targets = selectLeftovers(statusesOf(pids), {
      rootPid,
      known,
      hasMarker: (pid) => environmentContains(pid, needle),
    });
    // Walking pid numbers also reaches threads, which /proc does not list: keep processes only.
    if (candidates) targets = targets.filter((status) => isThreadGroupLeader(status.pid));
    for (const status of targets) known.set(status.pid, status.startTime);
    // The group first: one signal reaches every member, including ones that cleared their environment.
    if (round === 0) signalProcess(-rootPid, 'SIGKILL');
    if (targets.length === 0) return [];
    for (const status of targets) signalProcess(status.pid, 'SIGKILL');
    await Bun.sleep(2 ** round);
  }
  return targets
    .filter((status) => isProcessAlive(status.pid, status.startTime))
    .map((status) => status.pid);
}
