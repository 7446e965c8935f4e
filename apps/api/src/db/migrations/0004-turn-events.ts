/**
 * Turns that outlive their connection (docs/chat-turns.md#the-turn-lifecycle):
 * `turns` records each chat's latest turn (ids, status) and `turn_events` its
 * events in batches, so any instance can replay a turn and follow it live.
 * `chat_turns.instance_id` names the instance holding a claim, so a restarted
 * instance can release the claims it held before it crashed. `messages.usage`
 * keeps each model call's token usage with its assistant message.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { ColumnTypes } from '../column-types';

export function createTurnEventsMigration(types: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('turns')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('chat_id', types.id, (column) =>
          column.notNull().references('chats.id').onDelete('cascade'),
        )
        .addColumn('user_message_id', types.id, (column) => column.notNull())
        .addColumn('assistant_message_id', types.id, (column) => column.notNull())
        .addColumn('model', types.text, (column) => column.notNull())
        .addColumn('status', types.text, (column) => column.notNull())
        .addColumn('started_at', types.timestamp, (column) => column.notNull())
        .addColumn('ended_at', types.timestamp)
        .execute();
      await db.schema
        .createIndex('turns_chat_id_started_at_idx')
        .on('turns')
        .columns(['chat_id', 'started_at'])
        .execute();
      await db.schema
        .createTable('turn_events')
        .addColumn('turn_id', types.id, (column) =>
          column.notNull().references('turns.id').onDelete('cascade'),
        )
        .addColumn('first_seq', types.integer, (column) => column.notNull())
        .addColumn('last_seq', types.integer, (column) => column.notNull())
        .addColumn('events', types.json, (column) => column.notNull())
        .addPrimaryKeyConstraint('turn_events_pkey', ['turn_id', 'first_seq'])
        .execute();
      await db.schema.alterTable('chat_turns').addColumn('instance_id', types.text).execute();
      await db.schema.alterTable('messages').addColumn('usage', types.json).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('messages').dropColumn('usage').execute();
      await db.schema.alterTable('chat_turns').dropColumn('instance_id').execute();
      await db.schema.dropTable('turn_events').execute();
      await db.schema.dropTable('turns').execute();
    },
  };
}
