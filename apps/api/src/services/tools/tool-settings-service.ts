/**
 * Tool settings per user (SPEC §1, §4, §8): the registry says which tools
 * exist, the settings policy merges and validates, the repository stores what
 * the user changed. Reads never fail on a bad stored row (it is coerced to
 * defaults, keeping the user's on/off choice); changes are validated strictly.
 */
import type { ToolSettingsDescriptor } from '@mango/shared';
import type { ChangeFeed } from '../../db/change-feed';
import { createFeedBackedCache } from '../../db/feed-backed-cache';
import { ApiError } from '../../errors';
import { ToolParameterError, UnknownToolError } from './errors';
import type { ToolRegistry } from './registry';
import { type EnabledToolRuntime, getEnabledToolRuntime } from './runtime';
import { getSafeEffectiveToolSettings, mergeToolSettings } from './settings-policy';
import type { ToolSettingsRepository, ToolSettingsRow } from './tool-settings-repository';
import type { RegisteredTool, StoredToolSettings, ToolSettingsUpdate } from './types';

export interface ToolSettingsService {
  /**
   * Every registered tool with this user's effective settings, in registration
   * order. While the user's rows are unchanged the same (shared, read-only)
   * array comes back, so callers can memoise what they derive from it.
   */
  listToolSettings(userId: string): Promise<readonly ToolSettingsDescriptor[]>;
  /**
   * Validates and saves a change. Throws `UnknownToolError` (404) for a tool
   * that is not registered and an `invalid_tool_settings` ApiError (422) for a
   * refused setting.
   */
  updateToolSettings(
    userId: string,
    toolName: string,
    update: ToolSettingsUpdate,
  ): Promise<ToolSettingsDescriptor>;
  /** What this user's chat turns get: the enabled definitions and every tool's effective settings. */
  getEnabledToolRuntime(userId: string): Promise<EnabledToolRuntime>;
  /** The user's stored rows by tool name, as `executeTool` and the turn loop take them. */
  loadSavedToolSettings(userId: string): Promise<Map<string, StoredToolSettings>>;
}

export interface ToolSettingsServiceDependencies {
  registry: ToolRegistry;
  repository: ToolSettingsRepository;
  /** Change signals between instances; without it every list reads the database. */
  changes?: ChangeFeed;
}

/** The change channel for a user's tool settings (the key is the user id). */
export const TOOL_SETTINGS_CHANNEL = 'user_tool_settings';

function describeTool(
  tool: RegisteredTool,
  row: ToolSettingsRow | undefined,
): ToolSettingsDescriptor {
  const effective = getSafeEffectiveToolSettings(tool, row);
  const { settings } = tool;
  return {
    name: tool.definition.name,
    title: settings.title,
    description: settings.description,
    category: settings.category,
    enabledByDefault: settings.enabledByDefault,
    canDisable: settings.canDisable,
    enabled: effective.enabled,
    parameters: effective.parameters,
    defaultParameters: settings.defaultParameters,
    parameterDescriptors: settings.parameterDescriptors,
    updatedAt: row?.updatedAt ?? null,
  };
}

/** Identifies the exact stored state of a user's rows: equal fingerprints, equal descriptors. */
function fingerprintOf(rows: Map<string, ToolSettingsRow>): string {
  let fingerprint = '';
  for (const row of rows.values()) {
    const parameters =
      typeof row.parameters === 'string' ? row.parameters : JSON.stringify(row.parameters);
    fingerprint += `${row.toolName}\u0000${row.enabled}\u0000${row.updatedAt}\u0000${parameters}\u0001`;
  }
  return fingerprint;
}

const LIST_CACHE_USERS = 1_000;
/** Bounds how long an edit made outside the API (by hand in the database) can go unseen. */
const LIST_CACHE_TTL_MS = 60_000;

interface CachedList {
  fingerprint: string;
  toolCount: number;
  tools: readonly ToolSettingsDescriptor[];
}

export function createToolSettingsService(
  deps: ToolSettingsServiceDependencies,
): ToolSettingsService {
  const { registry, repository } = deps;
  // A user's list is served from memory while the change feed vouches for it
  // (any instance that writes a user's settings signals it); otherwise the
  // rows are read and the list is rebuilt only when they differ.
  const listCache = createFeedBackedCache<CachedList>({
    feed: deps.changes,
    channel: TOOL_SETTINGS_CHANNEL,
    invalidates: 'key',
    maxEntries: LIST_CACHE_USERS,
    ttlMs: LIST_CACHE_TTL_MS,
    // A list the feed cannot vouch for still spares rebuilding it when the rows are the same.
    keepUnvouched: true,
  });

  function requireTool(toolName: string): RegisteredTool {
    const tool = registry.get(toolName);
    if (!tool) {
      throw new UnknownToolError(
        `There is no tool named "${toolName}". GET /api/settings/tools lists the tools and their names.`,
      );
    }
    return tool;
  }

  return {
    async listToolSettings(userId) {
      const registered = registry.list();
      const cached = listCache.lookup(userId);
      if (cached?.fresh && cached.value.toolCount === registered.length) return cached.value.tools;
      const read = listCache.startRead(userId);
      const rows = await repository.listForUser(userId);
      const fingerprint = fingerprintOf(rows);
      const tools =
        cached?.value.fingerprint === fingerprint && cached.value.toolCount === registered.length
          ? cached.value.tools
          : registered.map((tool) => describeTool(tool, rows.get(tool.definition.name)));
      read.store({ fingerprint, toolCount: registered.length, tools });
      return tools;
    },

    async updateToolSettings(userId, toolName, update) {
      const tool = requireTool(toolName);
      let validated: Record<string, unknown> | undefined;
      try {
        // Validates the change on its own (the stored row may be corrupt; the
        // database merges the change into it): unknown names, wrong types,
        // out-of-range values, and disabling a tool that cannot be disabled.
        validated = mergeToolSettings(tool, undefined, {
          ...(update.enabled === undefined ? {} : { enabled: update.enabled }),
          ...(update.parameters === undefined ? {} : { parameters: update.parameters }),
        }).parameters;
      } catch (error) {
        if (error instanceof ToolParameterError) {
          throw new ApiError('invalid_tool_settings', error.message, {
            details: { toolName, key: error.key },
            cause: error,
          });
        }
        throw error;
      }
      const parameters =
        update.parameters === undefined
          ? undefined
          : Object.fromEntries(Object.keys(update.parameters).map((key) => [key, validated[key]]));
      const row = await repository.upsert(userId, toolName, {
        ...(update.enabled === undefined ? {} : { enabled: update.enabled }),
        ...(parameters === undefined ? {} : { parameters }),
      });
      // This instance forgets at once; the others when the signal reaches them.
      listCache.forget(userId);
      await deps.changes?.notify(TOOL_SETTINGS_CHANNEL, userId).catch(() => {
        // The write stands; other instances see it when their entry expires.
      });
      return describeTool(tool, row);
    },

    async getEnabledToolRuntime(userId) {
      return getEnabledToolRuntime(await repository.listForUser(userId), registry);
    },

    loadSavedToolSettings: (userId) => repository.listForUser(userId),
  };
}
