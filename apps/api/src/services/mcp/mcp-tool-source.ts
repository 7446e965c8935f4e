/**
 * Each MCP server a user has, as a tool source (docs/mcp.md#mcp-tools-in-turns):
 * a turn's listing and the inspector connect through the manager (the same
 * connection for both) and list the server's tools; Settings → Tools lists
 * the last known tools without starting anything. Tools are named
 * `mcp__<slug>__<tool>` and routed back to their MCP name; a call runs on the
 * user's connection with the turn's cancel reaching the server.
 */
import { createHash } from 'node:crypto';
import type { ImageStore } from '../images/image-store';
import { ToolAbortedError, ToolExecutionError, ToolTimeoutError } from '../tools/errors';
import { createListedSettings } from '../tools/runtime';
import {
  createSourcedToolsReuse,
  type SourcedTool,
  type ToolListingRequest,
  type ToolSource,
  type ToolSourceHealth,
} from '../tools/sources/tool-source';
import type { JsonSchema, RegisteredTool, ToolContext } from '../tools/types';
import { McpConnectionError } from './mcp-connection';
import type { McpConnectionManager } from './mcp-connection-manager';
import { toToolResult } from './mcp-results';
import {
  configurationVersion,
  type McpListedTool,
  type McpServerRecord,
} from './mcp-server-record';
import { exposedToolNames } from './mcp-tool-names';

export interface McpToolSourceDeps {
  manager: McpConnectionManager;
  images?: ImageStore;
  /** A call's timeout when the server sets none (`MANGO_MCP_CALL_TIMEOUT_SECONDS`). */
  defaultCallTimeoutSeconds: number;
  /** Commands a stdio server of a user who is not an admin may run (`MANGO_MCP_STDIO_ALLOW`). */
  stdioAllow: readonly string[];
}

/**
 * Why a stdio server must not be started now: its owner is not an admin and
 * its command is not (any more) allowed. Checked at every start, not only
 * when the server was saved.
 */
export function stdioStartRefusal(
  record: McpServerRecord,
  stdioAllow: readonly string[],
): string | undefined {
  if (record.type !== 'stdio' || record.ownerIsAdmin) return undefined;
  if (record.command !== null && stdioAllow.includes(record.command)) return undefined;
  return `Its stdio command "${record.command}" is not in MANGO_MCP_STDIO_ALLOW and its owner is not an admin, so it is not started.`;
}

export const MCP_DISABLED_REASON =
  'Its MCP server is disabled in Settings → MCP (PUT /api/mcp/servers/:id with {"enabled": true}).';

const MAX_CALL_TIMEOUT_SECONDS = 3600;

/** The source id of a server: `mcp:<server id>`. */
export function mcpSourceId(serverId: string): string {
  return `mcp:${serverId}`;
}

/**
 * Why a tool's input schema cannot be offered to any provider (they all take
 * an object of arguments), or undefined when the mappers can take it.
 */
export function unmappableSchemaReason(tool: McpListedTool): string | undefined {
  const schema = tool.inputSchema as unknown;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema))
    return 'Its input schema is not a JSON Schema object, so no provider can be told its arguments.';
  const type = (schema as { type?: unknown }).type;
  if (type !== undefined && type !== 'object')
    return `Its input schema has type ${JSON.stringify(type)}; providers take only an object of named arguments.`;
  return undefined;
}

function inputSchemaOf(tool: McpListedTool): JsonSchema {
  if (unmappableSchemaReason(tool)) return { type: 'object', properties: {} } as JsonSchema;
  return { ...tool.inputSchema, type: 'object' } as JsonSchema;
}

/** The registered form of an MCP tool; memoised so listings hand out the same objects. */
function registeredToolFor(
  record: McpServerRecord,
  tool: McpListedTool,
  exposedName: string,
  defaultTimeoutSeconds: number,
): RegisteredTool {
  const description = `[${record.name}] ${tool.description ?? tool.title ?? tool.name}`;
  const timeout = Math.min(
    record.callTimeoutSeconds ?? defaultTimeoutSeconds,
    MAX_CALL_TIMEOUT_SECONDS,
  );
  return {
    definition: { name: exposedName, description, parameters: inputSchemaOf(tool) },
    settings: {
      title: tool.title ?? tool.name,
      description,
      category: 'interaction',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: { timeoutSeconds: timeout },
      parameterDescriptors: [
        {
          name: 'timeoutSeconds',
          label: 'Timeout (seconds)',
          description: 'How long one call may take before it is cancelled on the server.',
          type: 'number',
          integer: true,
          defaultValue: timeout,
          min: 1,
          max: MAX_CALL_TIMEOUT_SECONDS,
        },
      ],
    },
    // Calls go through the source (`execute` below), which knows the connection.
    execute: () => Promise.reject(new Error('MCP tools run through their source.')),
  };
}

interface ServerTools {
  tools: readonly RegisteredTool[];
  /** Each tool's reason it cannot be offered (its schema), in the order of `tools`. */
  schemaReasons: readonly (string | undefined)[];
}

function withStderr<T extends { stderrTail?: string }>(error: T, stderr: string | undefined): T {
  return stderr && !error.stderrTail ? { ...error, stderrTail: stderr } : error;
}

export function createMcpToolSources(deps: McpToolSourceDeps) {
  // Same server configuration and listing → the same tool objects (the settings list compares them).
  const memo = new Map<string, ServerTools>();
  const settingsFor = createListedSettings();
  // Each tool object's name on its server: a call is routed by the very object its listing made.
  const mcpNames = new WeakMap<RegisteredTool, string>();
  // One source per user and server record (records are replaced whole when they change), so
  // its unchanged listing is handed out again, the same objects, as the built-ins' is.
  const sources = new WeakMap<McpServerRecord, Map<string, ToolSource>>();
  // The same listing array (a connection's, or a cached record's) is known without hashing it
  // again: listings are made per request, and hashing 13 tools cost about 10 µs. Listing arrays
  // are replaced whole when a server lists again, never changed in place.
  const byListing = new WeakMap<
    readonly McpListedTool[],
    { configuration: string; built: ServerTools }
  >();

  function toolsOf(record: McpServerRecord, listing: readonly McpListedTool[]): ServerTools {
    const configuration = configurationVersion(record);
    const known = byListing.get(listing);
    if (known?.configuration === configuration) return known.built;
    const built = buildToolsOf(record, listing, configuration);
    byListing.set(listing, { configuration, built });
    return built;
  }

  function buildToolsOf(
    record: McpServerRecord,
    listing: readonly McpListedTool[],
    configuration: string,
  ): ServerTools {
    const key = `${configuration}#${createHash('sha256').update(JSON.stringify(listing)).digest('hex')}`;
    const cached = memo.get(key);
    if (cached) return cached;
    const names = exposedToolNames(
      record.slug,
      listing.map((tool) => tool.name),
    );
    const tools = listing.map((tool) => {
      const exposed = names.get(tool.name) ?? tool.name;
      const registered = registeredToolFor(record, tool, exposed, deps.defaultCallTimeoutSeconds);
      mcpNames.set(registered, tool.name);
      return registered;
    });
    // Frozen: every listing of this server hands the same arrays on, and a listing is known by them.
    const built: ServerTools = {
      tools: Object.freeze(tools),
      schemaReasons: Object.freeze(listing.map(unmappableSchemaReason)),
    };
    if (memo.size > 1_000) memo.clear();
    memo.set(key, built);
    return built;
  }

  return {
    /** The tool source of one of the user's servers. */
    sourceFor(userId: string, record: McpServerRecord): ToolSource {
      let byUser = sources.get(record);
      if (!byUser) {
        byUser = new Map();
        sources.set(record, byUser);
      }
      let source = byUser.get(userId);
      if (!source) {
        source = createSource(userId, record);
        byUser.set(userId, source);
      }
      return source;
    },
  };

  function createSource(userId: string, record: McpServerRecord): ToolSource {
    const describe = (
      request: ToolListingRequest,
      listing: readonly McpListedTool[],
      unavailable: string | undefined,
    ): SourcedTool[] => {
      const { tools, schemaReasons } = toolsOf(record, listing);
      return reuse(
        tools,
        settingsFor(tools, request.saved),
        unavailable === undefined ? schemaReasons : tools.map(() => unavailable),
      );
    };
    const source: ToolSource = {
      info: { id: mcpSourceId(record.id), kind: 'server', name: record.name },
      // Synchronous unless it connects: a listing from memory then needs no promise and no
      // time budget in the catalog.
      listTools(request) {
        const refusal = stdioStartRefusal(record, deps.stdioAllow);
        if (!record.enabled || refusal)
          return describe(request, record.toolListing ?? [], refusal ?? MCP_DISABLED_REASON);
        if (!request.connect)
          return describe(
            request,
            deps.manager.peek(userId, record)?.tools ?? record.toolListing ?? [],
            undefined,
          );
        const connection = deps.manager.acquire(userId, record);
        // The listing stops waiting at its budget; the attempt goes on for the next turn.
        return new Promise<McpListedTool[]>((resolve, reject) => {
          connection.ready().then(resolve, reject);
          request.signal.addEventListener('abort', () => reject(request.signal.reason), {
            once: true,
          });
        }).then((listing) => describe(request, listing, undefined));
      },
      async execute(sourced: SourcedTool, args: unknown, context: ToolContext) {
        const name = mcpNames.get(sourced.tool) ?? sourced.tool.definition.name;
        const timeoutSeconds =
          Number(context.parameters.timeoutSeconds) || deps.defaultCallTimeoutSeconds;
        const connection = deps.manager.acquire(userId, record);
        try {
          const result = await connection.call(name, args, {
            signal: context.signal,
            timeoutMs: timeoutSeconds * 1000,
            ...(context.emit
              ? {
                  onProgress: (progress) =>
                    context.emit?.({
                      type: 'mcp_progress',
                      ...(progress.message ? { message: progress.message } : {}),
                      data: {
                        progress: progress.progress,
                        ...(progress.total === undefined ? {} : { total: progress.total }),
                      },
                    }),
                }
              : {}),
          });
          return await toToolResult(result, context, {
            ...(deps.images ? { images: deps.images } : {}),
            serverName: record.name,
          });
        } catch (error) {
          const reason = context.signal.reason;
          if (
            context.signal.aborted &&
            (reason instanceof ToolAbortedError || reason instanceof ToolTimeoutError)
          )
            throw reason;
          if (error instanceof ToolExecutionError) throw error;
          const message =
            error instanceof McpConnectionError || error instanceof Error
              ? error.message
              : String(error);
          throw new ToolExecutionError(
            `The call to ${name} on the MCP server ${record.name} failed: ${message}`,
            {
              details: {
                server: record.slug,
                ...(connection.lastError ? { serverError: connection.lastError.code } : {}),
              },
            },
          );
        }
      },
      health(forUser): ToolSourceHealth {
        const connection = deps.manager.peek(forUser, record);
        const state = deps.manager.statusOf(forUser, record);
        const lastError = connection?.lastError ?? null;
        const toolCount = connection?.tools?.length ?? record.toolListing?.length ?? null;
        return {
          state,
          health: state === 'error' ? 'error' : state === 'disabled' ? 'disabled' : 'ok',
          ...(state === 'error' && lastError ? { reason: lastError.message } : {}),
          ...(state === 'disabled' ? { reason: MCP_DISABLED_REASON } : {}),
          toolCount,
          lastError: lastError ? withStderr(lastError, connection?.stderr()) : null,
        };
      },
    };
    const reuse = createSourcedToolsReuse(source);
    return source;
  }
}

export type McpToolSources = ReturnType<typeof createMcpToolSources>;
