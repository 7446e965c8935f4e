/**
 * A Kysely dialect for Bun's built-in SQLite (`bun:sqlite`). Kysely's own
 * `SqliteDialect` (driver, query compiler, introspector, and the connection
 * mutex that serialises queries) does the work; this file only presents a Bun
 * `Database` in the shape that dialect expects. The only maintained
 * third-party dialect pins an older Kysely, hence this adapter.
 */
import type { Database, Statement } from 'bun:sqlite';
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

/**
 * How many prepared statements a database keeps, by SQL text. Bun's own
 * `Database.query` cache keeps 20, fewer than a running server uses over and
 * over (a turn alone runs about twenty; the batches of turn events and of
 * messages have a statement per row count): under load most of them were
 * prepared again on every use. The limit only bounds the odd statement built
 * once (a list of ids of one length).
 */
export const SQLITE_STATEMENT_CACHE_SIZE = 256;

/**
 * The statements are finalized when they leave the cache and when the
 * database closes: SQLite deletes the write-ahead log on the last close only
 * when no statement of the connection is left. Finalizing one that leaves is
 * safe because Kysely's SQLite driver runs one query at a time on its one
 * connection, a stream (`iterate`) included until its last row: no statement
 * is prepared, and so none leaves, while another is being read.
 */
function adaptDatabase(database: Database): SqliteDatabase {
  const statements = new Map<string, { adapted: SqliteStatement; statement: Statement }>();

  return {
    close: () => {
      for (const { statement } of statements.values()) statement.finalize();
      statements.clear();
      database.close();
    },
    prepare(sql): SqliteStatement {
      const cached = statements.get(sql);
      if (cached) return cached.adapted;
      // The oldest goes first: a statement in use is prepared again at most once per
      // SQLITE_STATEMENT_CACHE_SIZE new ones, cheaper than reordering on every use.
      if (statements.size >= SQLITE_STATEMENT_CACHE_SIZE) {
        const [oldest] = statements.keys();
        if (oldest !== undefined) {
          statements.get(oldest)?.statement.finalize();
          statements.delete(oldest);
        }
      }
      const statement = database.prepare(sql);
      const adapted: SqliteStatement = {
        // A statement that yields columns (SELECT, or anything with RETURNING) is a reader.
        reader: statement.columnNames.length > 0,
        all: (parameters) => statement.all(...toBindings(parameters)),
        run: (parameters) => statement.run(...toBindings(parameters)),
        iterate: (parameters) => statement.iterate(...toBindings(parameters)),
      };
      statements.set(sql, { adapted, statement });
      return adapted;
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
