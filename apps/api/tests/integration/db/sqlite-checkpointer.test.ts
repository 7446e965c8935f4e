import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { type AppDatabase, openDatabase } from '../../../src/db/database';
import {
  FALLBACK_AUTOCHECKPOINT_PAGES,
  startSqliteCheckpointer,
} from '../../../src/db/sqlite-checkpointer';
import { waitUntil } from '../../support/wait-until';

const directories: string[] = [];
function databasePath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'mango-checkpoint-'));
  directories.push(directory);
  return join(directory, 'mango.db');
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

/** About 1 MB in 100 transactions: fewer pages than SQLite's own automatic checkpoint waits for. */
async function writeSomeRows(database: AppDatabase): Promise<void> {
  await sql`create table filler (id integer primary key, body text)`.execute(database.db);
  for (let index = 0; index < 100; index++)
    await database.db
      .transaction()
      .execute((transaction) =>
        sql`insert into filler (body) values (${'x'.repeat(10_000)})`.execute(transaction),
      );
}

const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0);

describe('SQLite checkpoints in a worker thread', () => {
  test('the log is copied into the database file while the server writes, not at its commits', async () => {
    const path = databasePath();
    const database = openDatabase({ kind: 'sqlite', path }, { checkpointInBackground: true });
    try {
      await writeSomeRows(database);
      // Nothing on this connection checkpoints 250 pages; only the worker can have.
      await waitUntil(() => fileSize(path) > 1_000_000, 5_000);
      expect(fileSize(path)).toBeGreaterThan(1_000_000);
    } finally {
      await database.close();
    }
  });

  test('without it the log stays in the -wal file until the connection closes', async () => {
    const path = databasePath();
    const database = openDatabase({ kind: 'sqlite', path });
    try {
      await writeSomeRows(database);
      await Bun.sleep(600);
      expect(fileSize(path)).toBeLessThan(200_000);
      expect(fileSize(`${path}-wal`)).toBeGreaterThan(1_000_000);
    } finally {
      await database.close();
    }
  });

  test('closing stops the worker first, so the last connection to close removes the log', async () => {
    const path = databasePath();
    const database = openDatabase({ kind: 'sqlite', path }, { checkpointInBackground: true });
    await writeSomeRows(database);
    await database.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = new Database(path);
    expect(reopened.query('select count(*) as rows from filler').get()).toEqual({ rows: 100 });
    reopened.close();
  });

  test('the writing connection keeps its own automatic checkpoint, at a higher threshold', async () => {
    const path = databasePath();
    const writer = new Database(path);
    writer.run('PRAGMA journal_mode = WAL');
    const checkpointer = startSqliteCheckpointer(writer, path);
    try {
      expect(writer.query('PRAGMA wal_autocheckpoint').get()).toEqual({
        wal_autocheckpoint: FALLBACK_AUTOCHECKPOINT_PAGES,
      });
    } finally {
      await checkpointer.stop();
      writer.close();
    }
  });
});
