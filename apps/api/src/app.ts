/**
 * The composition root's HTTP half: `createApp(deps)` builds the Elysia app from
 * what it is given and chooses nothing itself. `index.ts` builds the production
 * dependencies; tests build their own.
 */
import { HealthResponse } from '@mango/shared';
import { type AnyElysia, Elysia } from 'elysia';
import type { AuthService } from './auth/create-auth';
import type { AppDatabase } from './db/database';
import { type Logger, silentLogger } from './logger';
import { getRequestContext } from './request-context';
import { authenticateRequest } from './routes/authentication';
import { createChatRoutes } from './routes/chat-routes';
import { handleError } from './routes/error-handler';
import { createImageRoutes } from './routes/image-routes';
import { createModelRoutes } from './routes/model-routes';
import { createOpenApiRoutes } from './routes/openapi-routes';
import { createToolSettingsRoutes } from './routes/tool-settings-routes';
import { createChatCapabilities } from './services/chat/chat-capabilities';
import { createChatRepository } from './services/chat/chat-repository';
import { createChatService } from './services/chat/chat-service';
import type { ChatToolsDeps } from './services/chat/chat-tools';
import { createChatTurnService } from './services/chat/chat-turn-service';
import type { RunningTurns } from './services/chat/running-turns';
import { createDatabaseImageStore } from './services/images/database-image-store';
import type { ImageStore } from './services/images/image-store';
import type { ModelCatalog } from './services/providers/model-catalog';
import type { ProviderRegistry } from './services/providers/provider-registry';
import { createDatabaseFreshnessLedger } from './services/tools/freshness/database-freshness-ledger';
import type { ToolCatalog } from './services/tools/sources/tool-catalog';
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
  /** Paths no tool may touch whatever the settings say (the server's data directory). */
  protectedPaths?: readonly string[];
  /** Where images are kept (default: the database, so every instance serves them). */
  images?: ImageStore;
  logger?: Logger;
  /** Milliseconds since the epoch; injectable so tests control time. */
  now?: () => number;
}

/** The services `createApp` builds from its dependencies (exposed for other routes and tests). */
export interface AppServices {
  toolSettings: ToolSettingsService;
  images: ImageStore;
}

export function createAppServices(deps: AppDependencies): AppServices {
  const now = deps.now ?? Date.now;
  return {
    toolSettings: createToolSettingsService({
      catalog: deps.tools,
      repository: createToolSettingsRepository(deps.database, now),
      changes: deps.database.changes,
    }),
    images: deps.images ?? createDatabaseImageStore(deps.database, now),
  };
}

export function createApp(deps: AppDependencies, services: AppServices = createAppServices(deps)) {
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? silentLogger;
  const startedAt = now();
  const { providers, runningTurns, models } = deps;
  const chatRepository = createChatRepository(deps.database, now);
  const tools: ChatToolsDeps = {
    catalog: deps.tools,
    loadSavedToolSettings: (userId) => services.toolSettings.loadSavedToolSettings(userId),
    createFreshnessLedger: (chatId) =>
      createDatabaseFreshnessLedger(deps.database, chatId, { now }),
    ...(deps.protectedPaths ? { protectedPaths: deps.protectedPaths } : {}),
  };
  const chatRoutes = createChatRoutes({
    providers,
    chats: createChatService({
      chats: chatRepository,
      models,
      running: runningTurns,
      images: services.images,
    }),
    turns: createChatTurnService({
      chats: chatRepository,
      providers,
      models,
      running: runningTurns,
      tools,
      logger,
    }),
    capabilities: createChatCapabilities({ chats: chatRepository, providers, tools }),
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
    .onRequest(({ request }) => authenticateRequest(deps.auth, request))
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
    // better-auth reads the raw request itself; Elysia must not consume the body.
    .all('/auth/*', ({ request }) => deps.auth.handle(request), {
      parse: 'none',
      detail: { hide: true },
    })
    .use(createToolSettingsRoutes(services.toolSettings))
    .use(chatRoutes)
    .use(createImageRoutes(services.images))
    .use(createModelRoutes(models))
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
