/**
 * The composition root's HTTP half: `createApp(deps)` builds the Elysia app from
 * what it is given and chooses nothing itself. `index.ts` builds the production
 * dependencies; tests build their own.
 */
import { HealthResponse } from '@mango/shared';
import { Elysia } from 'elysia';
import type { AuthService } from './auth/create-auth';
import type { AppDatabase } from './db/database';
import { type Logger, silentLogger } from './logger';
import { getRequestContext } from './request-context';
import { authenticateRequest } from './routes/authentication';
import { handleError } from './routes/error-handler';
import type { ToolRegistry } from './services/tools/registry';
import { API_VERSION } from './version';

export interface AppDependencies {
  /** The open, migrated database. */
  database: AppDatabase;
  /** Accounts: answers /api/auth/* and tells who a request is signed in as. */
  auth: AuthService;
  /** The tools offered to users; defaults to the registry the built-ins register into. */
  toolRegistry?: ToolRegistry;
  logger?: Logger;
  /** Milliseconds since the epoch; injectable so tests control time. */
  now?: () => number;
}

export function createApp(deps: AppDependencies) {
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? silentLogger;
  const startedAt = now();
  // `normalize: false`: a body with unknown fields is refused, not silently trimmed.
  return (
    new Elysia({ prefix: '/api', normalize: false })
      .onRequest(({ request, set }) => {
        set.headers['x-request-id'] = getRequestContext(request).requestId;
      })
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
  );
}

export type App = ReturnType<typeof createApp>;
