import { expect, test } from 'bun:test';
import type { Transaction } from 'kysely';
import type { AppDatabase } from '../../../src/db/database';
import { createGroupCommit } from '../../../src/db/group-commit';
import type { DatabaseSchema } from '../../../src/db/schema';
import { describeEachDatabase } from '../../support/test-databases';
import { insertTestChat, insertTestUser } from '../../support/test-rows';

type Trx = Transaction<DatabaseSchema>;

async function titleOf(trx: Trx | { selectFrom: Trx['selectFrom'] }, chatId: string) {
  const row = await trx
    .selectFrom('chats')
    .select('title')
    .where('id', '=', chatId)
    .executeTakeFirst();
  return row?.title;
}

/** A group commit, and a unit of work that records the transaction it ran in (resolving to its count). */
function recordingGroup(database: AppDatabase) {
  const group = createGroupCommit(database);
  const seen: Trx[] = [];
  const record = (trx: Trx) => {
    seen.push(trx);
    return Promise.resolve(seen.length);
  };
  return { group, seen, record };
}

describeEachDatabase('group commit', (kind, current) => {
  test(
    kind === 'sqlite'
      ? 'transactions asked for at the same moment share one; later ones get another'
      : 'every transaction is its own (PostgreSQL gives each a connection)',
    async () => {
      const { database } = current();
      const { group, seen, record } = recordingGroup(database);
      const together = await Promise.all([group.run(record), group.run(record), group.run(record)]);
      expect(together.sort()).toEqual([1, 2, 3]);
      const later = await group.run(record);
      expect(later).toBe(4);
      const distinct = new Set(seen).size;
      expect(distinct).toBe(kind === 'sqlite' ? 2 : 4);
    },
  );

  test('a failing transaction fails alone, with its own error; the others commit and nothing of it stays', async () => {
    const { database } = current();
    const group = createGroupCommit(database);
    const owner = await insertTestUser(database);
    const [first, failing, last] = await Promise.all(
      [1, 2, 3].map(() => insertTestChat(database, owner)),
    );
    const rename = (chatId: string, title: string) => (trx: Trx) =>
      trx.updateTable('chats').set({ title }).where('id', '=', chatId).execute();
    const outcomes = await Promise.allSettled([
      group.run(rename(first as string, 'first')),
      group.run(async (trx) => {
        await rename(failing as string, 'half done')(trx);
        throw new Error('refused halfway');
      }),
      group.run(rename(last as string, 'last')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('refused halfway'));
    expect(await titleOf(database.db, first as string)).toBe('first');
    expect(await titleOf(database.db, failing as string)).toBe('test chat');
    expect(await titleOf(database.db, last as string)).toBe('last');
  });

  // Groups, and the waits that make them, exist only on SQLite.
  if (kind === 'sqlite') {
    test('run commits without waiting for the end of the event loop turn; runGathered waits for it', async () => {
      const { database } = current();
      const group = createGroupCommit(database);
      const order: string[] = [];
      const write = (name: string) => async () => {
        order.push(name);
      };
      setImmediate(() => order.push('loop turn ended'));
      await group.run(write('run'));
      await new Promise((resolve) => setImmediate(resolve));
      setImmediate(() => order.push('loop turn ended'));
      await group.runGathered(write('gathered'));
      expect(order).toEqual(['run', 'loop turn ended', 'loop turn ended', 'gathered']);
    });

    test('gathered transactions asked for by separate tasks of one loop turn share one; a run takes a gathering group with it', async () => {
      const { database } = current();
      const { group, seen, record } = recordingGroup(database);
      // Two timers due at once fire in one turn of the loop, as separate tasks.
      const [first, second] = await new Promise<Promise<number>[]>((resolve) => {
        const asked: Promise<number>[] = [];
        const ask = () => {
          asked.push(group.runGathered(record));
          if (asked.length === 2) resolve(asked);
        };
        setTimeout(ask, 0);
        setTimeout(ask, 0);
      });
      expect(await Promise.all([first, second])).toEqual([1, 2]);
      expect(seen[0]).toBe(seen[1] as Trx);

      const [gathered, soon] = await Promise.all([group.runGathered(record), group.run(record)]);
      expect([gathered, soon]).toEqual([3, 4]);
      expect(seen[2]).toBe(seen[3] as Trx);
      expect(new Set(seen).size).toBe(2);
    });

    test('what one transaction of a group wrote, the next one in it reads', async () => {
      const { database } = current();
      const group = createGroupCommit(database);
      const owner = await insertTestUser(database);
      const chat = await insertTestChat(database, owner);
      const [, read] = await Promise.all([
        group.run((trx) =>
          trx.updateTable('chats').set({ title: 'written' }).where('id', '=', chat).execute(),
        ),
        group.run((trx) => titleOf(trx, chat)),
      ]);
      expect(read).toBe('written');
    });
  }
});
