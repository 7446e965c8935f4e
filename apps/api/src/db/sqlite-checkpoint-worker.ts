/**
 * A worker thread that checkpoints an SQLite database in WAL mode (copies the
 * write-ahead log back into the database file, and syncs it) on its own
 * connection, so that the server's thread never does: a checkpoint's fsync
 * stalled every running turn for milliseconds at a time (the load bench's
 * profile, bench/load/). PASSIVE checkpoints wait for no reader or writer.
 * Started by `startSqliteCheckpointer` (sqlite-checkpointer.ts), which sends
 * the file's path and the interval first and `close` last; a failure to open
 * the file is the worker's error event.
 */
import { Database } from 'bun:sqlite';

declare const self: Worker;

let database: Database | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

function checkpoint(): void {
  try {
    database?.run('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or locked for the moment: the next tick tries again (the server's own
    // automatic checkpoint bounds the log meanwhile).
  }
}

self.onmessage = (event: MessageEvent<{ path: string; intervalMs: number } | 'close'>) => {
  if (event.data === 'close') {
    if (timer) clearInterval(timer);
    database?.close();
    database = undefined;
    self.postMessage('closed');
    return;
  }
  database = new Database(event.data.path);
  database.run('PRAGMA busy_timeout = 1000');
  timer = setInterval(checkpoint, event.data.intervalMs);
};
