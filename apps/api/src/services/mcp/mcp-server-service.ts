/**
 * Settings → MCP (docs/mcp.md#settings--mcp): a user's servers, checked
 * before they are stored (`mcp-server-input.ts`) and answered with their
 * secrets masked and this instance's connection state. Every change closes
 * the server's connections on every instance, so the next use runs the new
 * configuration.
 */

import type {
  CreateMcpServerBody,
  ImportMcpServersBody,
  ImportMcpServersResponse,
  McpImportOutcome,
  McpServer,
  McpServerTestResult,
  UpdateMcpServerBody,
} from '@mango/shared';
import type { ChangeFeed } from '../../db/change-feed';
import { createFeedBackedCache } from '../../db/feed-backed-cache';
import { ApiError, isAppError } from '../../errors';
import type { Logger } from '../../logger';
import type { ToolSource } from '../tools/sources/tool-source';
import { McpConnectionError } from './mcp-connection';
import {
  MCP_SERVERS_CHANNEL,
  type McpConnectionManager,
  serverChangeKey,
} from './mcp-connection-manager';
import { parseImportEntry } from './mcp-import';
import {
  createMcpServerInputChecks,
  MASKED_VALUE,
  type McpActor,
  type McpPolicy,
} from './mcp-server-input';
import type { McpListedTool, McpServerRecord } from './mcp-server-record';
import { McpServerClashError, type McpServerRepository } from './mcp-server-repository';
import { exposedToolNames } from './mcp-tool-names';
import { type McpToolSources, stdioStartRefusal } from './mcp-tool-source';

export interface McpServerServiceDeps {
  repository: McpServerRepository;
  manager: McpConnectionManager;
  toolSources: McpToolSources;
  policy: McpPolicy;
  changes?: ChangeFeed;
  logger?: Logger;
  now?: () => number;
}

/** The change channel for saved tool listings (caches forget; connections stay). */
export const MCP_LISTINGS_CHANNEL = 'mcp_tool_listings';

function mask(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(values).map((name) => [name, MASKED_VALUE]));
}

export function serverNotFound(id: string): ApiError {
  return new ApiError(
    'not_found',
    `There is no MCP server with id "${id}". GET /api/mcp/servers lists yours.`,
  );
}

export function createMcpServerService(deps: McpServerServiceDeps) {
  const { repository, manager, policy } = deps;
  const now = deps.now ?? Date.now;
  const checks = createMcpServerInputChecks(policy);
  const visibleCache = createFeedBackedCache<McpServerRecord[]>({
    ...(deps.changes ? { feed: deps.changes } : {}),
    channel: MCP_SERVERS_CHANNEL,
    invalidates: 'all',
    maxEntries: 1_000,
    ttlMs: 60_000,
  });
  deps.changes?.subscribe(MCP_LISTINGS_CHANNEL, {
    onChange: () => visibleCache.forgetAll(),
    onReset: () => visibleCache.forgetAll(),
  });

  async function visibleServers(userId: string): Promise<McpServerRecord[]> {
    const known = visibleCache.fresh(userId);
    if (known) return known;
    const read = visibleCache.startRead(userId);
    const records = await repository.listVisible(userId);
    read.store(records);
    return records;
  }

  // The same cached records give the same sources array: listings are made per request.
  const sourcesByRecords = new WeakMap<
    readonly McpServerRecord[],
    { userId: string; sources: readonly ToolSource[] }
  >();
  function sourcesOf(userId: string, records: readonly McpServerRecord[]): readonly ToolSource[] {
    const known = sourcesByRecords.get(records);
    if (known?.userId === userId) return known.sources;
    const sources = records.map((record) => deps.toolSources.sourceFor(userId, record));
    sourcesByRecords.set(records, { userId, sources });
    return sources;
  }

  /** After a write: `record` is the configuration now current, or undefined once deleted. */
  async function changed(serverId: string, record: McpServerRecord | undefined): Promise<void> {
    visibleCache.forgetAll();
    const key = serverChangeKey(serverId, record ? record.updatedAt : null);
    await manager.closeServer(serverId, key);
    await deps.changes?.notify(MCP_SERVERS_CHANNEL, key).catch(() => {
      // The change stands; other instances notice it when they next use the server (its version).
    });
  }

  function describe(actor: McpActor, record: McpServerRecord): McpServer {
    const connection = manager.peek(actor.id, record);
    const listing: readonly McpListedTool[] | null = connection?.tools ?? record.toolListing;
    const names = listing
      ? exposedToolNames(
          record.slug,
          listing.map((tool) => tool.name),
        )
      : new Map<string, string>();
    const lastError = connection?.lastError ?? null;
    const stderrTail = connection?.stderr();
    return {
      id: record.id,
      name: record.name,
      slug: record.slug,
      type: record.type,
      enabled: record.enabled,
      command: record.command,
      args: record.args,
      env: mask(record.env),
      cwd: record.cwd,
      url: record.url,
      headers: mask(record.headers),
      shared: record.shared,
      editable: record.ownerId === actor.id,
      callTimeoutSeconds: record.callTimeoutSeconds,
      status: manager.statusOf(actor.id, record),
      lastError: lastError
        ? { ...lastError, ...(stderrTail && !lastError.stderrTail ? { stderrTail } : {}) }
        : null,
      toolCount: listing ? listing.length : null,
      tools: [...names.values()],
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  }

  function clash(error: McpServerClashError, value: string): ApiError {
    return new ApiError(
      'conflict',
      error.field === 'slug'
        ? `You already have an MCP server with the slug "${value}"; choose another slug (tool names are mcp__<slug>__<tool>).`
        : `You already have an MCP server named "${value}"; choose another name.`,
      { details: { field: error.field } },
    );
  }

  async function create(actor: McpActor, body: CreateMcpServerBody): Promise<McpServer> {
    const server = await checks.checkNew(actor, body);
    try {
      const record = await repository.create(actor.id, server);
      await changed(record.id, record);
      return describe(actor, record);
    } catch (error) {
      if (error instanceof McpServerClashError)
        throw clash(error, error.field === 'slug' ? server.slug : server.name);
      throw error;
    }
  }

  async function owned(actor: McpActor, id: string): Promise<McpServerRecord> {
    const record = await repository.getVisible(actor.id, id);
    if (!record) throw serverNotFound(id);
    if (record.ownerId !== actor.id)
      throw new ApiError(
        'forbidden',
        `The MCP server "${record.name}" is shared by an admin; it is read-only to you. Switch its tools off in Settings → Tools instead.`,
      );
    return record;
  }

  return {
    visibleServers,

    /** `userSources` when the user's servers are known in memory (fresh), without reading; else undefined. */
    knownUserSources(userId: string): readonly ToolSource[] | undefined {
      const records = visibleCache.fresh(userId);
      return records && sourcesOf(userId, records);
    },

    /** The tool sources of a user's servers, for the tool catalog. */
    async userSources(userId: string): Promise<readonly ToolSource[]> {
      return sourcesOf(userId, await visibleServers(userId));
    },

    async list(actor: McpActor): Promise<McpServer[]> {
      const records = await repository.listVisible(actor.id);
      return records.map((record) => describe(actor, record));
    },

    async get(actor: McpActor, id: string): Promise<McpServer> {
      const record = await repository.getVisible(actor.id, id);
      if (!record) throw serverNotFound(id);
      return describe(actor, record);
    },

    create,

    async update(actor: McpActor, id: string, body: UpdateMcpServerBody): Promise<McpServer> {
      const record = await owned(actor, id);
      const changes = await checks.changesFor(actor, record, body);
      try {
        const updated = await repository.update(actor.id, id, changes);
        if (!updated) throw serverNotFound(id);
        await changed(id, updated);
        return describe(actor, updated);
      } catch (error) {
        if (error instanceof McpServerClashError) throw clash(error, changes.name ?? record.name);
        throw error;
      }
    },

    async delete(actor: McpActor, id: string): Promise<void> {
      await owned(actor, id);
      if (!(await repository.delete(actor.id, id))) throw serverNotFound(id);
      await changed(id, undefined);
    },

    /** Connects now, on the user's one connection (what a turn then uses). */
    async test(actor: McpActor, id: string): Promise<McpServerTestResult> {
      const record = await repository.getVisible(actor.id, id);
      if (!record) throw serverNotFound(id);
      if (!record.enabled)
        throw new ApiError(
          'conflict',
          `The MCP server "${record.name}" is disabled, so it is never started or reached; enable it first (PUT /api/mcp/servers/${id} with {"enabled": true}).`,
        );
      const refusal = stdioStartRefusal(record, policy.stdioAllow);
      if (refusal)
        throw new ApiError(
          'forbidden',
          `The MCP server "${record.name}" cannot be started: ${refusal}`,
        );
      const connection = manager.acquire(actor.id, record);
      const started = now();
      try {
        const tools = await connection.ready();
        return {
          ok: true,
          serverName: connection.serverInfo?.name ?? record.name,
          serverVersion: connection.serverInfo?.version ?? 'unknown',
          toolCount: tools.length,
          durationMs: now() - started,
        };
      } catch (error) {
        const detail =
          error instanceof McpConnectionError
            ? error.detail
            : {
                code: 'connection_failed',
                message: error instanceof Error ? error.message : String(error),
                at: new Date(now()).toISOString(),
              };
        const stderrTail = connection.stderr();
        return {
          ok: false,
          error: { ...detail, ...(stderrTail && !detail.stderrTail ? { stderrTail } : {}) },
          durationMs: now() - started,
        };
      }
    },

    async import(actor: McpActor, body: ImportMcpServersBody): Promise<ImportMcpServersResponse> {
      const results: McpImportOutcome[] = [];
      for (const [name, entry] of Object.entries(body.mcpServers)) {
        try {
          const server = await create(actor, parseImportEntry(name, entry));
          results.push({ name, created: true, server });
        } catch (error) {
          results.push({
            name,
            created: false,
            error: isAppError(error)
              ? { code: error.code, message: error.message }
              : { code: 'internal_error', message: 'The entry could not be stored.' },
          });
          if (!isAppError(error)) deps.logger?.error('importing an MCP server failed', { error });
        }
      }
      return { results };
    },

    /** Keeps a connection's listing for Settings → Tools on every instance. */
    async saveListing(record: McpServerRecord, tools: McpListedTool[]): Promise<void> {
      if (await repository.saveToolListing(record.id, record.updatedAt, tools)) {
        visibleCache.forgetAll();
        await deps.changes?.notify(MCP_LISTINGS_CHANNEL, record.id).catch(() => {});
      }
    },
  };
}

export type McpServerService = ReturnType<typeof createMcpServerService>;
