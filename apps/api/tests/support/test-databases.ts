/**
 * One suite, two databases: `describeEachDatabase` runs the same tests on a
 * real SQLite file in a temp directory and on a fresh database of the run's
 * PostgreSQL server (started on first use, see `postgres-server.ts`).
 */
import { afterAll, beforeAll, describe } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppDatabase, type DatabaseConfig, openDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { getTestPostgres } from './postgres-server';

export const DATABASE_KINDS = ['sqlite', 'postgres'] as const;
export type TestDatabaseKind = (typeof DATABASE_KINDS)[number];

export interface TestDatabaseConfig {
  config: DatabaseConfig;
  /** Removes what the config points at (the SQLite directory); PostgreSQL databases go with the server. */
  cleanup(): void;
}

/** A config for a new, empty database of this kind. */
export async function createTestDatabaseConfig(
  kind: TestDatabaseKind,
): Promise<TestDatabaseConfig> {
  if (kind === 'sqlite') {
    const directory = mkdtempSync(join(tmpdir(), 'mango-sqlite-'));
    return {
      config: { kind: 'sqlite', path: join(directory, 'mango.db') },
      cleanup: () => rmSync(directory, { recursive: true, force: true }),
    };
  }
  const server = await getTestPostgres();
  return { config: { kind: 'postgres', url: await server.createDatabase() }, cleanup: () => {} };
}

export interface TestDatabase {
  database: AppDatabase;
  config: DatabaseConfig;
  /** Closes the database and removes its files. */
  dispose(): Promise<void>;
}

/** Opens a new, migrated database of this kind. */
export async function createTestDatabase(kind: TestDatabaseKind): Promise<TestDatabase> {
  const { config, cleanup } = await createTestDatabaseConfig(kind);
  const database = openDatabase(config);
  await migrateToLatest(database);
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
