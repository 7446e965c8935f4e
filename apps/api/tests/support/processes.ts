/**
 * Process checks for tests that start real processes: whether a pid is still
 * running (a zombie is dead: it only waits to be reaped), and a cleanup that
 * kills whatever a failed test left behind.
 */
import { readFileSync } from 'node:fs';

export function isRunning(pid: number): boolean {
  if (process.platform === 'linux') {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      return false;
    }
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every whole-line number in `text` (the tests make commands echo their children's pids). */
export function pidsIn(text: string): number[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

/** Remembers pids seen during a test file and kills the ones still running at the end. */
export function createPidJanitor() {
  const seen = new Set<number>();
  return {
    track(pids: number[]): number[] {
      for (const pid of pids) seen.add(pid);
      return pids;
    },
    killLeftovers(): void {
      for (const pid of seen) {
        if (!isRunning(pid)) continue;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      seen.clear();
    },
  };
}
