/**
 * Checkpoints of an SQLite file in a worker thread (`sqlite-checkpoint-worker.ts`)
 * instead of on the connection that writes: SQLite's automatic checkpoint runs
 * inside the COMMIT that crosses its threshold and syncs the file there,
 * blocking the server's one thread — and with it every running turn — for
 * milliseconds (tens under disk load). The writing connection keeps an
 * automatic checkpoint at a far higher threshold, so the log stays bounded
 * even if the worker falls behind; if the worker fails, the writer goes back
 * to SQLite's default.
 */
import type { Database } from 'bun:sqlite';

/** How often the worker checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 200;
/** The writing connection's own automatic checkpoint while the worker runs, in pages. */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 20_000;
/** SQLite's default automatic checkpoint, in pages. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export interface SqliteCheckpointer {
  /** Stops the worker once it has closed its connection (before the writer closes). */
  stop(): Promise<void>;
}

export function startSqliteCheckpointer(
  writer: Database,
  path: string,
  intervalMs = CHECKPOINT_INTERVAL_MS,
): SqliteCheckpointer {
  writer.run(`PRAGMA wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const worker = new Worker(new URL('./sqlite-checkpoint-worker.ts', import.meta.url).href);
  let failed = false;
  let onClosed: () => void = () => {};
  worker.onmessage = (event) => {
    if (event.data === 'closed') onClosed();
  };
  worker.onerror = () => {
    failed = true;
    onClosed();
    try {
      writer.run(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
    } catch {
      // The writer is closed already.
    }
  };
  worker.postMessage({ path, intervalMs });
  // The worker never keeps the process alive (Bun's Worker has `unref`; the DOM typings do not).
  (worker as unknown as { unref(): void }).unref();
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        if (!failed) {
          const closed = new Promise<void>((resolve) => {
            onClosed = resolve;
          });
          worker.postMessage('close');
          await Promise.race([closed, Bun.sleep(2_000)]);
        }
        worker.terminate();
      })();
      return stopping;
    },
  };
}
