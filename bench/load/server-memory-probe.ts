/**
 * Preloaded into the server process by the load bench (`bun --preload`): on
 * SIGUSR2 it collects all garbage and writes the process's memory, as JSON, to
 * MANGO_BENCH_MEMORY_FILE (written beside it, then renamed, so a reader never
 * sees half of it). The server's own code is not changed.
 */
import { renameSync, writeFileSync } from 'node:fs';

const file = process.env.MANGO_BENCH_MEMORY_FILE;
if (file)
  process.on('SIGUSR2', () => {
    Bun.gc(true);
    const usage = process.memoryUsage();
    writeFileSync(
      `${file}.partial`,
      JSON.stringify({
        heapUsed: usage.heapUsed,
        heapTotal: usage.heapTotal,
        external: usage.external,
        rss: usage.rss,
      }),
    );
    renameSync(`${file}.partial`, file);
  });
