/**
 * `generated_images` as the images store needs it (docs/images.md#the-images-store):
 * a sha256 of the bytes (the ETag of `GET /api/images/:id`) and a chat link
 * that deletes the chat's images with it (migration 0002 set it null instead,
 * which kept images nobody could reach any more). Neither dialect can change a
 * foreign key's action in place on SQLite, so the table is rebuilt: a new table,
 * the rows copied (their sha256 computed here), the old one dropped, the new
 * one renamed.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { ColumnTypes } from '../column-types';

interface OldImageRow {
  id: string;
  user_id: string;
  chat_id: string | null;
  tool_call_id: string | null;
  prompt: string | null;
  model: string | null;
  mime_type: string;
  byte_size: number;
  data: Uint8Array;
  created_at: unknown;
}

export function createGeneratedImagesMigration(types: ColumnTypes): Migration {
  return {
    async up(untyped: Kysely<unknown>) {
      // biome-ignore lint/suspicious/noExplicitAny: the tables of a migration are not the current schema.
      const db = untyped as Kysely<any>;
      await db.schema
        .createTable('generated_images_next')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('user_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('chat_id', types.id, (column) =>
          column.references('chats.id').onDelete('cascade'),
        )
        .addColumn('tool_call_id', types.text)
        .addColumn('prompt', types.text)
        .addColumn('model', types.text)
        .addColumn('mime_type', types.text, (column) => column.notNull())
        .addColumn('byte_size', types.bigInteger, (column) => column.notNull())
        .addColumn('sha256', types.text, (column) => column.notNull())
        .addColumn('data', types.bytes, (column) => column.notNull())
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .execute();
      const rows = (await db.selectFrom('generated_images').selectAll().execute()) as OldImageRow[];
      for (const row of rows) {
        await db
          .insertInto('generated_images_next')
          .values({ ...row, sha256: createHash('sha256').update(row.data).digest('hex') })
          .execute();
      }
      await db.schema.dropTable('generated_images').execute();
      await db.schema.alterTable('generated_images_next').renameTo('generated_images').execute();
      await db.schema
        .createIndex('generated_images_user_id_idx')
        .on('generated_images')
        .column('user_id')
        .execute();
      await db.schema
        .createIndex('generated_images_chat_id_idx')
        .on('generated_images')
        .column('chat_id')
        .execute();
    },
  };
}
