/**
 * better-auth's logging goes through the server's JSON logger
 * (docs/operations.md#logs): an auth route that refuses or fails leaves a JSON
 * line, and nothing reaches the console in better-auth's own coloured format.
 */
import { afterAll, afterEach, beforeAll, expect, spyOn, test } from 'bun:test';
import { createLogger } from '../../../src/logger';
import { startTestApp, type TestApp } from '../../support/test-app';
import { createTestDatabase, type TestDatabase } from '../../support/test-databases';

let database: TestDatabase;
let app: TestApp;
const lines: Record<string, unknown>[] = [];
const consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
  spyOn(console, method),
);

beforeAll(async () => {
  database = await createTestDatabase('sqlite');
  app = startTestApp(database.database, {
    logger: createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line)) }),
  });
});
afterEach(() => {
  lines.length = 0;
  for (const spy of consoleSpies) spy.mockClear();
});
afterAll(async () => {
  for (const spy of consoleSpies) spy.mockRestore();
  await app.stop();
  await database.dispose();
});

/** What better-auth wrote to the console itself. */
const consoleOutput = () =>
  consoleSpies.flatMap((spy) => spy.mock.calls.map((call) => call.map(String).join(' ')));

test('a request better-auth refuses before its route runs is a JSON line, not a coloured console line', async () => {
  const response = await app.fetch('/api/auth/sign-in/email', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: 'not json',
  });
  expect(response.status).toBe(400);
  expect(lines).toContainEqual(
    expect.objectContaining({
      level: 'debug',
      msg: 'auth: Invalid JSON in request body',
      status: 400,
    }),
  );
  expect(consoleOutput()).toEqual([]);
});

test("better-auth's own warnings arrive as JSON lines", async () => {
  // A password below the minimum length is one better-auth reports itself, as a warning.
  const response = await app.fetch('/api/auth/sign-up/email', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'new@example.test', password: 'short', name: 'New' }),
  });
  expect(response.status).toBe(400);
  expect(lines).toContainEqual(
    expect.objectContaining({ level: 'warn', msg: 'auth: Password is too short' }),
  );
  expect(consoleOutput()).toEqual([]);
});
