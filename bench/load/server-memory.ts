/**
 * The server's memory as the load bench reads it: what the preloaded probe
 * (`server-memory-probe.ts`) measures inside the server after a full garbage
 * collection, and the resident set the kernel reports for the process.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

export interface ServerMemory {
  /**
   * Live JavaScript heap after a full collection, in bytes, with the memory
   * outside it that its objects hold and report to the collector (`external`).
   */
  heapUsed: number;
  /**
   * Of `heapUsed`, the memory outside the collector's own cells: buffers
   * native code keeps for JavaScript objects, in bytes.
   */
  external: number;
  /** Resident set (VmRSS) once collected, in bytes. */
  rss: number;
  /** The resident set's high-water mark (VmHWM) so far, in bytes. */
  rssPeak: number;
}

/** A `/proc/<pid>/status` field given in kB, in bytes. */
function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'latin1');
  const kilobytes = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1];
  if (kilobytes === undefined) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(kilobytes) * 1024;
}

/** Signals the probe and waits for what it writes. */
async function askProbe(pid: number, file: string): Promise<Record<string, number>> {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  const deadline = performance.now() + 10_000;
  while (!existsSync(file)) {
    if (performance.now() > deadline)
      throw new Error(`the server's memory probe wrote nothing to ${file} within 10 s`);
    await Bun.sleep(5);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
}

export async function readServerMemory(pid: number, file: string): Promise<ServerMemory> {
  const { heapUsed, external } = await askProbe(pid, file);
  if (heapUsed === undefined || external === undefined)
    throw new Error(`the server's memory probe wrote no heapUsed or external to ${file}`);
  return { heapUsed, external, rss: statusBytes(pid, 'VmRSS'), rssPeak: statusBytes(pid, 'VmHWM') };
}

/**
 * How fast the server's process reads memory (docs/operations.md#a-slow-process):
 * nanoseconds per random read over 64 MiB, timed inside it by the probe.
 */
export async function readServerMemorySpeed(pid: number, file: string): Promise<number> {
  writeFileSync(`${file}.speed`, '');
  const { memoryNsPerRead } = await askProbe(pid, file);
  if (memoryNsPerRead === undefined)
    throw new Error(`the server's memory probe did not time its memory (${file})`);
  return memoryNsPerRead;
}
