/**
 * Preloaded into the server process by the load bench (`bun --preload`): on
 * SIGUSR2 it collects all garbage and writes the process's memory, as JSON, to
 * MANGO_BENCH_MEMORY_FILE (written beside it, then renamed, so a reader never
 * sees half of it). When `<that file>.speed` exists at the signal, it also
 * times random reads of memory in the process (`bench/memory-probe.ts`), after
 * the figures above are taken, and removes the request. The server's own code
 * is not changed.
 */
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { memoryProbeNsPerRead } from '../memory-probe';

const file = process.env.MANGO_BENCH_MEMORY_FILE;
if (file)
  process.on('SIGUSR2', () => {
    Bun.gc(true);
    const usage = process.memoryUsage();
    const speedRequest = `${file}.speed`;
    const timed = existsSync(speedRequest);
    rmSync(speedRequest, { force: true });
    writeFileSync(
      `${file}.partial`,
      JSON.stringify({
        heapUsed: usage.heapUsed,
        heapTotal: usage.heapTotal,
        external: usage.external,
        rss: usage.rss,
        ...(timed ? { memoryNsPerRead: memoryProbeNsPerRead() } : {}),
      }),
    );
    renameSync(`${file}.partial`, file);
  });
