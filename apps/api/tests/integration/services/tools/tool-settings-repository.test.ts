import { expect, test } from 'bun:test';
import { sql } from 'kysely';
import { readJson } from '../../../../src/db/values';
import { createToolSettingsRepository } from '../../../../src/services/tools/tool-settings-repository';
import { describeEachDatabase } from '../../../support/test-databases';
import { insertTestUser } from '../../../support/test-rows';

describeEachDatabase('tool settings repository', (kind, current) => {
  const repositoryFor = (clock = Date.now) =>
    createToolSettingsRepository(current().database, clock);

  test('a first change inserts a row; enabled stays null until the user switches the tool', async () => {
    const userId = await insertTestUser(current().database);
    const row = await repositoryFor(() => Date.UTC(2030, 0, 2)).upsert(userId, 'grep', {
      parameters: { maxResults: 10 },
    });
    expect(row).toMatchObject({ userId, toolName: 'grep', enabled: null });
    expect(readJson(row.parameters)).toEqual({ maxResults: 10 });
    expect(row.createdAt).toBe('2030-01-02T00:00:00.000Z');
    expect(await repositoryFor().get(userId, 'grep')).toEqual(row);
  });

  test('later changes merge settings over the saved ones and keep enabled when not given', async () => {
    const userId = await insertTestUser(current().database);
    const repository = repositoryFor();
    await repository.upsert(userId, 'grep', { enabled: false, parameters: { maxResults: 10 } });
    await repository.upsert(userId, 'grep', { parameters: { includeDotfiles: true } });
    const row = await repository.upsert(userId, 'grep', { parameters: { maxResults: 20 } });
    expect(row.enabled).toBe(false);
    expect(readJson(row.parameters)).toEqual({ maxResults: 20, includeDotfiles: true });
    const enabledAgain = await repository.upsert(userId, 'grep', { enabled: true });
    expect(enabledAgain.enabled).toBe(true);
    expect(readJson(enabledAgain.parameters)).toEqual({ maxResults: 20, includeDotfiles: true });
  });

  test('a stored value that is not a JSON object is replaced by the change instead of failing it', async () => {
    const { database } = current();
    const userId = await insertTestUser(database);
    const repository = repositoryFor();
    await repository.upsert(userId, 'grep', { enabled: false });
    // PostgreSQL's jsonb cannot hold malformed JSON; a non-object is its worst case.
    const corrupt = kind === 'sqlite' ? '{"maxResults": 1' : '"not an object"';
    await sql`update user_tool_settings set parameters = ${corrupt} where user_id = ${userId}`.execute(
      database.db,
    );
    const row = await repository.upsert(userId, 'grep', { parameters: { maxResults: 5 } });
    expect(readJson(row.parameters)).toEqual({ maxResults: 5 });
    expect(row.enabled).toBe(false);
  });

  test('50 concurrent changes of one setting: one row, holding one of the values', async () => {
    const { database } = current();
    const userId = await insertTestUser(database);
    const repository = repositoryFor();
    const values = Array.from({ length: 50 }, (_, index) => index + 1);
    const results = await Promise.all(
      values.map((value) =>
        repository.upsert(userId, 'grep', { parameters: { maxResults: value } }),
      ),
    );
    expect(results).toHaveLength(50);
    const rows = await database.db
      .selectFrom('user_tool_settings')
      .selectAll()
      .where('user_id', '=', userId)
      .execute();
    expect(rows).toHaveLength(1);
    const final = readJson(rows[0]?.parameters) as { maxResults: number };
    expect(values).toContain(final.maxResults);
  });

  test('50 concurrent changes of different settings: none is lost', async () => {
    const userId = await insertTestUser(current().database);
    const repository = repositoryFor();
    const keys = Array.from({ length: 50 }, (_, index) => `setting${index}`);
    await Promise.all(
      keys.map((key) => repository.upsert(userId, 'grep', { parameters: { [key]: 1 } })),
    );
    const row = await repository.get(userId, 'grep');
    expect(Object.keys(readJson(row?.parameters) as object).sort()).toEqual([...keys].sort());
  });

  test('a user lists only their own rows', async () => {
    const { database } = current();
    const alice = await insertTestUser(database, 'alice');
    const bob = await insertTestUser(database, 'bob');
    const repository = repositoryFor();
    await repository.upsert(alice, 'grep', { enabled: false });
    await repository.upsert(bob, 'glob', { enabled: true });
    expect([...(await repository.listForUser(alice)).keys()]).toEqual(['grep']);
    expect([...(await repository.listForUser(bob)).keys()]).toEqual(['glob']);
    expect(await repository.get(bob, 'grep')).toBeUndefined();
  });

  test('deleting a user deletes their settings', async () => {
    const { database } = current();
    const userId = await insertTestUser(database);
    await repositoryFor().upsert(userId, 'grep', { enabled: false });
    await database.db.deleteFrom('users').where('id', '=', userId).execute();
    expect(await repositoryFor().get(userId, 'grep')).toBeUndefined();
  });
});
