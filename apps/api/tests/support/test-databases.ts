/**
 * One suite, two databases: `describeEachDatabase` runs the same tests on a
 * real SQLite file in a temp directory and on a fresh database of the run's
 * PostgreSQL server (started on first use, see `postgres-server.ts`).
 *
 * Migrating takes far longer than copying, so each kind is migrated once per
 * process into a template, and every migrated test database is a copy of it:
 * `CREATE DATABASE … TEMPLATE` on PostgreSQL, a file copy on SQLite. The
 * migration tests start from empty databases (`createTestDatabaseConfig`).
 */
import { afterAll, beforeAll, describe } from 'bun:test';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { DATABASE_KINDS, type DatabaseKind } from '../../src/db/column-types';
import { type AppDatabase, type DatabaseConfig, openDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { getTestPostgres } from './postgres-server';
import { runWhenProcessEnds } from './process-watchdog';

export { DATABASE_KINDS };
export type TestDatabaseKind = DatabaseKind;

export interface TestDatabaseConfig {
  config: DatabaseConfig;
  /** Removes what the config points at (the SQLite directory); PostgreSQL databases go with the server. */
  cleanup(): void;
}

function createSqliteDirectory(): TestDatabaseConfig & { path: string } {
  const directory = mkdtempSync(join(tmpdir(), 'mango-sqlite-'));
  const path = join(directory, 'mango.db');
  return {
    path,
    config: { kind: 'sqlite', path },
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  };
}

/** A config for a new, empty database of this kind. */
export async function createTestDatabaseConfig(
  kind: TestDatabaseKind,
): Promise<TestDatabaseConfig> {
  if (kind === 'sqlite') return createSqliteDirectory();
  const server = await getTestPostgres();
  return { config: { kind: 'postgres', url: await server.createDatabase() }, cleanup: () => {} };
}

interface MigratedTemplate {
  /** A config for a new database holding what the template holds. */
  copy(): Promise<TestDatabaseConfig>;
  cleanup(): void;
}

async function migrateTemplate(kind: TestDatabaseKind): Promise<MigratedTemplate> {
  const empty = await createTestDatabaseConfig(kind);
  const database = openDatabase(empty.config);
  try {
    await migrateToLatest(database);
    // Everything into the main file, so that copying the file copies it all.
    if (kind === 'sqlite') await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(database.db);
  } finally {
    await database.close();
  }
  const { config } = empty;
  if (config.kind === 'sqlite') {
    if (existsSync(`${config.path}-wal`)) {
      throw new Error(`The SQLite template ${config.path} kept its WAL file after closing.`);
    }
    const watchdog = runWhenProcessEnds([['rm', '-rf', dirname(config.path)]]);
    return {
      copy: async () => {
        const target = createSqliteDirectory();
        copyFileSync(config.path, target.path);
        return target;
      },
      cleanup: () => {
        watchdog.cancel();
        empty.cleanup();
      },
    };
  }
  // No connection may stay open on a template database while it is copied.
  const template = new URL(config.url).pathname.slice(1);
  const server = await getTestPostgres();
  return {
    copy: async () => ({
      config: { kind: 'postgres', url: await server.createDatabase({ template }) },
      cleanup: () => {},
    }),
    cleanup: () => {},
  };
}

const templates = new Map<TestDatabaseKind, Promise<MigratedTemplate>>();

function migratedTemplate(kind: TestDatabaseKind): Promise<MigratedTemplate> {
  let template = templates.get(kind);
  if (!template) {
    template = migrateTemplate(kind);
    templates.set(kind, template);
  }
  return template;
}

/** Removes the templates made so far (called once when the run ends). */
export async function removeTestDatabaseTemplates(): Promise<void> {
  const pending = [...templates.values()];
  templates.clear();
  for (const template of pending) {
    try {
      (await template).cleanup();
    } catch {
      // It was never made; nothing to remove.
    }
  }
}

/** A config for a new database of this kind with every migration applied. */
export async function createMigratedTestDatabaseConfig(
  kind: TestDatabaseKind,
): Promise<TestDatabaseConfig> {
  return (await migratedTemplate(kind)).copy();
}

export interface TestDatabase {
  database: AppDatabase;
  config: DatabaseConfig;
  /** Closes the database and removes its files. */
  dispose(): Promise<void>;
}

/** Opens a new, migrated database of this kind. */
export async function createTestDatabase(kind: TestDatabaseKind): Promise<TestDatabase> {
  const { config, cleanup } = await createMigratedTestDatabaseConfig(kind);
  const database = openDatabase(config);
  return {
    database,
    config,
    dispose: async () => {
      await database.close();
      cleanup();
    },
  };
}

/**
 * Declares `body` once per database kind. `current()` returns the migrated
 * database of the running block, fresh per block and closed after it.
 */
export function describeEachDatabase(
  name: string,
  body: (kind: TestDatabaseKind, current: () => TestDatabase) => void,
): void {
  for (const kind of DATABASE_KINDS) {
    describe(`${name} [${kind}]`, () => {
      let testDatabase: TestDatabase | undefined;
      // Generous: the first PostgreSQL block of the run also starts the server.
      beforeAll(async () => {
        testDatabase = await createTestDatabase(kind);
      }, 60_000);
      afterAll(async () => {
        await testDatabase?.dispose();
      });
      body(kind, () => {
        if (!testDatabase) throw new Error(`The ${kind} test database did not open.`);
        return testDatabase;
      });
    });
  }
}
