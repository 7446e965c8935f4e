import { afterAll, beforeAll, expect, test } from 'bun:test';
import { HealthResponse } from '@mango/shared';
import { Value } from '@sinclair/typebox/value';
import { startTestApp, type TestApp } from '../support/test-app';
import { describeEachDatabase } from '../support/test-databases';

describeEachDatabase('GET /api/health over real HTTP', (kind, current) => {
  let clock = 1_000_000;
  let server: TestApp;
  beforeAll(() => {
    server = startTestApp(current().database, { now: () => clock });
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
    const user = await server.signUp();
    const response = await server.fetch('/api/nope', { user });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        code: 'not_found',
        message: expect.stringContaining('/api/openapi'),
        retryable: false,
      },
    });
  });
});
