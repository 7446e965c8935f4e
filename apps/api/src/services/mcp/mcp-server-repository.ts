/**
 * `mcp_servers` (docs/mcp.md#settings--mcp): a user's own servers and the
 * shared ones an admin configured. Every read is scoped by the user, so
 * another user's server id reads as absent unless it is shared.
 */

import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { AppDatabase } from '../../db/database';
import { readBoolean, readJson, readTimestamp, writeJson, writeTimestamp } from '../../db/values';
import type { McpListedTool, McpServerRecord } from './mcp-server-record';

export type NewMcpServer = Omit<
  McpServerRecord,
  'id' | 'ownerId' | 'ownerIsAdmin' | 'toolListing' | 'createdAt' | 'updatedAt'
>;
export type McpServerChanges = Partial<Omit<NewMcpServer, 'slug' | 'type'>>;

const StringMap = Type.Record(Type.String(), Type.String());
const StringArray = Type.Array(Type.String());
const ListedTools = Type.Array(
  Type.Object({
    name: Type.String(),
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    inputSchema: Type.Record(Type.String(), Type.Unknown()),
  }),
);

interface ServerRow {
  id: string;
  user_id: string;
  name: string;
  slug: string;
  transport: string;
  command: string | null;
  args: unknown;
  env: unknown;
  cwd: string | null;
  url: string | null;
  headers: unknown;
  enabled: boolean | number;
  shared: boolean | number;
  call_timeout_seconds: number | null;
  tool_listing: unknown;
  created_at: Date | string;
  updated_at: Date | string;
  owner_role: string | null;
}

function fromRow(row: ServerRow): McpServerRecord {
  const json = <T>(schema: Parameters<typeof Value.Check>[0], value: unknown, fallback: T): T => {
    const parsed = readJson(value);
    return Value.Check(schema, parsed) ? (parsed as T) : fallback;
  };
  return {
    id: row.id,
    ownerId: row.user_id,
    ownerIsAdmin: row.owner_role === 'admin',
    name: row.name,
    slug: row.slug,
    type: row.transport === 'http' ? 'http' : 'stdio',
    enabled: readBoolean(row.enabled) ?? false,
    command: row.command,
    args: json(StringArray, row.args, []),
    env: json(StringMap, row.env, {}),
    cwd: row.cwd,
    url: row.url,
    headers: json(StringMap, row.headers, {}),
    shared: readBoolean(row.shared) ?? false,
    callTimeoutSeconds: row.call_timeout_seconds === null ? null : Number(row.call_timeout_seconds),
    toolListing:
      row.tool_listing === null
        ? null
        : json<McpListedTool[] | null>(ListedTools, row.tool_listing, null),
    createdAt: readTimestamp(row.created_at),
    updatedAt: readTimestamp(row.updated_at),
  };
}

/** A unique constraint refused the row: another server of the user has this slug or name. */
export class McpServerClashError extends Error {
  constructor(readonly field: 'slug' | 'name') {
    super(`An MCP server with this ${field} exists.`);
  }
}

function clashOf(error: unknown): 'slug' | 'name' | undefined {
  const text =
    error instanceof Error
      ? `${error.message} ${(error as { constraint?: string }).constraint ?? ''}`
      : '';
  if (!/unique|duplicate/i.test(text)) return undefined;
  if (/slug/.test(text)) return 'slug';
  if (/name/.test(text)) return 'name';
  return undefined;
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

export function createMcpServerRepository(database: AppDatabase, now: () => number = Date.now) {
  const { db } = database;
  // Each write gets a timestamp after the previous one, so `updatedAt` names a configuration.
  let lastWrite = 0;
  const stamp = () => {
    lastWrite = Math.max(now(), lastWrite + 1);
    return writeTimestamp(lastWrite);
  };
  // A shared server is every user's while its owner is an admin.
  const visible = (userId: string) =>
    db
      .selectFrom('mcp_servers')
      .innerJoin('users', 'users.id', 'mcp_servers.user_id')
      .selectAll('mcp_servers')
      .select('users.role as owner_role')
      .where((where) =>
        where.or([
          where('mcp_servers.user_id', '=', userId),
          where.and([where('mcp_servers.shared', '=', true), where('users.role', '=', 'admin')]),
        ]),
      );

  return {
    /** The user's own servers and every shared one, oldest first. */
    async listVisible(userId: string): Promise<McpServerRecord[]> {
      const rows = await visible(userId)
        .orderBy('mcp_servers.created_at')
        .orderBy('mcp_servers.id')
        .execute();
      return rows.map((row) => fromRow(row as ServerRow));
    },

    async getVisible(userId: string, id: string): Promise<McpServerRecord | undefined> {
      const row = await visible(userId).where('mcp_servers.id', '=', id).executeTakeFirst();
      return row ? fromRow(row as ServerRow) : undefined;
    },

    async create(ownerId: string, server: NewMcpServer): Promise<McpServerRecord> {
      const at = stamp();
      const id = `mcp_${crypto.randomUUID().replaceAll('-', '')}`;
      try {
        await db
          .insertInto('mcp_servers')
          .values({
            id,
            user_id: ownerId,
            name: server.name,
            slug: server.slug,
            transport: server.type,
            command: server.command,
            args: writeJson(server.args),
            env: writeJson(server.env),
            cwd: server.cwd,
            url: server.url,
            headers: writeJson(server.headers),
            enabled: server.enabled,
            shared: server.shared,
            call_timeout_seconds: server.callTimeoutSeconds,
            tool_listing: null,
            created_at: at,
            updated_at: at,
          })
          .execute();
      } catch (error) {
        const field = clashOf(error);
        if (field) throw new McpServerClashError(field);
        throw error;
      }
      const created = await this.getVisible(ownerId, id);
      if (!created) throw new Error(`MCP server ${id} vanished after it was created.`);
      return created;
    },

    /** Changes one of the owner's servers; resolves to the new record, or undefined when it is not theirs. */
    async update(
      ownerId: string,
      id: string,
      changes: McpServerChanges,
    ): Promise<McpServerRecord | undefined> {
      const values: Record<string, unknown> = { updated_at: stamp() };
      if (changes.name !== undefined) values.name = changes.name;
      if (changes.enabled !== undefined) values.enabled = changes.enabled;
      if (changes.command !== undefined) values.command = changes.command;
      if (changes.args !== undefined) values.args = writeJson(changes.args);
      if (changes.env !== undefined) values.env = writeJson(changes.env);
      if (changes.cwd !== undefined) values.cwd = changes.cwd;
      if (changes.url !== undefined) values.url = changes.url;
      if (changes.headers !== undefined) values.headers = writeJson(changes.headers);
      if (changes.shared !== undefined) values.shared = changes.shared;
      if (changes.callTimeoutSeconds !== undefined)
        values.call_timeout_seconds = changes.callTimeoutSeconds;
      // A changed command or URL serves other tools: the last listing no longer applies.
      if (changes.command !== undefined || changes.args !== undefined || changes.url !== undefined)
        values.tool_listing = null;
      try {
        const result = await db
          .updateTable('mcp_servers')
          .set(values)
          .where('id', '=', id)
          .where('user_id', '=', ownerId)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return undefined;
      } catch (error) {
        const field = clashOf(error);
        if (field) throw new McpServerClashError(field);
        throw error;
      }
      return this.getVisible(ownerId, id);
    },

    async delete(ownerId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('mcp_servers')
        .where('id', '=', id)
        .where('user_id', '=', ownerId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * Keeps a listing a connection made, for Settings → Tools on every instance;
     * only while the configuration it was made for is current. Resolves to whether it was written.
     */
    async saveToolListing(id: string, updatedAt: string, tools: McpListedTool[]): Promise<boolean> {
      const rows = await db
        .selectFrom('mcp_servers')
        .select(['updated_at', 'tool_listing'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!rows || readTimestamp(rows.updated_at as Date | string) !== updatedAt) return false;
      const json = writeJson(tools);
      const current = readJson(rows.tool_listing);
      // jsonb keeps keys in its own order: compared key-sorted, an unchanged listing is not rewritten.
      if (current !== null && canonicalJson(current) === canonicalJson(tools)) return false;
      await db
        .updateTable('mcp_servers')
        .set({ tool_listing: json })
        .where('id', '=', id)
        .where('updated_at', '=', rows.updated_at as never)
        .execute();
      return true;
    },
  };
}

export type McpServerRepository = ReturnType<typeof createMcpServerRepository>;
