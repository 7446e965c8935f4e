/**
 * `user_tool_settings` (docs/architecture.md#layers, docs/operations.md#the-database): each user's saved settings per tool.
 * Rows hold only what the user changed; the settings policy merges them over
 * the defaults when they are read. A change is written by one upsert
 * statement that merges the new settings into the stored ones inside the
 * database, so concurrent changes (even of different settings) never lose a
 * write and never create a second row.
 */
import { CompiledQuery, type Expression, type RawBuilder, sql } from 'kysely';
import type { AppDatabase } from '../../db/database';
import { readBoolean, readTimestamp, writeJson, writeTimestamp } from '../../db/values';
import type { StoredToolSettings } from './types';

/** One stored row. `parameters` is as the database returned it, possibly corrupt. */
export interface ToolSettingsRow extends StoredToolSettings {
  userId: string;
  toolName: string;
  enabled: boolean | null;
  parameters: unknown;
  createdAt: string;
  updatedAt: string;
}

/** What a change writes: `enabled` when given, and settings merged over the saved ones. */
export interface ToolSettingsChange {
  enabled?: boolean;
  parameters?: Record<string, unknown>;
}

export interface ToolSettingsRepository {
  /** Every row of this user, by tool name. */
  listForUser(userId: string): Promise<Map<string, ToolSettingsRow>>;
  get(userId: string, toolName: string): Promise<ToolSettingsRow | undefined>;
  /** Inserts or merges in one statement; returns the row as stored afterwards. */
  upsert(userId: string, toolName: string, change: ToolSettingsChange): Promise<ToolSettingsRow>;
}

interface RawRow {
  user_id: string;
  tool_name: string;
  enabled: boolean | number | null;
  parameters: unknown;
  created_at: Date | string;
  updated_at: Date | string;
}

function toRow(raw: RawRow): ToolSettingsRow {
  return {
    userId: raw.user_id,
    toolName: raw.tool_name,
    enabled: readBoolean(raw.enabled),
    parameters: raw.parameters,
    createdAt: readTimestamp(raw.created_at),
    updatedAt: readTimestamp(raw.updated_at),
  };
}

/**
 * The stored settings with the new ones merged over them, computed by the
 * database. A stored value that is not a JSON object (hand-edited, or written
 * by something else) is treated as empty rather than failing the write.
 */
function mergedParameters(kind: AppDatabase['kind']): RawBuilder<unknown> {
  const stored = sql.ref('user_tool_settings.parameters');
  const incoming = sql.ref('excluded.parameters');
  if (kind === 'postgres') {
    return sql`(case when jsonb_typeof(${stored}) = 'object' then ${stored} else '{}'::jsonb end) || ${incoming}`;
  }
  // SQLite evaluates only the chosen CASE branch, so json_type never sees invalid JSON.
  // json_patch replaces top-level keys; setting values are never objects or null,
  // so this is the same shallow merge as PostgreSQL's `||`.
  return sql`json_patch(case when json_valid(${stored}) then (case when json_type(${stored}) = 'object' then ${stored} else '{}' end) else '{}' end, ${incoming})`;
}

export function createToolSettingsRepository(
  database: AppDatabase,
  now: () => number = Date.now,
): ToolSettingsRepository {
  const { db } = database;
  const merge = mergedParameters(database.kind);
  const listForUserSql = db
    .selectFrom('user_tool_settings')
    .selectAll()
    .where('user_id', '=', '')
    .orderBy('tool_name')
    .compile().sql;
  const keepStoredEnabled: Expression<unknown> = sql`coalesce(${sql.ref('excluded.enabled')}, ${sql.ref('user_tool_settings.enabled')})`;
  return {
    async listForUser(userId) {
      // Every settings read and every chat turn runs this; its SQL is built once.
      const { rows } = await db.executeQuery<RawRow>(CompiledQuery.raw(listForUserSql, [userId]));
      return new Map(rows.map((raw) => [raw.tool_name, toRow(raw)]));
    },

    async get(userId, toolName) {
      const raw = await db
        .selectFrom('user_tool_settings')
        .selectAll()
        .where('user_id', '=', userId)
        .where('tool_name', '=', toolName)
        .executeTakeFirst();
      return raw ? toRow(raw) : undefined;
    },

    async upsert(userId, toolName, change) {
      const timestamp = writeTimestamp(now());
      const raw = await db
        .insertInto('user_tool_settings')
        .values({
          user_id: userId,
          tool_name: toolName,
          enabled: change.enabled ?? null,
          parameters: writeJson(change.parameters ?? {}),
          created_at: timestamp,
          updated_at: timestamp,
        })
        .onConflict((conflict) =>
          conflict.columns(['user_id', 'tool_name']).doUpdateSet({
            enabled: keepStoredEnabled as Expression<boolean>,
            parameters: merge as RawBuilder<string>,
            updated_at: (eb) => eb.ref('excluded.updated_at'),
          }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRow(raw);
    },
  };
}
