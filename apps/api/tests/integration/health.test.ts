import { afterAll, beforeAll, expect, test } from 'bun:test';
import { HealthResponse } from '@mango/shared';
import { Value } from '@sinclair/typebox/value';
import { createApp } from '../../src/app';
import { silentLogger } from '../../src/logger';
import { type RunningServer, startServer } from '../../src/server';
import { describeEachDatabase } from '../support/test-databases';

describeEachDatabase('GET /api/health over real HTTP', (kind, current) => {
  let clock = 1_000_000;
  let server: RunningServer;
  beforeAll(() => {
    const { database } = current();
    server = startServer({
      app: createApp({ database, now: () => clock }),
      // The test database is closed by its own block, not by this server.
      database: { ...database, close: async () => {} },
      logger: silentLogger,
      host: '127.0.0.1',
      port: 0,
    });
  });
  afterAll(() => server.stop());

  test('answers without a user: status, version, database kind and uptime, matching the shared contract', async () => {
    clock += 5_000;
    const response = await fetch(`${server.url}/api/health`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(Value.Check(HealthResponse, body)).toBe(true);
    expect(body).toMatchObject({ status: 'ok', database: kind, uptimeSeconds: 5 });
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  test('an unknown route is a 404 in the error format', async () => {
    const response = await fetch(`${server.url}/api/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: 'not_found', message: expect.stringContaining('/api/openapi') },
    });
  });
});
