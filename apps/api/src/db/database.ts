/**
 * Opens the database (docs/operations.md#the-database): an embedded SQLite file through `bun:sqlite`
 * by default, or PostgreSQL when a URL is given. Both come back as one
 * `AppDatabase`: a typed Kysely instance, its kind, a named lock that holds
 * across every instance sharing the database, and `close`.
 */

import { Database as BunDatabase } from 'bun:sqlite';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { AppError } from '../errors';
import { createKeyedMutex } from '../keyed-mutex';
import type { Logger } from '../logger';
import { createBunSqliteDialect } from './bun-sqlite-dialect';
import { type ChangeFeed, createLocalChangeFeed, createPostgresChangeFeed } from './change-feed';
import type { DatabaseKind } from './column-types';
import { loadPg } from './load-pg';
import type { DatabaseSchema } from './schema';
import { startSqliteCheckpointer } from './sqlite-checkpointer';

export type { DatabaseKind } from './column-types';

export type DatabaseConfig =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string; poolSize?: number };

export interface AppDatabase {
  kind: DatabaseKind;
  db: Kysely<DatabaseSchema>;
  /**
   * Runs `task` while holding the lock named `key`. On SQLite the lock is held
   * within this process (the one process serving the file); on PostgreSQL it
   * is an advisory lock, so it also holds against other API instances.
   */
  withLock<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** "This changed" signals between the instances sharing this database, for their caches. */
  changes: ChangeFeed;
  /** Finishes queries in flight and closes every connection. */
  close(): Promise<void>;
}

export class DatabaseConnectionError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('service_unavailable', message, options);
  }
}

const PG_INT8_OID = 20;

/**
 * node-postgres returns `bigint` columns and `count(*)` as strings, to be safe
 * past 2^53. Every such value here (file sizes, counts) is far below that, so
 * they are read as numbers, the same as on SQLite.
 */
function postgresTypes({ types }: typeof pg): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === PG_INT8_OID
        ? (value: string) => Number(value)
        : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
  };
}

/**
 * An embedded SQLite file is served by one process (scale-out is PostgreSQL's
 * job), so a process-wide lock and change feed per file are enough.
 */
interface SqliteFileShared {
  withLock: ReturnType<typeof createKeyedMutex>;
  changes: ChangeFeed;
}

const sqliteFiles = new Map<string, SqliteFileShared>();

/** The lock and change feed of a SQLite file, shared by every handle this process opens on it. */
function sharedForSqliteFile(path: string): SqliteFileShared {
  const key = path === ':memory:' ? `:memory:${sqliteFiles.size}` : resolve(path);
  let shared = sqliteFiles.get(key);
  if (!shared) {
    shared = { withLock: createKeyedMutex(), changes: createLocalChangeFeed() };
    sqliteFiles.set(key, shared);
  }
  return shared;
}

const SQLITE_BUSY_TIMEOUT_MS = 5000;

function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Switching a new file to WAL needs the file to itself for a moment. When two
 * processes open a new file at once, each holds a shared lock and wants the
 * exclusive one; SQLite answers SQLITE_BUSY at once instead of calling the
 * busy handler (waiting there could deadlock), so the busy timeout does not
 * cover this step. The switch is retried after a short, growing, jittered
 * pause, within the same budget as the busy timeout. A file already in WAL
 * takes no lock for this.
 */
function switchToWal(sqlite: BunDatabase, path: string): void {
  const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (let pauseMs = 2; ; pauseMs = Math.min(pauseMs * 2, 100)) {
    try {
      sqlite.run('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      const pause = pauseMs * (0.5 + Math.random());
      if (Date.now() + pause > deadline) {
        throw new DatabaseConnectionError(
          `The SQLite database at ${path} stayed locked by another process for ${SQLITE_BUSY_TIMEOUT_MS / 1000} s while switching to WAL. Check that no other program holds it open in an exclusive transaction, then start again.`,
          { cause: error },
        );
      }
      Bun.sleepSync(pause);
    }
  }
}

function openSqlite(path: string, checkpointInBackground: boolean): AppDatabase {
  let sqlite: BunDatabase;
  try {
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true });
      // The file holds password hashes and sessions: owner-only from its first byte. SQLite
      // gives its -wal and -shm files the database file's permissions.
      closeSync(openSync(path, 'a', 0o600));
    }
    sqlite = new BunDatabase(path, { create: true });
  } catch (error) {
    throw new DatabaseConnectionError(
      `Cannot open the SQLite database at ${path}: ${(error as Error).message}. Check that MANGO_DATA_DIR points to a writable directory.`,
      { cause: error },
    );
  }
  // WAL lets readers proceed during a write; NORMAL is durable with WAL except
  // for the last transactions before a power loss. Foreign keys are off in
  // SQLite unless asked for.
  sqlite.run(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  try {
    switchToWal(sqlite, path);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  sqlite.run('PRAGMA synchronous = NORMAL');
  sqlite.run('PRAGMA foreign_keys = ON');
  const checkpointer =
    checkpointInBackground && path !== ':memory:'
      ? startSqliteCheckpointer(sqlite, path)
      : undefined;
  const db = new Kysely<DatabaseSchema>({ dialect: createBunSqliteDialect(sqlite) });
  return {
    kind: 'sqlite',
    db,
    ...sharedForSqliteFile(path),
    close: async () => {
      // The worker's connection first, so that the writer's close, the last, checkpoints the
      // log away.
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

function openPostgres(url: string, poolSize = 10, logger?: Logger): AppDatabase {
  const driver = loadPg();
  const pool = new driver.Pool({
    connectionString: url,
    max: poolSize,
    types: postgresTypes(driver),
  });
  // Advisory locks are held by a session, so a lock holder keeps its
  // connection until it unlocks. They get their own small pool: work done
  // under a lock uses the main pool and can never wait for a connection that
  // a lock holder is keeping.
  const lockPool = new driver.Pool({ connectionString: url, max: 4 });
  const logIdleError = (error: Error) => {
    // An idle client lost its connection (server restart, network). The pool
    // replaces it on the next checkout; without a listener the process would exit.
    console.error(
      JSON.stringify({ level: 'warn', msg: 'postgres idle client error', error: error.message }),
    );
  };
  pool.on('error', logIdleError);
  lockPool.on('error', logIdleError);
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  const localLock = createKeyedMutex();
  const changes = createPostgresChangeFeed({
    url,
    notify: async (channel, key) => {
      await pool.query('SELECT pg_notify($1, $2)', [channel, key]);
    },
    ...(logger ? { logger } : {}),
  });
  return {
    kind: 'postgres',
    db,
    // Waiters in this process queue on the local mutex first, so each key
    // holds at most one lock-pool connection at a time.
    withLock: (key, task) =>
      localLock(key, async () => {
        const client = await lockPool.connect();
        let broken: Error | undefined;
        try {
          await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
          try {
            return await task();
          } finally {
            await client
              .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key])
              .catch((error: Error) => {
                // The session is gone, and its locks with it; drop the client.
                broken = error;
              });
          }
        } finally {
          client.release(broken);
        }
      }),
    changes,
    close: async () => {
      await changes.close();
      await db.destroy();
      await lockPool.end();
    },
  };
}

export interface OpenDatabaseOptions {
  logger?: Logger;
  /**
   * SQLite: checkpoint the write-ahead log in a worker thread rather than in
   * the commits of this connection (sqlite-checkpointer.ts). The server does;
   * a short-lived connection (a CLI, a test) has no need to.
   */
  checkpointInBackground?: boolean;
}

export function openDatabase(
  config: DatabaseConfig,
  options: OpenDatabaseOptions = {},
): AppDatabase {
  return config.kind === 'sqlite'
    ? openSqlite(config.path, options.checkpointInBackground ?? false)
    : openPostgres(config.url, config.poolSize, options.logger);
}
