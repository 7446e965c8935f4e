/**
 * Every MCP connection of this instance (docs/mcp.md#connections): one per
 * (user, server), made on first use — a turn's listing, the inspector, a
 * test — and the same object for all of them, so ten concurrent first uses
 * start one process and inspecting warms the next turn. A connection made for
 * an older configuration of a server is closed and replaced at its next use;
 * a change signalled on the change feed (from any instance) closes the
 * server's connections at once. Idle connections close after a while;
 * shutdown closes them all.
 */
import type { McpServerStatus } from '@mango/shared';
import type { ChangeFeed } from '../../db/change-feed';
import type { Logger } from '../../logger';
import { McpConnection } from './mcp-connection';
import type { McpFetch } from './mcp-fetch';
import {
  configurationVersion,
  type McpListedTool,
  type McpServerRecord,
} from './mcp-server-record';

/**
 * The change channel for MCP servers. The key is `<server id>@<updatedAt>` of
 * the configuration now current (`@deleted` when it is gone): connections made
 * for any other configuration close, and a connection already made for the
 * new one (the signal can arrive after it) stays.
 */
export const MCP_SERVERS_CHANNEL = 'mcp_servers';

/** The change signal's key for a server's current configuration, or its deletion. */
export function serverChangeKey(serverId: string, updatedAt: string | null): string {
  return `${serverId}@${updatedAt ?? 'deleted'}`;
}

export interface McpConnectionManagerOptions {
  fetch: McpFetch;
  connectTimeoutMs: number;
  /** How long an unused connection stays open. */
  idleTimeoutMs: number;
  /** Keeps a listing a connection made (for Settings → Tools, every instance). */
  saveListing?: (record: McpServerRecord, tools: McpListedTool[]) => void;
  changes?: ChangeFeed;
  logger?: Logger;
  now?: () => number;
}

export interface McpConnectionManager {
  /** The user's connection to the server (made, not yet connected, when there is none). */
  acquire(userId: string, record: McpServerRecord): McpConnection;
  /** The user's connection when one exists for the server's current configuration. */
  peek(userId: string, record: McpServerRecord): McpConnection | undefined;
  /** The status Settings → MCP shows for this user and server. */
  statusOf(userId: string, record: McpServerRecord): McpServerStatus;
  /**
   * Closes the connections to the server (it changed, was disabled or
   * deleted), except those made for `keepVersion`, the configuration now current.
   */
  closeServer(serverId: string, keepVersion?: string): Promise<void>;
  /** Every open connection, for tests and benches. */
  connections(): readonly McpConnection[];
  closeAll(): Promise<void>;
}

export function createMcpConnectionManager(
  options: McpConnectionManagerOptions,
): McpConnectionManager {
  const now = options.now ?? Date.now;
  const byKey = new Map<string, McpConnection>();
  const keyOf = (userId: string, serverId: string) => `${userId}\u0000${serverId}`;

  const close = (key: string, connection: McpConnection) => {
    if (byKey.get(key) === connection) byKey.delete(key);
    return connection.close().catch((error) => {
      options.logger?.warn('closing an MCP connection failed', {
        serverId: connection.record.id,
        error,
      });
    });
  };

  const closeServer = async (serverId: string, keepVersion?: string) => {
    const closing: Promise<void>[] = [];
    for (const [key, connection] of byKey)
      if (connection.record.id === serverId && connection.version !== keepVersion)
        closing.push(close(key, connection));
    await Promise.all(closing);
  };

  options.changes?.subscribe(MCP_SERVERS_CHANNEL, {
    onChange: (key) => {
      const at = key.indexOf('@');
      const serverId = at < 0 ? key : key.slice(0, at);
      void closeServer(serverId, at < 0 ? undefined : key);
    },
    // Signals may have been missed; connections are checked against the configuration at use.
    onReset: () => {},
  });

  const sweep = setInterval(
    () => {
      const cutoff = now() - options.idleTimeoutMs;
      for (const [key, connection] of byKey)
        if (connection.lastUsedAt < cutoff && connection.status !== 'connecting')
          void close(key, connection);
    },
    Math.max(1_000, Math.min(options.idleTimeoutMs / 4, 60_000)),
  );
  sweep.unref?.();

  const peek = (userId: string, record: McpServerRecord) => {
    const connection = byKey.get(keyOf(userId, record.id));
    return connection?.version === configurationVersion(record) ? connection : undefined;
  };

  return {
    acquire(userId, record) {
      const key = keyOf(userId, record.id);
      const existing = byKey.get(key);
      if (existing?.version === configurationVersion(record)) return existing;
      if (existing) void close(key, existing);
      const connection = new McpConnection({
        record,
        fetch: options.fetch,
        connectTimeoutMs: options.connectTimeoutMs,
        ...(options.saveListing
          ? { onListing: (tools) => options.saveListing?.(record, tools) }
          : {}),
        now,
      });
      byKey.set(key, connection);
      return connection;
    },
    peek,
    statusOf(userId, record) {
      if (!record.enabled) return 'disabled';
      return peek(userId, record)?.status ?? 'idle';
    },
    closeServer,
    connections: () => [...byKey.values()],
    async closeAll() {
      clearInterval(sweep);
      await Promise.all([...byKey].map(([key, connection]) => close(key, connection)));
    },
  };
}
