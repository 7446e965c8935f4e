/**
 * `mcp_servers` as Settings → MCP needs it (docs/mcp.md): a slug fixed at
 * creation (tool names and tool settings are keyed by it) unique per user,
 * the admin's `shared` flag, a per-server call timeout, and the last tool
 * listing (so Settings → Tools shows a server's tools on every instance and
 * after a restart without starting the server). Nothing wrote the table before
 * this migration; rows that exist anyway are kept, each given a slug from its name.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { ColumnTypes } from '../column-types';

interface OldServerRow {
  id: string;
  user_id: string;
  name: string;
  transport: string;
  command: string | null;
  args: unknown;
  env: unknown;
  cwd: string | null;
  url: string | null;
  headers: unknown;
  enabled: unknown;
  created_at: unknown;
  updated_at: unknown;
}

function slugOf(name: string, taken: Set<string>): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 32) || 'server';
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  taken.add(slug);
  return slug;
}

export function createMcpServersMigration(types: ColumnTypes): Migration {
  return {
    async up(untyped: Kysely<unknown>) {
      // biome-ignore lint/suspicious/noExplicitAny: the tables of a migration are not the current schema.
      const db = untyped as Kysely<any>;
      await db.schema
        .createTable('mcp_servers_next')
        .addColumn('id', types.id, (column) => column.primaryKey())
        .addColumn('user_id', types.id, (column) =>
          column.notNull().references('users.id').onDelete('cascade'),
        )
        .addColumn('name', types.text, (column) => column.notNull())
        .addColumn('slug', types.text, (column) => column.notNull())
        .addColumn('transport', types.text, (column) => column.notNull())
        .addColumn('command', types.text)
        .addColumn('args', types.json, (column) => column.notNull())
        .addColumn('env', types.json, (column) => column.notNull())
        .addColumn('cwd', types.text)
        .addColumn('url', types.text)
        .addColumn('headers', types.json, (column) => column.notNull())
        .addColumn('enabled', types.boolean, (column) => column.notNull())
        .addColumn('shared', types.boolean, (column) => column.notNull())
        .addColumn('call_timeout_seconds', types.integer)
        .addColumn('tool_listing', types.json)
        .addColumn('created_at', types.timestamp, (column) => column.notNull())
        .addColumn('updated_at', types.timestamp, (column) => column.notNull())
        .execute();
      const rows = (await db.selectFrom('mcp_servers').selectAll().execute()) as OldServerRow[];
      const slugs = new Map<string, Set<string>>();
      for (const row of rows) {
        const taken = slugs.get(row.user_id) ?? new Set<string>();
        slugs.set(row.user_id, taken);
        await db
          .insertInto('mcp_servers_next')
          .values({
            ...row,
            slug: slugOf(row.name, taken),
            shared: false,
            call_timeout_seconds: null,
            tool_listing: null,
          })
          .execute();
      }
      await db.schema.dropTable('mcp_servers').execute();
      await db.schema.alterTable('mcp_servers_next').renameTo('mcp_servers').execute();
      await db.schema
        .createIndex('mcp_servers_user_id_slug_key')
        .on('mcp_servers')
        .columns(['user_id', 'slug'])
        .unique()
        .execute();
      await db.schema
        .createIndex('mcp_servers_user_id_name_key')
        .on('mcp_servers')
        .columns(['user_id', 'name'])
        .unique()
        .execute();
      await db.schema
        .createIndex('mcp_servers_shared_idx')
        .on('mcp_servers')
        .column('shared')
        .execute();
    },
  };
}
