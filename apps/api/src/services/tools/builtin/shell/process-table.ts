/**
 * A reader of the Linux process table (/proc), used to find the processes a
 * shell command left behind. Reads are synchronous and small (one short file
 * per process); every read tolerates the process vanishing underneath it.
 */
import { existsSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

export interface ProcessStatus {
  pid: number;
  ppid: number;
  pgid: number;
  /** One-letter state: R, S, D, Z (zombie), X (dead), T, … */
  state: string;
  /** Start time in clock ticks since boot: with the pid, it identifies one process. */
  startTime: string;
}

let procMounted: boolean | undefined;

/** Whether /proc can be read here (asked of the file system once per process). */
export function isProcessTableAvailable(platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux') return false;
  if (procMounted === undefined) {
    try {
      readFileSync('/proc/self/stat');
      procMounted = true;
    } catch {
      procMounted = false;
    }
  }
  return procMounted;
}

/** Parses /proc/<pid>/stat. The command name may hold spaces and parentheses, so split after the last ')'. */
export function parseProcessStat(text: string): ProcessStatus | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const pid = Number.parseInt(text, 10);
  const fields = text.slice(close + 2).split(' ');
  // After the name: state(3) ppid(4) pgrp(5) session(6) … starttime(22); fields[0] is field 3.
  const state = fields[0];
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  const startTime = fields[19];
  if (!state || !Number.isInteger(pid) || !Number.isInteger(ppid) || startTime === undefined) {
    return undefined;
  }
  return { pid, ppid, pgid, state, startTime };
}

export function readProcessStatus(pid: number): ProcessStatus | undefined {
  try {
    return parseProcessStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return undefined;
  }
}

/** Whether /proc has an entry for `pid` (a process or a thread). */
export function processEntryExists(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}

/** Every pid in the table (processes, not threads). */
export function listProcessIds(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const pid = Number(name);
    if (Number.isInteger(pid)) pids.push(pid);
  }
  return pids;
}

/**
 * Whether `pid` is a process (a thread group's leader) rather than another
 * thread of one: /proc lists only processes, but answers for threads too.
 */
export function isThreadGroupLeader(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const match = /^Tgid:\s*(\d+)/m.exec(status);
    return match !== null && Number(match[1]) === pid;
  } catch {
    return false;
  }
}

/**
 * ns_last_pid, opened once and kept: every command reads it after it ends, and
 * opening a /proc/sys file costs tens of µs where a re-read at offset 0 of the
 * open file costs a few (the kernel renders the value afresh on each read).
 * Null once opening failed, so it is not retried per command.
 */
let lastPidFile: number | null | undefined;
const lastPidBuffer = Buffer.alloc(24);

/** The last pid the kernel handed out in our pid namespace, when it says. */
export function readLastPid(): number | undefined {
  if (lastPidFile === undefined) {
    try {
      lastPidFile = openSync('/proc/sys/kernel/ns_last_pid', 'r');
    } catch {
      lastPidFile = null;
    }
  }
  if (lastPidFile === null) return undefined;
  try {
    const length = readSync(lastPidFile, lastPidBuffer, 0, lastPidBuffer.length, 0);
    const value = Number.parseInt(lastPidBuffer.toString('latin1', 0, length), 10);
    return Number.isInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process's initial environment holds `needle` (`NAME=value\0`).
 * False when it is gone, a zombie (empty environ) or not ours to read.
 */
export function environmentContains(pid: number, needle: Uint8Array): boolean {
  let bytes: Buffer;
  try {
    bytes = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false;
  }
  const index = bytes.indexOf(needle);
  // A match must start a variable: at the beginning or right after a NUL.
  if (index < 0) return false;
  if (index === 0 || bytes[index - 1] === 0) return true;
  return bytes.indexOf(Buffer.concat([Buffer.from([0]), needle])) >= 0;
}

/** True unless the process is gone, a zombie, or (when `startTime` is given) a different process now. */
export function isProcessAlive(pid: number, startTime?: string): boolean {
  const status = readProcessStatus(pid);
  if (!status) return false;
  if (status.state === 'Z' || status.state === 'X') return false;
  return startTime === undefined || status.startTime === startTime;
}
