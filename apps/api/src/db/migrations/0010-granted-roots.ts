/**
 * Granted roots (docs/security.md#system-tools-are-granted): the directories
 * on the server an admin lets a non-admin user's system tools (file tools and
 * shells) reach. A user without rows has no system tools; admins need none.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { ColumnTypes } from '../column-types';

export function createGrantedRootsMigration(types: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('granted_roots')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('user_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        // Absolute and normalised, as the admin granted it; the path policy resolves it through symlinks.
        .addColumn('path', types.text, (column) => column.notNull())
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addUniqueConstraint('granted_roots_user_id_path_unique', ['user_id', 'path'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('granted_roots').execute();
    },
  };
}
