/**
 * The in-memory freshness ledger: one per chat, for tests and single-process
 * use. The database store (docs/tools/filesystem.md#the-freshness-ledger, docs/operations.md#the-database) implements the same interface.
 */
import { createKeyedMutex } from '../../../keyed-mutex';
import type { FileFreshnessLedger, FileReadRecord } from '../types';

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
