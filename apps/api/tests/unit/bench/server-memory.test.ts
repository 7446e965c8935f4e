/** The load bench's reading of a server's memory and its speed (bench/load/server-memory.ts) from a real process with the probe preloaded. */
import { afterEach, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readServerMemory, readServerMemorySpeed } from '../../../../../bench/load/server-memory';

const PROBE = join(import.meta.dir, '../../../../../bench/load/server-memory-probe.ts');
const directories: string[] = [];
const processes: Bun.Subprocess[] = [];

afterEach(() => {
  for (const child of processes.splice(0)) child.kill();
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

test("a process's buffers outside the collector's cells are read as external, and its memory's speed on request", async () => {
  const directory = mkdtempSync(join(tmpdir(), 'mango-server-memory-'));
  directories.push(directory);
  const file = join(directory, 'memory.json');
  // Holds 16 MiB in a typed array (outside the cells), then waits for the probe's signal.
  const child = Bun.spawn(
    [
      process.execPath,
      '--preload',
      PROBE,
      '-e',
      'globalThis.held = new Uint8Array(16 << 20).fill(1); console.log("ready"); setInterval(() => {}, 1000);',
    ],
    { env: { ...process.env, MANGO_BENCH_MEMORY_FILE: file }, stdout: 'pipe' },
  );
  processes.push(child);
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toContain('ready');
  const memory = await readServerMemory(child.pid, file);
  expect(memory.external).toBeGreaterThanOrEqual(16 << 20);
  expect(memory.heapUsed).toBeGreaterThanOrEqual(memory.external);
  expect(memory.rss).toBeGreaterThanOrEqual(16 << 20);
  expect(memory.rssPeak).toBeGreaterThanOrEqual(memory.rss);
  // Asked for, the probe also times the process's memory, and only then.
  const nsPerRead = await readServerMemorySpeed(child.pid, file);
  expect(Number.isFinite(nsPerRead)).toBe(true);
  expect(nsPerRead).toBeGreaterThan(0);
  expect(existsSync(`${file}.speed`)).toBe(false);
  const again = await readServerMemory(child.pid, file);
  expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('memoryNsPerRead');
  expect(again.external).toBeGreaterThanOrEqual(16 << 20);
});
