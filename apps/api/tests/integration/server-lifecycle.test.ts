import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createApp } from '../../src/app';
import { createAuth } from '../../src/auth/create-auth';
import { createLogger } from '../../src/logger';
import { startServer } from '../../src/server';
import { createMemoryRunningTurns } from '../../src/services/chat/running-turns';
import { createModelCatalog } from '../../src/services/providers/model-catalog';
import { createProviderRegistry } from '../../src/services/providers/provider-registry';
import {
  createBuiltinToolSource,
  createToolCatalog,
  defaultToolRegistry,
} from '../../src/services/tools';
import { cookieFrom, TEST_AUTH_SECRET, TEST_PASSWORD } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-databases';
import { waitUntil } from '../support/wait-until';

let testDatabase: TestDatabase;
beforeAll(async () => {
  testDatabase = await createTestDatabase('sqlite');
});
afterAll(() => testDatabase.dispose());

function buildServer(lines: string[]) {
  const { database } = testDatabase;
  const events: string[] = [];
  // The slow request finishes when the test says so, not after a guessed delay.
  let finishSlowRequest = () => {};
  const slowRequestMayFinish = new Promise<void>((resolve) => {
    finishSlowRequest = resolve;
  });
  const logger = createLogger({ write: (line) => lines.push(line) });
  const auth = createAuth({ database, secret: TEST_AUTH_SECRET, allowSignup: true });
  const app = createApp({
    database,
    auth,
    logger,
    tools: createToolCatalog([createBuiltinToolSource(defaultToolRegistry)]),
    providers: createProviderRegistry({}),
    models: createModelCatalog({ providers: createProviderRegistry({}) }),
    runningTurns: createMemoryRunningTurns(),
  }).get('/slow', async () => {
    events.push('slow request started');
    await slowRequestMayFinish;
    events.push('slow request finished');
    return { done: true };
  });
  const server = startServer({
    app,
    database: {
      ...database,
      close: async () => {
        events.push('database closed');
      },
    },
    logger,
    host: '127.0.0.1',
    port: 0,
  });
  return { server, events, finishSlowRequest };
}

async function signUp(url: string): Promise<{ cookie: string; id: string }> {
  const response = await fetch(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `lifecycle-${crypto.randomUUID()}@example.test`,
      password: TEST_PASSWORD,
      name: 'Lifecycle',
    }),
  });
  const body = (await response.json()) as { user: { id: string } };
  return { cookie: cookieFrom(response), id: body.user.id };
}

test('stopping lets a request in flight finish, refuses new ones, then closes the database', async () => {
  const { server, events, finishSlowRequest } = buildServer([]);
  const { cookie } = await signUp(server.url);
  const inFlight = fetch(`${server.url}/api/slow`, { headers: { cookie } });
  expect(await waitUntil(() => events.includes('slow request started'))).toBe(true);
  const stopped = server.stop();
  const refused = () =>
    fetch(`${server.url}/api/health`).then(
      () => false,
      () => true,
    );
  expect(await waitUntil(refused)).toBe(true);
  expect(events).toEqual(['slow request started']);
  finishSlowRequest();
  const response = await inFlight;
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ done: true });
  await stopped;
  expect(events).toEqual(['slow request started', 'slow request finished', 'database closed']);
});

test('every request is logged as one JSON line with method, path, status, duration, request id and user', async () => {
  const lines: string[] = [];
  const { server } = buildServer(lines);
  let userId = '';
  try {
    const { cookie, id } = await signUp(server.url);
    userId = id;
    await fetch(`${server.url}/api/settings/tools`, {
      headers: { cookie, 'x-request-id': 'trace-123' },
    });
    await fetch(`${server.url}/api/settings/tools`);
  } finally {
    await server.stop();
  }
  const requests = lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === 'request');
  expect(requests).toHaveLength(3);
  expect(requests[1]).toEqual({
    time: expect.any(String),
    level: 'info',
    msg: 'request',
    requestId: 'trace-123',
    method: 'GET',
    path: '/api/settings/tools',
    status: 200,
    durationMs: expect.any(Number),
    userId,
  });
  expect(requests[2]).toMatchObject({ path: '/api/settings/tools', status: 401 });
  expect(requests[2]?.userId).toBeUndefined();
});
