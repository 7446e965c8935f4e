/**
 * The application's tables: per-user tool settings, chats and their messages,
 * the freshness ledger, MCP servers and generated images (docs/operations.md#the-database). Every
 * row belongs to a user (directly or through its chat) and goes when the user
 * or chat goes.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { ColumnTypes } from '../column-types';

export function createApplicationMigration(types: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('user_tool_settings')
        .addColumn('user_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('tool_name', types.text, (column) => column.notNull())
        .addColumn('enabled', types.boolean)
        .addColumn('parameters', types.json, (column) => column.notNull())
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        // The primary key is the uniqueness the upsert relies on: one row per user and tool.
        .addPrimaryKeyConstraint('user_tool_settings_pkey', ['user_id', 'tool_name'])
        .execute();

      await db.schema
        .createTable('chats')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('user_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('title', types.text, (column) => column.notNull())
        .addColumn('mode', types.text, (column) => column.notNull())
        .addColumn('working_directory', types.text)
        .addColumn('restrict_to_working_directory', types.boolean, (column) => column.notNull())
        .addColumn('model', types.text)
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('chats_user_id_updated_at_idx')
        .on('chats')
        .columns(['user_id', 'updated_at'])
        .execute();

      await db.schema
        .createTable('messages')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('chat_id', types.id, (column) =>
          column.notNull().references('chats.id').onDelete('cascade'),
        )
        .addColumn('role', types.text, (column) => column.notNull())
        .addColumn('parts', types.json, (column) => column.notNull())
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('messages_chat_id_created_at_idx')
        .on('messages')
        .columns(['chat_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('file_reads')
        .addColumn('chat_id', types.id, (column) =>
          column.notNull().references('chats.id').onDelete('cascade'),
        )
        .addColumn('real_path', types.text, (column) => column.notNull())
        .addColumn('sha256', types.text, (column) => column.notNull())
        .addColumn('size', types.bigInteger, (column) => column.notNull())
        .addColumn('mtime_ms', types.double, (column) => column.notNull())
        .addColumn('complete', types.boolean, (column) => column.notNull())
        .addColumn('lines_covered', types.integer, (column) => column.notNull())
        .addColumn('total_lines', types.integer, (column) => column.notNull())
        .addColumn('later_windows', types.json)
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        .addPrimaryKeyConstraint('file_reads_pkey', ['chat_id', 'real_path'])
        .execute();

      await db.schema
        .createTable('mcp_servers')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('user_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('name', types.text, (column) => column.notNull())
        .addColumn('transport', types.text, (column) => column.notNull())
        .addColumn('command', types.text)
        .addColumn('args', types.json, (column) => column.notNull())
        .addColumn('env', types.json, (column) => column.notNull())
        .addColumn('cwd', types.text)
        .addColumn('url', types.text)
        .addColumn('headers', types.json, (column) => column.notNull())
        .addColumn('enabled', types.boolean, (column) => column.notNull())
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        .addUniqueConstraint('mcp_servers_user_id_name_key', ['user_id', 'name'])
        .execute();

      await db.schema
        .createTable('generated_images')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('user_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('chat_id', types.id, (column) =>
          column.references('chats.id').onDelete('set null'),
        )
        .addColumn('tool_call_id', types.text)
        .addColumn('prompt', types.text)
        .addColumn('model', types.text)
        .addColumn('mime_type', types.text, (column) => column.notNull())
        .addColumn('byte_size', types.integer, (column) => column.notNull())
        .addColumn('data', types.bytes, (column) => column.notNull())
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('generated_images_user_id_idx')
        .on('generated_images')
        .column('user_id')
        .execute();
    },
  };
}
