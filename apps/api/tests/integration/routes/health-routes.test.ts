import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createApp } from '../../../src/app';
import { silentLogger } from '../../../src/logger';
import { type RunningServer, startServer } from '../../../src/server';
import { API_VERSION } from '../../../src/version';
import { describeEachDatabase } from '../../support/test-databases';

describeEachDatabase('health and the error format', (kind, current) => {
  let server: RunningServer;
  beforeAll(() => {
    const { database } = current();
    server = startServer({
      app: createApp({ database }),
      // The test database is closed by its own block; this server must not close it twice.
      database: { ...database, close: async () => {} },
      logger: silentLogger,
      host: '127.0.0.1',
      port: 0,
    });
  });
  afterAll(() => server.stop());

  test('GET /api/health answers without a user and names the database', async () => {
    const response = await fetch(`${server.url}/api/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ok',
      version: API_VERSION,
      database: kind,
      uptimeSeconds: expect.any(Number),
    });
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  test('an unknown route answers 404 in the error format', async () => {
    const response = await fetch(`${server.url}/api/no-such-route`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: 'not_found', message: expect.stringContaining('/api/openapi') },
    });
  });
});
