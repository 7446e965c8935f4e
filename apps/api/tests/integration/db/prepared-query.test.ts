import { expect, test } from 'bun:test';
import { sql } from 'kysely';
import { prepareQuery } from '../../../src/db/prepared-query';
import { describeEachDatabase } from '../../support/test-databases';
import { insertTestChat, insertTestUser } from '../../support/test-rows';

const renameChat = prepareQuery<{ title: string; chatId: string }>((db, slot) =>
  db
    .updateTable('chats')
    .set({ title: slot('title'), mode: 'agent' })
    .where('id', '=', slot('chatId')),
);

const chatTitle = prepareQuery<{ chatId: string; userId: string }, { title: string }>((db, slot) =>
  db
    .selectFrom('chats')
    .select('title')
    .where('id', '=', slot('chatId'))
    .where('user_id', '=', slot('userId')),
);

describeEachDatabase('prepared queries', (_kind, current) => {
  test('run with the values of each call, in the places the builder named', async () => {
    const { database } = current();
    const { db } = database;
    const owner = await insertTestUser(database, 'owner');
    const first = await insertTestChat(database, owner);
    const second = await insertTestChat(database, owner);
    await db.executeQuery(renameChat(db, { title: 'First', chatId: first }));
    await db.executeQuery(renameChat(db, { chatId: second, title: 'Second' }));
    const read = async (chatId: string, userId = owner) =>
      (await db.executeQuery(chatTitle(db, { chatId, userId }))).rows[0]?.title;
    expect(await read(first)).toBe('First');
    expect(await read(second)).toBe('Second');
    expect(await read(first, 'someone-else')).toBeUndefined();
    // A value fixed in the builder is kept.
    const modes = await db.selectFrom('chats').select('mode').execute();
    expect(modes.map((row) => row.mode)).toEqual(['agent', 'agent']);
  });

  test('run inside a transaction of the database, and roll back with it', async () => {
    const { database } = current();
    const { db } = database;
    const owner = await insertTestUser(database, 'owner');
    const chatId = await insertTestChat(database, owner);
    const failed = db.transaction().execute(async (transaction) => {
      await transaction.executeQuery(renameChat(transaction, { title: 'Lost', chatId }));
      throw new Error('roll back');
    });
    await expect(failed).rejects.toThrow('roll back');
    const { rows } = await db.executeQuery(chatTitle(db, { chatId, userId: owner }));
    expect(rows[0]?.title).not.toBe('Lost');
  });

  test('refuse a call that leaves a value out', async () => {
    const { db } = current().database;
    expect(() => renameChat(db, { title: 'x' } as { title: string; chatId: string })).toThrow(
      'no value for "chatId"',
    );
  });

  test('refuse a builder that writes a value into the SQL text instead of a parameter', () => {
    const { db } = current().database;
    const inlined = prepareQuery<{ title: string }>((database, slot) =>
      database
        .selectFrom('chats')
        .select('id')
        .where('title', '=', sql.lit(slot('title'))),
    );
    expect(() => inlined(db, { title: 'x' })).toThrow('inlined a value into its SQL');
  });

  test('refuse a builder that makes a value out of a slot, which a call could not fill', () => {
    const { db } = current().database;
    const pattern = prepareQuery<{ title: string }>((database, slot) =>
      database
        .selectFrom('chats')
        .select('id')
        .where('title', 'like', `${slot('title')}%`),
    );
    expect(() => pattern(db, { title: 'x' })).toThrow('built a value out of a slot');
  });
});
