/**
 * The freshness ledger stored in the database (`file_reads`, docs/tools/filesystem.md#the-freshness-ledger, docs/operations.md#the-database):
 * what a chat has read survives a restart and is seen by every API instance
 * serving the chat. Mutations of one path are serialised by the database's
 * named lock, which on PostgreSQL holds across instances too.
 */
import type { AppDatabase } from '../../../db/database';
import { readBoolean, readJson, writeJson, writeTimestamp } from '../../../db/values';
import type { FileFreshnessLedger, FileReadRecord, LineWindow } from '../types';

function readWindows(value: unknown): LineWindow[] | undefined {
  const parsed = readJson(value);
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const windows = parsed.filter(
    (item): item is LineWindow =>
      typeof item === 'object' &&
      item !== null &&
      Number.isInteger(item.startLine) &&
      Number.isInteger(item.endLine),
  );
  // A damaged list is dropped whole: fewer known windows only means a re-read.
  return windows.length === parsed.length
    ? windows.map(({ startLine, endLine }) => ({ startLine, endLine }))
    : undefined;
}

export interface DatabaseFreshnessLedgerOptions {
  now?: () => number;
}

export function createDatabaseFreshnessLedger(
  database: AppDatabase,
  chatId: string,
  options: DatabaseFreshnessLedgerOptions = {},
): FileFreshnessLedger {
  const { db } = database;
  const now = options.now ?? Date.now;
  return {
    async get(realPath) {
      const row = await db
        .selectFrom('file_reads')
        .select([
          'sha256',
          'size',
          'mtime_ms',
          'complete',
          'lines_covered',
          'total_lines',
          'later_windows',
        ])
        .where('chat_id', '=', chatId)
        .where('real_path', '=', realPath)
        .executeTakeFirst();
      if (!row) return undefined;
      const record: FileReadRecord = {
        sha256: row.sha256,
        size: Number(row.size),
        mtimeMs: Number(row.mtime_ms),
        complete: readBoolean(row.complete) === true,
        linesCovered: Number(row.lines_covered),
        totalLines: Number(row.total_lines),
      };
      const laterWindows = readWindows(row.later_windows);
      if (laterWindows) record.laterWindows = laterWindows;
      return record;
    },

    async set(realPath, record) {
      const values = {
        sha256: record.sha256,
        size: record.size,
        mtime_ms: record.mtimeMs,
        complete: record.complete,
        lines_covered: record.linesCovered,
        total_lines: record.totalLines,
        later_windows: record.laterWindows?.length ? writeJson(record.laterWindows) : null,
        updated_at: writeTimestamp(now()),
      };
      await db
        .insertInto('file_reads')
        .values({ chat_id: chatId, real_path: realPath, ...values })
        .onConflict((conflict) => conflict.columns(['chat_id', 'real_path']).doUpdateSet(values))
        .execute();
    },

    async delete(realPath) {
      await db
        .deleteFrom('file_reads')
        .where('chat_id', '=', chatId)
        .where('real_path', '=', realPath)
        .execute();
    },

    // Keyed by path alone: two chats writing one file are serialised as well.
    withLock: (realPath, task) => database.withLock(`file:${realPath}`, task),
  };
}
