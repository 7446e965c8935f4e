/** CPU time of processes and their threads, read from /proc (Linux), in milliseconds. */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * User plus system time (fields 14 and 15) of the process or thread whose
 * `stat` file this is, ms (clock ticks of 10 ms on Linux).
 */
export function cpuMsOf(statPath: string): number {
  const stat = readFileSync(statPath, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * A process's CPU time so far by thread, ms, keyed by the thread's name
 * (threads of one name summed); `main` is the thread that runs the JavaScript.
 */
export function cpuMsByThread(pid: number | string): Map<string, number> {
  const id = String(pid);
  const byThread = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${id}/task`)) {
    try {
      const name =
        tid === id ? 'main' : readFileSync(`/proc/${id}/task/${tid}/comm`, 'latin1').trim();
      byThread.set(name, (byThread.get(name) ?? 0) + cpuMsOf(`/proc/${id}/task/${tid}/stat`));
    } catch {
      // The thread ended between the listing and the read; its time is in neither reading.
    }
  }
  return byThread;
}
