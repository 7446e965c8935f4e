/**
 * Tool settings per user (docs/architecture.md#layers, docs/tool-system.md#settings-policy, docs/http-api.md#tool-settings): the tool catalog (every tool
 * source, merged) says which tools exist, the settings policy merges and
 * validates, the repository stores what the user changed. Reads never
 * fail on a bad stored row (it is coerced to defaults, keeping the user's
 * on/off choice); changes are validated strictly.
 */
import type { ToolSettingsDescriptor } from '@mango/shared';
import type { ChangeFeed } from '../../db/change-feed';
import { createFeedBackedCache } from '../../db/feed-backed-cache';
import { ApiError } from '../../errors';
import { ToolParameterError, UnknownToolError } from './errors';
import { type EnabledToolRuntime, toEnabledToolRuntime } from './runtime';
import { getSafeEffectiveToolSettings, mergeToolSettings } from './settings-policy';
import type { ToolCatalog, ToolCatalogListing } from './sources/tool-catalog';
import type { SourcedTool } from './sources/tool-source';
import type { ToolSettingsRepository, ToolSettingsRow } from './tool-settings-repository';
import type { HostAccess, RegisteredTool, StoredToolSettings, ToolSettingsUpdate } from './types';

export interface ToolSettingsService {
  /**
   * Every tool of every source with this user's effective settings, in the
   * catalog's order. While the user's rows are unchanged the same (shared, read-only)
   * array comes back, so callers can memoise what they derive from it.
   */
  listToolSettings(userId: string): Promise<readonly ToolSettingsDescriptor[]>;
  /**
   * Validates and saves a change. Throws `UnknownToolError` (404) for a tool
   * no source offers and an `invalid_tool_settings` ApiError (422) for a
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
  catalog: ToolCatalog;
  repository: ToolSettingsRepository;
  /** Change signals between instances; without it every list reads the database. */
  changes?: ChangeFeed;
  /** What a user's system tools may reach (their unavailable reasons follow it); unrestricted without. */
  hostAccess?: (userId: string) => Promise<HostAccess>;
  /** `hostAccess` when it is known in memory, without reading anything; else undefined. */
  knownHostAccess?: (userId: string) => HostAccess | undefined;
}

/** The change channel for a user's tool settings (the key is the user id). */
export const TOOL_SETTINGS_CHANNEL = 'user_tool_settings';

function describeTool(
  listed: SourcedTool,
  row: ToolSettingsRow | undefined,
): ToolSettingsDescriptor {
  const { tool } = listed;
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
    source: listed.source.info.kind,
    ...(listed.source.info.kind === 'server'
      ? {
          server: {
            id: listed.source.info.id.replace(/^mcp:/, ''),
            name: listed.source.info.name,
          },
        }
      : {}),
    ...(listed.state === 'unavailable' && listed.reason
      ? { unavailableReason: listed.reason }
      : {}),
  };
}

/** The tools a listing offers, as the cache compares them: each tool object and its unavailable reason. */
interface CatalogShape {
  /** The listing's own array: an unchanged listing is handed out again (tool-catalog.ts), known by identity. */
  listed: readonly SourcedTool[];
  tools: readonly RegisteredTool[];
  reasons: readonly (string | undefined)[];
}

function shapeOf(listing: ToolCatalogListing): CatalogShape {
  return {
    listed: listing.tools,
    tools: listing.tools.map((listed) => listed.tool),
    reasons: listing.tools.map((listed) =>
      listed.state === 'unavailable' ? listed.reason : undefined,
    ),
  };
}

/** Equal shapes, equal descriptors (compared without building anything, on every request). */
function sameShape(shape: CatalogShape, listing: ToolCatalogListing): boolean {
  if (shape.listed === listing.tools) return true;
  if (shape.tools.length !== listing.tools.length) return false;
  return listing.tools.every(
    (listed, index) =>
      shape.tools[index] === listed.tool &&
      shape.reasons[index] === (listed.state === 'unavailable' ? listed.reason : undefined),
  );
}

const NO_SAVED_SETTINGS: ReadonlyMap<string, StoredToolSettings> = new Map();

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
  catalog: CatalogShape;
  tools: readonly ToolSettingsDescriptor[];
}

export function createToolSettingsService(
  deps: ToolSettingsServiceDependencies,
): ToolSettingsService {
  const { catalog, repository } = deps;
  // The tools that exist for this user (states are not needed here: the
  // descriptors are built from the rows), unavailable reasons included.
  const accessOf = async (userId: string) => {
    const hostAccess = await deps.hostAccess?.(userId);
    return hostAccess ? { hostAccess } : {};
  };
  // Nothing is started for it: an MCP server's tools are those it listed last. Listed
  // synchronously when the user's access and servers are known in memory, as they are for
  // every request but the first in a minute: no promise is then made for it at all.
  const listCatalog = (userId: string): ToolCatalogListing | Promise<ToolCatalogListing> => {
    const request = { userId, saved: NO_SAVED_SETTINGS, connect: false };
    if (!deps.hostAccess) return catalog.listKnown(request) ?? catalog.list(request);
    const known = deps.knownHostAccess?.(userId);
    const fromMemory = known && catalog.listKnown({ ...request, hostAccess: known });
    return fromMemory ?? accessOf(userId).then((access) => catalog.list({ ...request, ...access }));
  };
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

  async function requireTool(userId: string, toolName: string): Promise<SourcedTool> {
    const tool = (await listCatalog(userId)).get(toolName);
    if (!tool) {
      throw new UnknownToolError(
        `There is no tool named "${toolName}". GET /api/settings/tools lists the tools and their names.`,
      );
    }
    return tool;
  }

  return {
    async listToolSettings(userId) {
      const listed = listCatalog(userId);
      const listing = listed instanceof Promise ? await listed : listed;
      const cached = listCache.lookup(userId);
      if (cached?.fresh && sameShape(cached.value.catalog, listing)) return cached.value.tools;
      // Requests that miss together (the entry expired under load) share the rows' read; each
      // builds its list from its own catalog listing.
      const { read, rows } = await listCache.readShared(userId, async (started) => ({
        read: started,
        rows: await repository.listForUser(userId),
      }));
      const fingerprint = fingerprintOf(rows);
      // Looked up again: a caller that shared the read finds the list the first one built.
      const hint = listCache.lookup(userId) ?? cached;
      const tools =
        hint?.value.fingerprint === fingerprint && sameShape(hint.value.catalog, listing)
          ? hint.value.tools
          : listing.tools.map((listed) =>
              describeTool(listed, rows.get(listed.tool.definition.name)),
            );
      read.store({ fingerprint, catalog: shapeOf(listing), tools });
      return tools;
    },

    async updateToolSettings(userId, toolName, update) {
      const listed = await requireTool(userId, toolName);
      const { tool } = listed;
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
      return describeTool(listed, row);
    },

    async getEnabledToolRuntime(userId) {
      const saved = await repository.listForUser(userId);
      const listing = await catalog.list({ userId, saved, ...(await accessOf(userId)) });
      return toEnabledToolRuntime(
        listing.tools.map((listed) => ({ ...listed, offered: listed.state === 'enabled' })),
      );
    },

    loadSavedToolSettings: (userId) => repository.listForUser(userId),
  };
}
