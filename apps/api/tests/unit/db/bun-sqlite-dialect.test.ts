import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import {
  createBunSqliteDialect,
  SQLITE_STATEMENT_CACHE_SIZE,
} from '../../../src/db/bun-sqlite-dialect';

/**
 * An in-memory database that counts, by SQL text, the distinct statements it
 * handed out, however they were asked for (`prepare` or the cached `query`).
 */
function countingDatabase(): { database: Database; prepared: Map<string, number> } {
  const database = new Database(':memory:');
  const statements = new Map<string, Set<object>>();
  const prepared = new Map<string, number>();
  const counted = <F extends (text: string) => object>(make: F) =>
    ((text: string) => {
      const statement = make(text);
      const seen = statements.get(text) ?? new Set<object>();
      seen.add(statement);
      statements.set(text, seen);
      prepared.set(text, seen.size);
      return statement;
    }) as unknown as F;
  database.prepare = counted(
    database.prepare.bind(database) as (text: string) => object,
  ) as Database['prepare'];
  database.query = counted(
    database.query.bind(database) as (text: string) => object,
  ) as Database['query'];
  return { database, prepared };
}

/** `count` statements that differ only in their text, each selecting its own number. */
function distinctQueries(count: number) {
  return Array.from(
    { length: count },
    (_, index) => sql<{ n: number }>`select ${sql.lit(index)} as n`,
  );
}

test('each SQL text is prepared once, though a turn uses more statements than Bun keeps (20)', async () => {
  const { database, prepared } = countingDatabase();
  const db = new Kysely<Record<string, never>>({ dialect: createBunSqliteDialect(database) });
  const queries = distinctQueries(60);
  for (let pass = 0; pass < 3; pass += 1)
    for (const [index, query] of queries.entries())
      expect((await query.execute(db)).rows).toEqual([{ n: index }]);
  expect(prepared.size).toBe(60);
  expect([...prepared.values()].every((count) => count === 1)).toBe(true);
  await db.destroy();
});

test('past the limit the oldest statement goes first, and is prepared again when used', async () => {
  const { database, prepared } = countingDatabase();
  const db = new Kysely<Record<string, never>>({ dialect: createBunSqliteDialect(database) });
  const queries = distinctQueries(SQLITE_STATEMENT_CACHE_SIZE + 1);
  for (const query of queries) await query.execute(db);
  // The newest are still kept; the first one made room for the last.
  const last = queries.at(-1);
  const first = queries[0];
  if (!last || !first) throw new Error('no queries');
  await last.execute(db);
  expect(prepared.get(last.compile(db).sql)).toBe(1);
  expect((await first.execute(db)).rows).toEqual([{ n: 0 }]);
  expect(prepared.get(first.compile(db).sql)).toBe(2);
  await db.destroy();
});

test('a kept statement sees the schema as it is now, and writes report their changes', async () => {
  const database = new Database(':memory:');
  const db = new Kysely<{ notes: { id: number; body: string | null } }>({
    dialect: createBunSqliteDialect(database),
  });
  await db.schema.createTable('notes').addColumn('id', 'integer').execute();
  const insert = await db.insertInto('notes').values({ id: 1 }).executeTakeFirst();
  expect(insert.numInsertedOrUpdatedRows).toBe(1n);
  const selectAll = (): Promise<unknown[]> => db.selectFrom('notes').selectAll().execute();
  expect(await selectAll()).toEqual([{ id: 1 }]);
  await db.schema
    .alterTable('notes')
    .addColumn('body', 'text', (column) => column.defaultTo('x'))
    .execute();
  // The same SQL text, prepared before the column was added, returns it.
  expect(await selectAll()).toEqual([{ id: 1, body: 'x' }]);
  await db.destroy();
  // Closed through Kysely, the database is closed too.
  expect(() => database.query('select 1').all()).toThrow();
});

test('closing finalizes every statement it kept or dropped, so SQLite removes its write-ahead log', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'mango-dialect-'));
  try {
    const path = join(directory, 'mango.db');
    const database = new Database(path);
    database.run('PRAGMA journal_mode = WAL');
    const db = new Kysely<Record<string, never>>({ dialect: createBunSqliteDialect(database) });
    await sql`create table notes (id integer)`.execute(db);
    for (const query of distinctQueries(SQLITE_STATEMENT_CACHE_SIZE + 10)) await query.execute(db);
    expect(existsSync(`${path}-wal`)).toBe(true);
    await db.destroy();
    expect(existsSync(`${path}-wal`)).toBe(false);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('rows can be streamed, twice, from one kept statement', async () => {
  const { database, prepared } = countingDatabase();
  const db = new Kysely<{ numbers: { n: number } }>({ dialect: createBunSqliteDialect(database) });
  await db.schema.createTable('numbers').addColumn('n', 'integer').execute();
  await db
    .insertInto('numbers')
    .values(Array.from({ length: 5 }, (_, n) => ({ n })))
    .execute();
  const query = db.selectFrom('numbers').select('n').orderBy('n');
  for (let pass = 0; pass < 2; pass += 1) {
    const read: number[] = [];
    for await (const row of query.stream(1)) read.push(row.n);
    expect(read).toEqual([0, 1, 2, 3, 4]);
  }
  expect(prepared.get(query.compile().sql)).toBe(1);
  await db.destroy();
});
