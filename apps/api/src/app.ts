/**
 * The composition root's HTTP half: `createApp(deps)` builds the Elysia app from
 * what it is given and chooses nothing itself. `index.ts` builds the production
 * dependencies; tests build their own.
 */
import { HealthResponse } from '@mango/shared';
import { type AnyElysia, Elysia } from 'elysia';
import { AUTH_BASE_PATH, type AuthService } from './auth/create-auth';
import type { AppDatabase } from './db/database';
import { type Logger, silentLogger } from './logger';
import { getRequestContext } from './request-context';
import { createAdminRoutes } from './routes/admin';
import { authenticateRequest } from './routes/authentication';
import { createChatRoutes } from './routes/chat-routes';
import { handleError } from './routes/error-handler';
import { createImageRoutes } from './routes/image-routes';
import { createMcpRoutes } from './routes/mcp-routes';
import { createModelRoutes } from './routes/model-routes';
import { createOpenApiRoutes } from './routes/openapi-routes';
import { checkRequestOrigin } from './routes/origin-check';
import { parseRequestBody, withCheckedJsonBody } from './routes/request-body';
import { createToolSettingsRoutes } from './routes/tool-settings-routes';
import { createGrantedRoots, type GrantedRootsService } from './services/admin/granted-roots';
import { createUserAdminService } from './services/admin/user-admin-service';
import {
  type ChatCapabilitiesService,
  createChatCapabilities,
} from './services/chat/chat-capabilities';
import { createChatRepository } from './services/chat/chat-repository';
import { type ChatService, createChatService } from './services/chat/chat-service';
import type { ChatToolsDeps } from './services/chat/chat-tools';
import { type ChatTurnService, createChatTurnService } from './services/chat/chat-turn-service';
import type { RunningTurns } from './services/chat/running-turns';
import { createTurnEventLog } from './services/chat/turn-events/turn-event-log';
import { createTurnEventStore } from './services/chat/turn-events/turn-event-store';
import { type TurnLimits, withTurnRateLimit } from './services/chat/turn-rate-limit';
import { createDatabaseImageStore } from './services/images/database-image-store';
import type { ImageStore } from './services/images/image-store';
import {
  createMcpConnectionManager,
  createMcpFetch,
  createMcpServerRepository,
  createMcpServerService,
  createMcpToolSources,
  DEFAULT_MCP_SETTINGS,
  type McpConnectionManager,
  type McpServerService,
  type McpSettings,
} from './services/mcp';
import type { ModelCatalog } from './services/providers/model-catalog';
import type { ProviderRegistry } from './services/providers/provider-registry';
import { createDatabaseFreshnessLedger } from './services/tools/freshness/database-freshness-ledger';
import { type ToolCatalog, withUserSources } from './services/tools/sources/tool-catalog';
import { createToolSettingsRepository } from './services/tools/tool-settings-repository';
import {
  createToolSettingsService,
  type ToolSettingsService,
} from './services/tools/tool-settings-service';
import { API_VERSION } from './version';

export interface AppDependencies {
  /** The open, migrated database. */
  database: AppDatabase;
  /** Accounts: answers /api/auth/* and tells who a request is signed in as. */
  auth: AuthService;
  /** Every tool source, merged: the built-ins (and MCP servers). */
  tools: ToolCatalog;
  /** The model providers offered (from the environment in production). */
  providers: ProviderRegistry;
  /** The models offered: each provider's own list (cached) and the configured ones. */
  models: ModelCatalog;
  /** The chats' running turns (in the database in production, so every instance sees them). */
  runningTurns: RunningTurns;
  /**
   * Origins besides the server's own whose pages may change things with a
   * session cookie (MANGO_PUBLIC_URL, MANGO_TRUSTED_ORIGINS; docs/security.md#cross-site-requests).
   */
  trustedOrigins?: readonly string[];
  /** Per-user limits on turn starts and running turns; none when absent. */
  turnLimits?: TurnLimits;
  /** Paths no tool may touch whatever the settings say (the server's data directory). */
  protectedPaths?: readonly string[];
  /** Time limits of a turn (docs/chat-turns.md#time-limits); the defaults without. */
  turnTimeLimits?: { turnTimeoutMs?: number; providerIdleTimeoutMs?: number };
  /** Where images are kept (default: the database, so every instance serves them). */
  images?: ImageStore;
  /** MCP servers' rules and budgets (docs/mcp.md); the defaults without. */
  mcp?: Partial<McpSettings>;
  logger?: Logger;
  /** Milliseconds since the epoch; injectable so tests control time. */
  now?: () => number;
}

/** The services `createApp` builds from its dependencies (exposed for other routes and tests). */
export interface AppServices {
  /** Settings → MCP. */
  mcp: McpServerService;
  /** This instance's MCP connections; `closeAll()` at shutdown. */
  mcpConnections: McpConnectionManager;
  toolSettings: ToolSettingsService;
  chats: ChatService;
  /** Turns; `turns.shutdown()` ends this instance's running turns (at shutdown). */
  turns: ChatTurnService;
  capabilities: ChatCapabilitiesService;
  images: ImageStore;
  /** Where each user's system tools may reach (docs/security.md#system-tools-are-granted). */
  roots: GrantedRootsService;
}

export function createAppServices(deps: AppDependencies): AppServices {
  const now = deps.now ?? Date.now;
  const { providers, runningTurns, database } = deps;
  const logger = deps.logger ?? silentLogger;
  const images = deps.images ?? createDatabaseImageStore(database, now);
  const mcpSettings = { ...DEFAULT_MCP_SETTINGS, ...deps.mcp };
  const mcpRepository = createMcpServerRepository(database, now);
  // The service keeps what a connection lists; the manager is made before it, so it asks late.
  const listings: { save?: McpServerService['saveListing'] } = {};
  const mcpConnections = createMcpConnectionManager({
    fetch: createMcpFetch({ allowPrivateUrls: mcpSettings.allowPrivateUrls }),
    connectTimeoutMs: mcpSettings.connectTimeoutMs,
    idleTimeoutMs: mcpSettings.idleTimeoutMs,
    saveListing: (record, tools) =>
      void listings
        .save?.(record, tools)
        .catch((error) =>
          logger.warn('keeping an MCP tool listing failed', { serverId: record.id, error }),
        ),
    changes: database.changes,
    logger,
    now,
  });
  const mcp = createMcpServerService({
    repository: mcpRepository,
    manager: mcpConnections,
    toolSources: createMcpToolSources({
      manager: mcpConnections,
      images,
      defaultCallTimeoutSeconds: mcpSettings.callTimeoutSeconds,
      stdioAllow: mcpSettings.stdioAllow,
    }),
    policy: { stdioAllow: mcpSettings.stdioAllow, allowPrivateUrls: mcpSettings.allowPrivateUrls },
    changes: database.changes,
    logger,
    now,
  });
  listings.save = mcp.saveListing;
  const catalog = withUserSources(deps.tools, mcp.userSources, mcp.knownUserSources);
  const roots = createGrantedRoots({
    database,
    now,
    ...(deps.protectedPaths ? { protectedPaths: deps.protectedPaths } : {}),
  });
  const hostAccess = (userId: string) => roots.hostAccess(userId);
  const toolSettings = createToolSettingsService({
    catalog,
    repository: createToolSettingsRepository(database, now),
    changes: database.changes,
    hostAccess,
    knownHostAccess: (userId) => roots.knownHostAccess(userId),
  });
  const chatRepository = createChatRepository(database, now);
  const tools: ChatToolsDeps = {
    catalog,
    // A turn waits this long for each source: an MCP server that misses it is skipped and reported.
    listingBudgetMs: mcpSettings.connectBudgetMs,
    loadSavedToolSettings: (userId) => toolSettings.loadSavedToolSettings(userId),
    createFreshnessLedger: (chatId) => createDatabaseFreshnessLedger(database, chatId, { now }),
    ...(deps.protectedPaths ? { protectedPaths: deps.protectedPaths } : {}),
    hostAccess,
  };
  const turnStore = createTurnEventStore(database, now);
  const turnEvents = createTurnEventLog({
    store: turnStore,
    changes: database.changes,
    isRunning: (chatId) => runningTurns.isRunning(chatId),
    logger,
  });
  return {
    mcp,
    mcpConnections,
    toolSettings,
    chats: createChatService({
      chats: chatRepository,
      models: deps.models,
      running: runningTurns,
      images,
      hostAccess,
      ...(deps.protectedPaths ? { protectedPaths: deps.protectedPaths } : {}),
    }),
    turns: createChatTurnService({
      chats: chatRepository,
      providers,
      models: deps.models,
      // The user's turn limits are checked with each claim (docs/security.md#rate-limits).
      running: deps.turnLimits
        ? withTurnRateLimit(runningTurns, database, deps.turnLimits, { now })
        : runningTurns,
      turnStore,
      turnEvents,
      tools,
      ...deps.turnTimeLimits,
      logger,
    }),
    capabilities: createChatCapabilities({ chats: chatRepository, providers, tools }),
    images,
    roots,
  };
}

export function createApp(deps: AppDependencies, services: AppServices = createAppServices(deps)) {
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? silentLogger;
  const startedAt = now();
  const trustedOrigins = deps.trustedOrigins ?? [];
  const chatRoutes = createChatRoutes({
    providers: deps.providers,
    chats: services.chats,
    turns: services.turns,
    capabilities: services.capabilities,
  });
  // The OpenAPI route describes the finished app, which exists once this function returns.
  const finished: { app?: AnyElysia } = {};
  // `normalize: false`: a body with unknown fields is refused, not silently trimmed.
  const app = new Elysia({ prefix: '/api', normalize: false })
    .onError(({ code, error, request }) => {
      const { requestId } = getRequestContext(request);
      const response = handleError(logger, { code, error, request, requestId });
      response.headers.set('x-request-id', requestId);
      return response;
    })
    .onRequest(({ request }) => {
      checkRequestOrigin(request, trustedOrigins);
      return authenticateRequest(deps.auth, request);
    })
    // Every JSON body is read within its route's limits before any route sees it; better-auth
    // reads its own (checked in its route), so its body is left unread here.
    .onParse({ as: 'global' }, ({ request, path }) =>
      path.startsWith(`${AUTH_BASE_PATH}/`) ? null : parseRequestBody(request),
    )
    .get(
      '/health',
      (): HealthResponse => ({
        status: 'ok',
        version: API_VERSION,
        database: deps.database.kind,
        uptimeSeconds: Math.round((now() - startedAt) / 1000),
      }),
      { response: HealthResponse, detail: { summary: 'Liveness and the database in use' } },
    )
    // better-auth reads the raw request itself, after its body passed the same checks.
    .all(
      '/auth/*',
      async ({ request }) =>
        deps.auth.handle(
          await withCheckedJsonBody(request),
          getRequestContext(request).peerAddress,
        ),
      {
        detail: { hide: true },
      },
    )
    .use(createToolSettingsRoutes(services.toolSettings))
    .use(chatRoutes)
    .use(createMcpRoutes(services.mcp))
    .use(createImageRoutes(services.images))
    .use(createModelRoutes(deps.models))
    .use(
      createAdminRoutes({
        users: createUserAdminService({
          database: deps.database,
          auth: deps.auth,
          now,
          onRoleChanged: (userId) => services.roots.forget(userId),
        }),
        invites: deps.auth.invites,
        roots: services.roots,
      }),
    )
    .use(
      createOpenApiRoutes({
        getApp: () => {
          if (!finished.app) throw new Error('The app is not built yet.');
          return finished.app;
        },
        externalPaths: () => deps.auth.openApiPaths(),
      }),
    );
  finished.app = app;
  return app;
}

export type App = ReturnType<typeof createApp>;
