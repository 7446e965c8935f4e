/**
 * Rate limits and administration (docs/security.md): better-auth's limiter
 * counts sign-in and sign-up attempts in `rate_limits`, turn starts are logged
 * per user in `turn_starts`, both in the database so the limits hold across
 * instances; `invites` are the one-person sign-up tickets an admin hands out
 * while sign-up is closed; `users.disabled_at` marks a disabled account.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { ColumnTypes } from '../column-types';

export function createLimitsAndAdministrationMigration(types: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('rate_limits')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('key', types.text, (column) => column.notNull().unique())
        .addColumn('count', types.integer, (column) => column.notNull())
        // Milliseconds since the epoch, as better-auth's limiter stores it.
        .addColumn('last_request', types.bigInteger, (column) => column.notNull())
        .execute();

      await db.schema
        .createTable('turn_starts')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('user_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('started_at', types.timestamp, (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('turn_starts_user_id_started_at_idx')
        .on('turn_starts')
        .columns(['user_id', 'started_at'])
        .execute();

      await db.schema
        .createTable('invites')
        .addColumn('id', types.id, (column) => column.primaryKey())
        // The sha256 of the token; the token itself is shown once, when the invite is made.
        .addColumn('token_hash', types.text, (column) => column.notNull().unique())
        .addColumn('email', types.text)
        .addColumn('created_by', types.id, (column) =>
          column.references('users.id').onDelete('set null'),
        )
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('expires_at', types.timestamp, (column) => column.notNull())
        .addColumn('used_at', types.timestamp)
        .addColumn('used_by', types.id, (column) =>
          column.references('users.id').onDelete('set null'),
        )
        .execute();

      await db.schema.alterTable('users').addColumn('disabled_at', types.timestamp).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('users').dropColumn('disabled_at').execute();
      await db.schema.dropTable('invites').execute();
      await db.schema.dropTable('turn_starts').execute();
      await db.schema.dropTable('rate_limits').execute();
    },
  };
}
