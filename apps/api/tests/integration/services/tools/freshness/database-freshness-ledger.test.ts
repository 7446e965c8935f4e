import { expect, test } from 'bun:test';
import { openDatabase } from '../../../../../src/db/database';
import { createDatabaseFreshnessLedger } from '../../../../../src/services/tools/freshness/database-freshness-ledger';
import type { FileReadRecord } from '../../../../../src/services/tools/types';
import { describeEachDatabase } from '../../../../support/test-databases';
import { insertTestChat, insertTestUser } from '../../../../support/test-rows';

const record: FileReadRecord = {
  sha256: 'a'.repeat(64),
  size: 5_000_000_000,
  mtimeMs: 1_767_225_600_123.456,
  complete: false,
  linesCovered: 2000,
  totalLines: 9000,
};

describeEachDatabase('database freshness ledger', (_kind, current) => {
  async function newChat(): Promise<string> {
    const { database } = current();
    return insertTestChat(database, await insertTestUser(database));
  }

  test('set, get, overwrite and delete a record, exactly as given', async () => {
    const ledger = createDatabaseFreshnessLedger(current().database, await newChat());
    expect(await ledger.get('/srv/a.txt')).toBeUndefined();
    await ledger.set('/srv/a.txt', record);
    expect(await ledger.get('/srv/a.txt')).toEqual(record);
    const withWindows: FileReadRecord = {
      ...record,
      laterWindows: [
        { startLine: 4001, endLine: 5000 },
        { startLine: 7001, endLine: 9000 },
      ],
    };
    await ledger.set('/srv/a.txt', withWindows);
    expect(await ledger.get('/srv/a.txt')).toEqual(withWindows);
    const complete = { ...record, complete: true, linesCovered: 9000, sha256: 'b'.repeat(64) };
    await ledger.set('/srv/a.txt', complete);
    expect(await ledger.get('/srv/a.txt')).toEqual(complete);
    await ledger.delete('/srv/a.txt');
    expect(await ledger.get('/srv/a.txt')).toBeUndefined();
  });

  test('each chat has its own ledger', async () => {
    const first = createDatabaseFreshnessLedger(current().database, await newChat());
    const second = createDatabaseFreshnessLedger(current().database, await newChat());
    await first.set('/srv/shared.txt', record);
    expect(await second.get('/srv/shared.txt')).toBeUndefined();
  });

  test('records survive closing and reopening the database (a restart)', async () => {
    const { config } = current();
    const chatId = await newChat();
    const before = openDatabase(config);
    await createDatabaseFreshnessLedger(before, chatId).set('/srv/kept.txt', record);
    await before.close();
    const after = openDatabase(config);
    try {
      expect(await createDatabaseFreshnessLedger(after, chatId).get('/srv/kept.txt')).toEqual(
        record,
      );
    } finally {
      await after.close();
    }
  });

  test('deleting the chat deletes its records', async () => {
    const { database } = current();
    const chatId = await newChat();
    const ledger = createDatabaseFreshnessLedger(database, chatId);
    await ledger.set('/srv/gone.txt', record);
    await database.db.deleteFrom('chats').where('id', '=', chatId).execute();
    expect(await ledger.get('/srv/gone.txt')).toBeUndefined();
  });

  test('mutations of one path are serialised, also between two instances of the database', async () => {
    const { config, database } = current();
    const chatId = await newChat();
    const otherInstance = openDatabase(config);
    try {
      const here = createDatabaseFreshnessLedger(database, chatId);
      const there = createDatabaseFreshnessLedger(otherInstance, chatId);
      let inside = 0;
      let maxInside = 0;
      const order: number[] = [];
      await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          (index % 2 === 0 ? here : there).withLock('/srv/locked.txt', async () => {
            inside += 1;
            maxInside = Math.max(maxInside, inside);
            await Bun.sleep(5);
            order.push(index);
            inside -= 1;
          }),
        ),
      );
      expect(maxInside).toBe(1);
      expect(order).toHaveLength(8);
      // A failed task releases the lock for the next one.
      await expect(
        here.withLock('/srv/locked.txt', async () => {
          throw new Error('task failed');
        }),
      ).rejects.toThrow('task failed');
      expect(await there.withLock('/srv/locked.txt', async () => 'next')).toBe('next');
    } finally {
      await otherInstance.close();
    }
  });
});
