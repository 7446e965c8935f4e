/**
 * A turn's own limits over HTTP (docs/chat-turns.md#time-limits): a provider
 * that goes silent ends the turn with a coded, retryable `provider_timeout`
 * rather than a silent drop; a turn that outruns its whole budget ends with
 * `timeout`, stored; and a tool call of 20 s — twice Bun's default idle
 * timeout — completes and streams its result on both databases.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Chat, ChatMessage, TurnStreamEvent } from '@mango/shared';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { createToolRegistry } from '../../../src/services/tools/registry';
import { callTool, say, useFakeProviderServer } from '../../support/fake-provider';
import { createScenarioRegistry } from '../../support/scenario-tools';
import { readTurnEvents } from '../../support/sse-client';
import { createEchoTool } from '../../support/static-tool-source';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import {
  createTestDatabase,
  type DATABASE_KINDS,
  describeEachDatabase,
} from '../../support/test-databases';
import { waitUntil } from '../../support/wait-until';

const fake = useFakeProviderServer();

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const providers = () =>
  createProviderRegistry({
    openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
  });

async function runTurn(
  app: TestApp,
  user: TestUser,
): Promise<{ chat: Chat; events: TurnStreamEvent[] }> {
  const chat = (await (
    await app.fetch('/api/chats', { ...json({ model: 'openai:gpt-5' }), user })
  ).json()) as Chat;
  const response = await app.fetch(`/api/chats/${chat.id}/turns`, {
    ...json({ content: 'go' }),
    user,
  });
  expect(response.status).toBe(200);
  return { chat, events: await readTurnEvents(response) };
}

describeEachDatabase('a turn’s time limits', (_kind, current) => {
  let app: TestApp;
  let alice: TestUser;
  beforeAll(async () => {
    app = startTestApp(current().database, {
      providers: providers(),
      toolRegistry: createScenarioRegistry().registry,
      turnTimeLimits: { providerIdleTimeoutMs: 1000, turnTimeoutMs: 2500 },
    });
    alice = await app.signUp();
  });
  afterAll(() => app.stop());

  async function messagesOf(chatId: string): Promise<ChatMessage[]> {
    const response = await app.fetch(`/api/chats/${chatId}/messages`, { user: alice });
    return ((await response.json()) as { messages: ChatMessage[] }).messages;
  }

  test('a provider silent for longer than its idle budget ends the turn with a retryable provider_timeout', async () => {
    fake.enqueue('openai', {
      content: [{ type: 'text', text: 'I will stop talking now' }],
      fragmentSize: 4,
      fault: { type: 'hang', afterFrames: 7 },
    });
    const { chat, events } = await runTurn(app, alice);
    const error = events.find((event) => event.type === 'error');
    expect(error).toMatchObject({ code: 'provider_timeout', retryable: true });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error', iterations: 1 });
    // Ended by the idle budget (the whole-turn budget would say `timeout`).
    expect(events.filter((event) => event.type === 'error')).toHaveLength(1);
    // The provider saw its request given up.
    expect(await waitUntil(() => fake.openConnections() === 0)).toBe(true);
    const stored = await messagesOf(chat.id);
    const streamed = events.flatMap((event) => (event.type === 'text_delta' ? [event.delta] : []));
    expect(streamed.length).toBeGreaterThan(0);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(stored[1]?.parts).toEqual([{ type: 'text', text: streamed.join('') }]);
  });

  test('a turn that outruns its whole budget is stopped with timeout; its calls are answered and stored', async () => {
    fake.enqueue('openai', callTool('slow', { text: 'forever' }));
    const { chat, events } = await runTurn(app, alice);
    const result = events.find((event) => event.type === 'tool_result');
    expect(result).toMatchObject({ name: 'slow', isError: true, errorCode: 'aborted' });
    expect(events.at(-2)).toMatchObject({ type: 'error', code: 'timeout', retryable: true });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    const stored = await messagesOf(chat.id);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(stored[1]?.parts[0]).toMatchObject({ type: 'tool_call', status: 'aborted' });
    // The chat takes its next turn at once.
    fake.enqueue('openai', say('Quick this time.'));
    const next = await runTurn(app, alice);
    expect(next.events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });
});

test('a 20 s tool call over HTTP completes and streams its result (SQLite and PostgreSQL at once)', async () => {
  const runOn = async (kind: (typeof DATABASE_KINDS)[number]) => {
    const testDatabase = await createTestDatabase(kind);
    const registry = createToolRegistry();
    registry.register({
      ...createEchoTool('twenty_seconds'),
      execute: async () => {
        await Bun.sleep(20_000);
        return { finished: true };
      },
    });
    const app = startTestApp(testDatabase.database, {
      providers: providers(),
      toolRegistry: registry,
    });
    try {
      const user = await app.signUp();
      return (await runTurn(app, user)).events;
    } finally {
      await app.stop();
      await testDatabase.dispose();
    }
  };
  // The fake provider answers requests in order: both turns call the tool, then both answer.
  fake.enqueue(
    'openai',
    callTool('twenty_seconds', {}),
    callTool('twenty_seconds', {}),
    say('All done.'),
    say('All done.'),
  );
  const sqlite = runOn('sqlite');
  await Bun.sleep(500);
  const postgres = runOn('postgres');
  for (const events of await Promise.all([sqlite, postgres])) {
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      name: 'twenty_seconds',
      content: '{"finished":true}',
      isError: false,
    });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', iterations: 2 });
  }
}, 60_000);
