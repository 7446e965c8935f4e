/**
 * Turns that outlive their connection (docs/chat-turns.md#the-turn-lifecycle),
 * over real HTTP on both databases: a client that goes away and comes back
 * sees every event exactly once (by id); two clients follow one turn; a
 * second instance on its own connection to the same database re-attaches; an
 * ended turn replays; the ids in `turn_started` are the stored messages' ids.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Chat, ChatMessage, TurnStreamEvent } from '@mango/shared';
import { type AppDatabase, openDatabase } from '../../../src/db/database';
import { createDatabaseRunningTurns } from '../../../src/services/chat/running-turns';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { callTool, type FakeTurn, say, useFakeProviderServer } from '../../support/fake-provider';
import { createScenarioRegistry } from '../../support/scenario-tools';
import {
  eventOf,
  type IdentifiedEvent,
  readIdentifiedEvents,
  readSseFrames,
} from '../../support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const fake = useFakeProviderServer();

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** A slow answer: a tool round, then text in small pieces with a pause between frames. */
const slowTurn = (): FakeTurn[] => [
  { ...callTool('echo', { text: 'one' }), frameDelayMs: 20 },
  {
    content: [{ type: 'text', text: 'A slow answer that arrives in many small pieces.' }],
    fragmentSize: 3,
    frameDelayMs: 20,
  },
];

const seqOf = (id: string) => Number(id.slice(id.lastIndexOf(':') + 1));

function turnIdOf(events: readonly IdentifiedEvent[]): string {
  const first = events[0]?.event;
  if (first?.type !== 'turn_started') throw new Error('the stream did not start with turn_started');
  return first.turnId;
}

describeEachDatabase('re-attaching to a turn', (_kind, current) => {
  let app: TestApp;
  let other: TestApp;
  let otherDatabase: AppDatabase;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    const providers = createProviderRegistry({
      openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
    });
    const toolRegistry = createScenarioRegistry().registry;
    app = startTestApp(current().database, { providers, toolRegistry });
    // A second instance with its own connection (and, on PostgreSQL, its own change feed).
    otherDatabase = openDatabase(current().config);
    other = startTestApp(otherDatabase, {
      providers,
      toolRegistry,
      runningTurns: createDatabaseRunningTurns(otherDatabase),
    });
    alice = await app.signUp();
    bob = await app.signUp();
  });
  afterAll(async () => {
    await app.stop();
    await other.stop();
    await otherDatabase.close();
  });

  async function newChat(): Promise<Chat> {
    const response = await app.fetch('/api/chats', {
      ...json({ model: 'openai:gpt-5' }),
      user: alice,
    });
    return (await response.json()) as Chat;
  }

  async function messagesOf(chatId: string): Promise<ChatMessage[]> {
    const response = await app.fetch(`/api/chats/${chatId}/messages`, { user: alice });
    return ((await response.json()) as { messages: ChatMessage[] }).messages;
  }

  const startTurn = (chatId: string, init: RequestInit = {}) =>
    app.fetch(`/api/chats/${chatId}/turns`, { ...json({ content: 'go' }), ...init, user: alice });

  const follow = (instance: TestApp, chatId: string, turn: string, lastEventId?: string) =>
    instance.fetch(`/api/chats/${chatId}/turns/${turn}/events`, {
      user: alice,
      ...(lastEventId ? { headers: { 'last-event-id': lastEventId } } : {}),
    });

  function expectWholeTurn(events: IdentifiedEvent[], turnId: string) {
    expect(events.map(({ id }) => id)).toEqual(events.map((_, index) => `${turnId}:${index + 1}`));
    expect(events[0]?.event.type).toBe('turn_started');
    expect(events.at(-1)?.event).toMatchObject({ type: 'done', status: 'completed' });
  }

  test('a client that disconnects and re-attaches with Last-Event-ID sees every event exactly once; the turn is stored whole', async () => {
    const chat = await newChat();
    fake.enqueue('openai', ...slowTurn());
    const client = new AbortController();
    const frames = readSseFrames(await startTurn(chat.id, { signal: client.signal }));
    const before: IdentifiedEvent[] = [];
    while (before.length < 4) {
      const frame = await frames.next();
      if (frame.done) throw new Error('the stream ended early');
      before.push(eventOf(frame.value));
    }
    client.abort();
    await frames.return(undefined).catch(() => {});
    const started = before[0]?.event as Extract<TurnStreamEvent, { type: 'turn_started' }>;
    expect(started).toMatchObject({ type: 'turn_started', chatId: chat.id, model: 'openai:gpt-5' });

    const after = await readIdentifiedEvents(
      await follow(app, chat.id, started.turnId, before.at(-1)?.id),
    );
    const all = [...before, ...after];
    expectWholeTurn(all, started.turnId);
    // The same as a replay from the start, after the end.
    const replay = await readIdentifiedEvents(await follow(app, chat.id, 'current'));
    expect(replay).toEqual(all);

    const stored = await messagesOf(chat.id);
    expect(stored.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(stored[0]?.id).toBe(started.userMessageId);
    expect(stored[1]?.id).toBe(started.assistantMessageId);
    const text = all
      .flatMap(({ event }) => (event.type === 'text_delta' ? [event.delta] : []))
      .join('');
    expect(stored[3]?.parts).toEqual([{ type: 'text', text }]);
    // Each assistant message keeps its own model call's usage; done sums them.
    const usages = all.flatMap(({ event }) => (event.type === 'usage' ? [event] : []));
    expect(usages).toHaveLength(2);
    expect(stored[1]?.usage?.totalTokens).toBe(usages[0]?.totalTokens);
    expect(stored[3]?.usage?.totalTokens).toBe(usages[1]?.totalTokens);
    expect(all.at(-1)?.event).toMatchObject({
      usage: { totalTokens: (usages[0]?.totalTokens ?? 0) + (usages[1]?.totalTokens ?? 0) },
    });
  });

  test('a turn nobody follows runs to its end and is stored', async () => {
    const chat = await newChat();
    fake.enqueue('openai', ...slowTurn());
    const client = new AbortController();
    const frames = readSseFrames(await startTurn(chat.id, { signal: client.signal }));
    const first = eventOf((await frames.next()).value as never);
    client.abort();
    await frames.return(undefined).catch(() => {});
    const replay = await readIdentifiedEvents(await follow(app, chat.id, 'current'));
    expectWholeTurn(replay, (first.event as { turnId: string }).turnId);
    expect((await messagesOf(chat.id)).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(fake.requests('openai').length).toBeGreaterThanOrEqual(2);
  });

  test('two clients, and a second instance on its own connection, see the same events as the starter', async () => {
    const chat = await newChat();
    fake.enqueue('openai', ...slowTurn());
    const starter = readIdentifiedEvents(await startTurn(chat.id));
    const second = readIdentifiedEvents(await follow(app, chat.id, 'current'));
    const elsewhere = readIdentifiedEvents(await follow(other, chat.id, 'current'));
    const [a, b, c] = await Promise.all([starter, second, elsewhere]);
    const turnId = turnIdOf(a);
    expectWholeTurn(a, turnId);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  test('a follower on the other instance resumes after an id mid-turn and cancels it there', async () => {
    const chat = await newChat();
    fake.enqueue('openai', {
      content: [{ type: 'text', text: 'This answer never finishes.' }],
      fragmentSize: 4,
      fault: { type: 'hang', afterFrames: 9 },
    });
    const frames = readSseFrames(await startTurn(chat.id));
    const seen: IdentifiedEvent[] = [];
    while (seen.length < 3) seen.push(eventOf((await frames.next()).value as never));
    const turnId = turnIdOf(seen);
    const resumed = readIdentifiedEvents(await follow(other, chat.id, turnId, seen[1]?.id));
    const cancel = await other.fetch(`/api/chats/${chat.id}/turns/cancel`, {
      method: 'POST',
      user: alice,
    });
    expect(await cancel.json()).toEqual({ cancelled: true });
    for await (const frame of frames) seen.push(eventOf(frame));
    const tail = await resumed;
    expect(tail).toEqual(seen.slice(2));
    expect(tail.at(-1)?.event).toMatchObject({ type: 'done', status: 'cancelled' });
  });

  test('refusals: no turn yet, an unknown or earlier turn, a malformed Last-Event-ID, another user', async () => {
    const chat = await newChat();
    const none = await follow(app, chat.id, 'current');
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('not_found');
    fake.enqueue('openai', say('First.'));
    const first = await readIdentifiedEvents(await startTurn(chat.id));
    const firstId = turnIdOf(first);
    fake.enqueue('openai', say('Second.'));
    const secondTurn = await readIdentifiedEvents(await startTurn(chat.id));
    // Only the latest turn is kept.
    expect((await follow(app, chat.id, firstId)).status).toBe(404);
    expect((await follow(app, chat.id, 'turn_nope')).status).toBe(404);
    const bad = await follow(app, chat.id, 'current', 'not-an-id');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    // An id of the earlier turn replays the current one from its start.
    const fromOther = await readIdentifiedEvents(
      await follow(app, chat.id, 'current', `${firstId}:3`),
    );
    expect(fromOther).toEqual(secondTurn);
    // After the last event there is nothing left but the stream's end.
    const last = secondTurn.at(-1)?.id as string;
    expect(seqOf(last)).toBe(secondTurn.length);
    expect(await readIdentifiedEvents(await follow(app, chat.id, 'current', last))).toEqual([]);
    const stranger = await app.fetch(`/api/chats/${chat.id}/turns/current/events`, { user: bob });
    expect(stranger.status).toBe(404);
    expect((await app.fetch(`/api/chats/${chat.id}/turns/current/events`)).status).toBe(401);
  });
});

describe('the OpenAPI document', () => {
  test('describes the event stream of both turn routes', async () => {
    const { createTestDatabase } = await import('../../support/test-databases');
    const testDatabase = await createTestDatabase('sqlite');
    const app = startTestApp(testDatabase.database);
    try {
      const user = await app.signUp();
      const document = (await (await app.fetch('/api/openapi', { user })).json()) as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      for (const [path, method] of [
        ['/api/chats/{id}/turns', 'post'],
        ['/api/chats/{id}/turns/{turnId}/events', 'get'],
      ] as const) {
        const operation = document.paths[path]?.[method];
        const ok = operation?.responses['200'] as {
          content: Record<
            string,
            { schema: { anyOf: { properties: { type: { const: string } } }[] } }
          >;
        };
        const types = ok.content['text/event-stream']?.schema.anyOf.map(
          (event) => event.properties.type.const,
        );
        expect(types).toContain('turn_started');
        expect(types).toContain('done');
        expect(operation?.responses['404']).toBeDefined();
      }
    } finally {
      await app.stop();
      await testDatabase.dispose();
    }
  });
});
