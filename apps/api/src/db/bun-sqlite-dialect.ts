/**
 * A Kysely dialect for Bun's built-in SQLite (`bun:sqlite`). Kysely's own
 * `SqliteDialect` (driver, query compiler, introspector, and the connection
 * mutex that serialises queries) does the work; this file only presents a Bun
 * `Database` in the shape that dialect expects. The only maintained
 * third-party dialect pins an older Kysely, hence this adapter.
 */
import type { Database } from 'bun:sqlite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely';

type Binding = string | number | bigint | boolean | null | Uint8Array;

function toBindings(parameters: ReadonlyArray<unknown>): Binding[] {
  return parameters.map((value) => {
    // SQLite has no date type; an ISO-8601 string sorts and compares correctly.
    if (value instanceof Date) return value.toISOString();
    if (value === undefined) return null;
    return value as Binding;
  });
}

function adaptDatabase(database: Database): SqliteDatabase {
  return {
    close: () => database.close(),
    prepare(sql): SqliteStatement {
      // `query` caches the prepared statement by its SQL text, so repeated
      // queries skip the parser.
      const statement = database.query(sql);
      return {
        // A statement that yields columns (SELECT, or anything with RETURNING) is a reader.
        reader: statement.columnNames.length > 0,
        all: (parameters) => statement.all(...toBindings(parameters)),
        run: (parameters) => statement.run(...toBindings(parameters)),
        iterate: (parameters) => statement.iterate(...toBindings(parameters)),
      };
    },
  };
}

/**
 * Transactions start with BEGIN IMMEDIATE: the write lock is taken up front, so
 * a second process on the same file (a second instance starting, migrating)
 * waits for it (busy_timeout) instead of failing later when a deferred
 * transaction tries to upgrade its read lock.
 */
class ImmediateTransactionSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/**
 * SQLite runs DDL inside transactions, so each migration is all or nothing and,
 * with BEGIN IMMEDIATE, two processes starting on one file migrate in turn.
 * Kysely's adapter says otherwise only to stay neutral across SQLite drivers.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class BunSqliteDialect extends SqliteDialect {
  readonly #database: SqliteDatabase;

  constructor(database: SqliteDatabase) {
    super({ database });
    this.#database = database;
  }

  override createDriver(): Driver {
    return new ImmediateTransactionSqliteDriver({ database: this.#database });
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

export function createBunSqliteDialect(database: Database): SqliteDialect {
  return new BunSqliteDialect(adaptDatabase(database));
}
