/**
 * A turn stream stays open while a tool runs silently for longer than the
 * server's idle timeout (event streams are exempt from it), while an ordinary
 * request silent as long is cut, which shows the timeout is in force. The
 * figures are scaled down from production's 60 s idle timeout: 1 s, which Bun
 * enforces at its next check (about 4 s), against 5 s of silence.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Chat, TurnStreamEvent } from '@mango/shared';
import { Elysia } from 'elysia';
import { silentLogger } from '../../../src/logger';
import { TURN_STREAM_HEARTBEAT_MS } from '../../../src/routes/turn-event-stream';
import { SERVER_IDLE_TIMEOUT_SECONDS, startServer } from '../../../src/server';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { createToolRegistry } from '../../../src/services/tools/registry';
import { callTool, say, useFakeProviderServer } from '../../support/fake-provider';
import { readTurnEvents } from '../../support/sse-client';
import { createEchoTool } from '../../support/static-tool-source';
import { startTestApp, type TestApp } from '../../support/test-app';
import { createTestDatabase, type TestDatabase } from '../../support/test-databases';

const SILENT_MS = 5_000;

const fake = useFakeProviderServer();
let testDatabase: TestDatabase;
beforeAll(async () => {
  testDatabase = await createTestDatabase('sqlite');
});
afterAll(async () => {
  await testDatabase.dispose();
});

async function quietTurn(): Promise<TurnStreamEvent[]> {
  const registry = createToolRegistry();
  registry.register({
    ...createEchoTool('quiet_work'),
    execute: async () => {
      await Bun.sleep(SILENT_MS);
      return { finished: true };
    },
  });
  const app: TestApp = startTestApp(testDatabase.database, {
    providers: createProviderRegistry({
      openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
    }),
    toolRegistry: registry,
    idleTimeoutSeconds: 1,
  });
  try {
    const user = await app.signUp();
    const chat = (await (
      await app.fetch('/api/chats', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai:gpt-5' }),
        user,
      })
    ).json()) as Chat;
    fake.enqueue('openai', callTool('quiet_work', {}), say('All done.'));
    const response = await app.fetch(`/api/chats/${chat.id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'work quietly' }),
      user,
    });
    return await readTurnEvents(response);
  } finally {
    await app.stop();
  }
}

/** An ordinary route that answers after the same silence, on a server with the same idle timeout. */
async function quietOrdinaryRequest(): Promise<'answered' | 'cut'> {
  const app = new Elysia().get('/slow', async () => {
    await Bun.sleep(SILENT_MS);
    return 'late';
  });
  const server = startServer({
    app,
    database: { ...testDatabase.database, close: async () => {} },
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    idleTimeoutSeconds: 1,
  });
  try {
    const response = await fetch(`${server.url}/slow`);
    await response.text();
    return 'answered';
  } catch {
    return 'cut';
  } finally {
    await server.stop();
  }
}

test('production keeps several keep-alives inside every idle window', () => {
  expect(TURN_STREAM_HEARTBEAT_MS * 3).toBeLessThan(SERVER_IDLE_TIMEOUT_SECONDS * 1000);
});

test('a silent tool call outlasts the idle timeout and the turn ends with done; an ordinary silent request is cut', async () => {
  const [events, ordinary] = await Promise.all([quietTurn(), quietOrdinaryRequest()]);
  expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
    name: 'quiet_work',
    isError: false,
  });
  expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  expect(ordinary).toBe('cut');
}, 30_000);
