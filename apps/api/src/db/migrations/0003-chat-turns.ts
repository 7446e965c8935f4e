/**
 * `chat_turns`: the turn running in each chat, so every API instance sharing
 * the database sees it (docs/operations.md#the-database). One row per chat at most: the instance
 * running the turn keeps `heartbeat_at` fresh and watches `cancel_requested`,
 * which any instance may set; a row whose heartbeat stopped (a crash) is stale.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { ColumnTypes } from '../column-types';

export function createChatTurnsMigration(types: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('chat_turns')
        .addColumn('chat_id', types.id, (column) =>
          column.primaryKey().references('chats.id').onDelete('cascade'),
        )
        .addColumn('turn_id', types.id, (column) => column.notNull())
        .addColumn('started_at', types.timestamp, (column) => column.notNull())
        .addColumn('heartbeat_at', types.timestamp, (column) => column.notNull())
        .addColumn('cancel_requested', types.boolean, (column) => column.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('chat_turns').execute();
    },
  };
}
