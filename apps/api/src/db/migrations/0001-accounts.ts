/**
 * Accounts: better-auth's models (user, session, account, verification, and
 * the API key plugin's apikey) under this schema's snake_case names. The
 * mapping from better-auth's field names lives in `auth/auth-schema.ts`; a
 * test asks better-auth itself whether these tables satisfy it.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { ColumnTypes } from '../column-types';

export function createAccountsMigration(types: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('users')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('name', types.text, (column) => column.notNull())
        .addColumn('email', types.text, (column) => column.notNull().unique())
        .addColumn('email_verified', types.boolean, (column) => column.notNull())
        .addColumn('image', types.text)
        .addColumn('role', types.text)
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        .execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('user_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('token', types.text, (column) => column.notNull().unique())
        .addColumn('expires_at', types.timestamp, (column) => column.notNull())
        .addColumn('ip_address', types.text)
        .addColumn('user_agent', types.text)
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('sessions_user_id_idx')
        .on('sessions')
        .column('user_id')
        .execute();

      await db.schema
        .createTable('accounts')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('user_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('account_id', types.text, (column) => column.notNull())
        .addColumn('provider_id', types.text, (column) => column.notNull())
        .addColumn('access_token', types.text)
        .addColumn('refresh_token', types.text)
        .addColumn('id_token', types.text)
        .addColumn('access_token_expires_at', types.timestamp)
        .addColumn('refresh_token_expires_at', types.timestamp)
        .addColumn('scope', types.text)
        .addColumn('password', types.text)
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('accounts_user_id_idx')
        .on('accounts')
        .column('user_id')
        .execute();

      await db.schema
        .createTable('verifications')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('identifier', types.text, (column) => column.notNull())
        .addColumn('value', types.text, (column) => column.notNull())
        .addColumn('expires_at', types.timestamp, (column) => column.notNull())
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('verifications_identifier_idx')
        .on('verifications')
        .column('identifier')
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('config_id', types.text, (column) => column.notNull())
        .addColumn('name', types.text)
        .addColumn('start', types.text)
        .addColumn('reference_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('prefix', types.text)
        .addColumn('key', types.text, (column) => column.notNull())
        .addColumn('refill_interval', types.integer)
        .addColumn('refill_amount', types.integer)
        .addColumn('last_refill_at', types.timestamp)
        .addColumn('enabled', types.boolean)
        .addColumn('rate_limit_enabled', types.boolean)
        .addColumn('rate_limit_time_window', types.integer)
        .addColumn('rate_limit_max', types.integer)
        .addColumn('request_count', types.integer)
        .addColumn('remaining', types.integer)
        .addColumn('last_request', types.timestamp)
        .addColumn('expires_at', types.timestamp)
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        .addColumn('permissions', types.text)
        .addColumn('metadata', types.text)
        .execute();
      await db.schema
        .createIndex('api_keys_config_id_idx')
        .on('api_keys')
        .column('config_id')
        .execute();
      await db.schema
        .createIndex('api_keys_reference_id_idx')
        .on('api_keys')
        .column('reference_id')
        .execute();
      await db.schema.createIndex('api_keys_key_idx').on('api_keys').column('key').execute();
    },
  };
}
