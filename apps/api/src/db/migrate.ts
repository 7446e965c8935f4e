/**
 * Runs the migrations at start-up. Idempotent: applied migrations are recorded
 * (Kysely's migration table) and skipped, and concurrent starts of several
 * instances take Kysely's migration lock in turn.
 */

import { Migrator } from 'kysely/migration';
import { AppError } from '../errors';
import type { AppDatabase } from './database';
import { createMigrationProvider } from './migrations';

export class DatabaseMigrationError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('internal_error', message, { ...options, retryable: false });
  }
}

/** Applies every pending migration; returns the names of those it applied. */
export async function migrateToLatest(database: AppDatabase): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: createMigrationProvider(database.kind),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    const cause = error instanceof Error ? error.message : String(error);
    throw new DatabaseMigrationError(
      `Database migration ${failed ? `"${failed}" ` : ''}failed on ${database.kind}: ${cause}. The database was left at the last migration that succeeded; fix the cause and start again.`,
      { cause: error },
    );
  }
  return (results ?? []).map((result) => result.migrationName);
}
