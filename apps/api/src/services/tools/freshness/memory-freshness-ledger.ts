/**
 * The in-memory freshness ledger: one per chat, for tests and single-process
 * use. The database store (SPEC §7.4, §13) implements the same interface.
 */
import type { FileFreshnessLedger, FileReadRecord } from '../types';

/** Serialises tasks per key; a failed task does not block the next one. */
export function createKeyedMutex() {
  const tails = new Map<string, Promise<unknown>>();
  return async function withLock<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => {});
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/**
 * Path locks shared by every in-memory ledger of this process: ledgers are per
 * chat, but two chats writing one file must serialise too.
 */
const processPathLocks = createKeyedMutex();

export interface MemoryFreshnessLedgerOptions {
  /** The per-path lock; defaults to the process-wide one. */
  withLock?: <T>(realPath: string, task: () => Promise<T>) => Promise<T>;
}

export function createMemoryFreshnessLedger(
  options: MemoryFreshnessLedgerOptions = {},
): FileFreshnessLedger {
  const records = new Map<string, FileReadRecord>();
  const withLock = options.withLock ?? processPathLocks;
  return {
    get: async (realPath) => {
      const record = records.get(realPath);
      return record ? { ...record } : undefined;
    },
    set: async (realPath, record) => {
      records.set(realPath, { ...record });
    },
    delete: async (realPath) => {
      records.delete(realPath);
    },
    withLock,
  };
}
