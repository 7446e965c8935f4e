import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { HealthResponse } from '@mango/shared';
import { Value } from '@sinclair/typebox/value';
import { createApp } from '../../src/app';

describe('GET /api/health over real HTTP', () => {
  let clock = 1_000_000;
  const app = createApp({ databaseKind: 'sqlite', now: () => clock });
  let base = '';

  beforeAll(() => {
    app.listen({ port: 0, hostname: '127.0.0.1' });
    base = `http://127.0.0.1:${app.server?.port}`;
  });
  afterAll(async () => {
    await app.stop();
  });

  test('answers with status, version, database kind and uptime, matching the shared contract', async () => {
    clock += 5_000;
    const response = await fetch(`${base}/api/health`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(Value.Check(HealthResponse, body)).toBe(true);
    expect(body).toMatchObject({ status: 'ok', database: 'sqlite', uptimeSeconds: 5 });
  });

  test('an unknown route is a 404', async () => {
    const response = await fetch(`${base}/api/nope`);
    expect(response.status).toBe(404);
  });
});
