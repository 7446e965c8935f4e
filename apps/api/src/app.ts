/**
 * The composition root's HTTP half: `createApp(deps)` builds the Elysia app from
 * what it is given and chooses nothing itself. `index.ts` builds the production
 * dependencies; tests build their own.
 */
import { HealthResponse } from '@mango/shared';
import { Elysia } from 'elysia';
import { API_VERSION } from './version';

export interface AppDependencies {
  /** The database kind this instance runs on, reported by the health route. */
  databaseKind: HealthResponse['database'];
  /** Milliseconds since the epoch; injectable so tests control time. */
  now?: () => number;
}

export function createApp(deps: AppDependencies) {
  const now = deps.now ?? Date.now;
  const startedAt = now();
  return new Elysia({ prefix: '/api' }).get(
    '/health',
    (): HealthResponse => ({
      status: 'ok',
      version: API_VERSION,
      database: deps.databaseKind,
      uptimeSeconds: Math.round((now() - startedAt) / 1000),
    }),
    { response: HealthResponse, detail: { summary: 'Liveness and the database in use' } },
  );
}

export type App = ReturnType<typeof createApp>;
