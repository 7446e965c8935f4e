/**
 * The log lines a turn leaves over real HTTP (docs/operations.md#logs): one
 * per failed provider request, with the provider, model, status, code and the
 * request id, and the turn's own summary line.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Chat } from '@mango/shared';
import { createLogger } from '../../../src/logger';
import { PROVIDER_FAILURE_LOG_MESSAGE } from '../../../src/services/providers/provider-failure-log';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { say, useFakeProviderServer } from '../../support/fake-provider';
import { readTurnEvents } from '../../support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { createTestDatabase, type TestDatabase } from '../../support/test-databases';

const fake = useFakeProviderServer();
let database: TestDatabase;
let app: TestApp;
let alice: TestUser;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  database = await createTestDatabase('sqlite');
  app = startTestApp(database.database, {
    providers: createProviderRegistry({
      openai: { baseURL: fake.baseUrl('openai'), apiKey: 'test-key', maxRetries: 0 },
    }),
    logger: createLogger({ write: (line) => lines.push(JSON.parse(line)) }),
  });
  alice = await app.signUp();
});
afterAll(async () => {
  await app.stop();
  await database.dispose();
});

async function turn(chatId: string, requestId: string) {
  return readTurnEvents(
    await app.fetch(`/api/chats/${chatId}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ content: 'hello' }),
      user: alice,
    }),
  );
}

test('a model call the provider refuses leaves one provider-failure line and the turn’s line', async () => {
  fake.serveModels('openai', { models: [{ id: 'gpt-5' }] });
  const chat = (await (
    await app.fetch('/api/chats', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai:gpt-5' }),
      user: alice,
    })
  ).json()) as Chat;
  fake.enqueue('openai', { fault: { type: 'http_error', status: 429, message: 'slow down' } });
  const events = await turn(chat.id, 'turn-logs-1');
  expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });

  const failures = lines.filter((line) => line.msg === PROVIDER_FAILURE_LOG_MESSAGE);
  expect(failures).toEqual([
    expect.objectContaining({
      level: 'warn',
      provider: 'openai',
      operation: 'model_call',
      model: 'gpt-5',
      status: 429,
      errorCode: 'rate_limited',
      chatId: chat.id,
      requestId: 'turn-logs-1',
    }),
  ]);
  expect(String(failures[0]?.message)).toContain('slow down');
  expect(lines.find((line) => line.msg === 'chat turn' && line.chatId === chat.id)).toMatchObject({
    model: 'openai:gpt-5',
    status: 'error',
    iterations: 1,
    errorCode: 'rate_limited',
    providerStatus: 429,
    toolCalls: { succeeded: 0, failed: 0, aborted: 0 },
    requestId: 'turn-logs-1',
  });

  // A turn that succeeds leaves no failure line.
  lines.length = 0;
  fake.enqueue('openai', say('Hello.'));
  expect((await turn(chat.id, 'turn-logs-2')).at(-1)).toMatchObject({ status: 'completed' });
  expect(lines.filter((line) => line.msg === PROVIDER_FAILURE_LOG_MESSAGE)).toEqual([]);
  expect(lines.find((line) => line.msg === 'chat turn')).toMatchObject({
    status: 'completed',
    requestId: 'turn-logs-2',
  });
});
