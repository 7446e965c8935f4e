import { expect, test } from 'bun:test';
import type { Transaction } from 'kysely';
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

describeEachDatabase('group commit', (kind, current) => {
  test(
    kind === 'sqlite'
      ? 'transactions asked for at the same moment share one; later ones get another'
      : 'every transaction is its own (PostgreSQL gives each a connection)',
    async () => {
      const { database } = current();
      const group = createGroupCommit(database);
      const seen: Trx[] = [];
      const record = (trx: Trx) => {
        seen.push(trx);
        return Promise.resolve(seen.length);
      };
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

  // A group exists only on SQLite (PostgreSQL runs the two at once, in either order).
  if (kind === 'sqlite')
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
});
