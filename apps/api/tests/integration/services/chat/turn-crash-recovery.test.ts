/**
 * A server killed mid-turn (SIGKILL: no cancel, no end-of-turn handling) keeps
 * every step the turn completed, and the chat goes on. The turn runs in a
 * child process; after the kill, another instance on the same database
 * (in-process) reloads the messages, recovers the dead instance's stale claim
 * and runs the next turn, whose request must replay a consistent history.
 */
import { afterAll, afterEach, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Chat, ChatMessage, ToolCallPart, TurnStreamEvent } from '@mango/shared';
import { createDatabaseRunningTurns } from '../../../../src/services/chat/running-turns';
import { INTERRUPTED_CALL_MESSAGE } from '../../../../src/services/chat/unanswered-tool-calls';
import { createProviderRegistry } from '../../../../src/services/providers/provider-registry';
import {
  callTool,
  type FakeTurn,
  say,
  useFakeProviderServer,
} from '../../../support/fake-provider';
import { type ServerProcess, startServerProcess } from '../../../support/server-process';
import { readSseFrames, readTurnEvents, summedUsage } from '../../../support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../../../support/test-app';
import { describeEachDatabase } from '../../../support/test-databases';
import { waitUntil } from '../../../support/wait-until';

// biome-ignore lint/suspicious/noExplicitAny: recorded provider request bodies are arbitrary JSON.
type Json = any;

const fake = useFakeProviderServer();

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describeEachDatabase('a turn whose server is killed', (_kind, current) => {
  let app: TestApp;
  let alice: TestUser;
  let child: ServerProcess | undefined;
  beforeAll(async () => {
    const { database } = current();
    app = startTestApp(database, {
      providers: createProviderRegistry({
        openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
        anthropic: { baseURL: fake.baseUrl('anthropic'), apiKey: 'k', maxRetries: 0 },
      }),
      // This instance's clock runs a minute ahead, so the dead instance's claim is stale at once.
      runningTurns: createDatabaseRunningTurns(database, { now: () => Date.now() + 60_000 }),
    });
    alice = await app.signUp();
  });
  afterEach(async () => {
    child?.process.kill('SIGKILL');
    await child?.process.exited;
    child = undefined;
  });
  afterAll(() => app.stop());

  /** Starts a turn on a fresh child server; reads its events until `until` says stop, then SIGKILLs it. */
  const startChild = (instanceId?: string) =>
    startServerProcess(
      {
        MANGO_TEST_DATABASE: JSON.stringify(current().config),
        MANGO_TEST_OPENAI_URL: fake.baseUrl('openai'),
        ...(instanceId ? { MANGO_INSTANCE_ID: instanceId } : {}),
      },
      { entryPoint: join(import.meta.dir, '../../../support/chat-server-entry.ts') },
    );

  async function turnKilledWhen(
    chatId: string,
    until: (events: TurnStreamEvent[]) => boolean | Promise<boolean>,
    instanceId?: string,
  ): Promise<TurnStreamEvent[]> {
    child = await startChild(instanceId);
    const response = await fetch(`${child.url}/api/chats/${chatId}/turns`, {
      ...json({ content: 'go' }),
      headers: { 'content-type': 'application/json', cookie: alice.cookie },
    });
    expect(response.status).toBe(200);
    const frames = readSseFrames(response);
    const events: TurnStreamEvent[] = [];
    while (!(await until(events))) {
      const frame = await frames.next();
      if (frame.done) throw new Error(`The turn ended before the kill: ${JSON.stringify(events)}`);
      events.push(JSON.parse(frame.value.data));
    }
    // Killed while the client is still connected (closing the stream would not stop the turn).
    child.process.kill('SIGKILL');
    await child.process.exited;
    await frames.return(undefined).catch(() => {});
    return events;
  }

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

  async function claimsOf(chatId: string) {
    return current()
      .database.db.selectFrom('chat_turns')
      .select('turn_id')
      .where('chat_id', '=', chatId)
      .execute();
  }

  const hangingStep: FakeTurn = {
    content: [{ type: 'text', text: 'This answer never finishes.' }],
    fragmentSize: 4,
    fault: { type: 'hang', afterFrames: 5 },
  };

  test('killed while the model streams its second step: the first step survives and the next turn replays it', async () => {
    const chat = await newChat();
    fake.enqueue('openai', callTool('echo', { text: 'one' }), hangingStep);
    const events = await turnKilledWhen(chat.id, (seen) => {
      const result = seen.findIndex((event) => event.type === 'tool_result');
      return result >= 0 && seen.slice(result).some((event) => event.type === 'text_delta');
    });
    const completed = events.find((event) => event.type === 'tool_call_completed') as Extract<
      TurnStreamEvent,
      { type: 'tool_call_completed' }
    >;
    const result = events.find((event) => event.type === 'tool_result') as Extract<
      TurnStreamEvent,
      { type: 'tool_result' }
    >;

    const stored = await messagesOf(chat.id);
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(stored[1]?.parts).toEqual([
      {
        type: 'tool_call',
        toolCallId: completed.toolCallId,
        name: 'echo',
        arguments: '{"text":"one"}',
        status: 'succeeded',
        durationMs: result.durationMs,
      },
    ]);
    expect(stored[2]?.parts).toEqual([
      {
        type: 'tool_result',
        toolCallId: completed.toolCallId,
        name: 'echo',
        content: '{"echo":"one"}',
        isError: false,
      },
    ]);
    // The dead instance's claim is still there; the next turn recovers it.
    expect(await claimsOf(chat.id)).toHaveLength(1);

    fake.enqueue('openai', say('Back again.'));
    const next = await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json({ content: 'again' }),
        user: alice,
      }),
    );
    expect(next.at(-1)).toEqual({
      type: 'done',
      status: 'completed',
      iterations: 1,
      usage: summedUsage(next),
    });
    const input: Json[] = fake.requests('openai').at(-1)?.body.input;
    expect(input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'go' }] },
      {
        type: 'function_call',
        call_id: completed.toolCallId,
        name: 'echo',
        arguments: '{"text":"one"}',
      },
      { type: 'function_call_output', call_id: completed.toolCallId, output: '{"echo":"one"}' },
      { role: 'user', content: [{ type: 'input_text', text: 'again' }] },
    ]);
    expect((await messagesOf(chat.id)).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
    expect(await waitUntil(async () => (await claimsOf(chat.id)).length === 0)).toBe(true);
  }, 60_000);

  test('killed while a tool runs: the call is stored, then answered as aborted before the next turn, which another provider accepts', async () => {
    const chat = await newChat();
    fake.enqueue('openai', callTool('echo', { text: 'one' }), callTool('slow', { text: 'two' }));
    await turnKilledWhen(chat.id, async (seen) => {
      if (!seen.some((event) => event.type === 'tool_call_completed' && event.name === 'slow'))
        return false;
      // The model's message is stored before its tool runs.
      return waitUntil(async () => (await messagesOf(chat.id)).length === 4);
    });

    const stored = await messagesOf(chat.id);
    expect(stored.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    const slowCall = stored[3]?.parts[0] as ToolCallPart;
    // Stored as running; with no turn alive in the chat, a reload shows it cut off.
    expect(slowCall).toMatchObject({
      type: 'tool_call',
      name: 'slow',
      status: 'aborted',
      errorCode: 'aborted',
    });
    const [row] = await current()
      .database.db.selectFrom('messages')
      .select('parts')
      .where('id', '=', stored[3]?.id as string)
      .execute();
    // SQLite hands JSON columns back as text, PostgreSQL as values.
    const storedParts = typeof row?.parts === 'string' ? JSON.parse(row.parts) : row?.parts;
    expect(storedParts).toEqual([{ ...slowCall, status: 'running', errorCode: undefined }]);

    fake.enqueue('anthropic', say('Sorry, that was interrupted.'));
    const next = await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json({ content: 'again', model: 'anthropic:claude-sonnet-4-5' }),
        user: alice,
      }),
    );
    expect(next.at(-1)).toEqual({
      type: 'done',
      status: 'completed',
      iterations: 1,
      usage: summedUsage(next),
    });

    const repaired = await messagesOf(chat.id);
    expect(repaired.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
    expect(repaired[3]?.parts).toEqual([slowCall]);
    expect(repaired[4]?.parts).toEqual([
      {
        type: 'tool_result',
        toolCallId: slowCall.toolCallId,
        name: 'slow',
        content: JSON.stringify({
          error: { code: 'aborted', message: INTERRUPTED_CALL_MESSAGE, retryable: false },
        }),
        isError: true,
      },
    ]);
    // Every stored call has its result.
    const callIds = repaired.flatMap((message) =>
      message.parts.flatMap((part) => (part.type === 'tool_call' ? [part.toolCallId] : [])),
    );
    const resultIds = repaired.flatMap((message) =>
      message.parts.flatMap((part) => (part.type === 'tool_result' ? [part.toolCallId] : [])),
    );
    expect(resultIds).toEqual(callIds);

    // Anthropic's request answers each tool_use in the very next user message.
    const messages: Json[] = fake.requests('anthropic').at(-1)?.body.messages;
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    for (const index of [1, 3]) {
      const uses = messages[index].content.filter((block: Json) => block.type === 'tool_use');
      const answers = messages[index + 1].content.filter(
        (block: Json) => block.type === 'tool_result',
      );
      expect(answers.map((block: Json) => block.tool_use_id)).toEqual(
        uses.map((block: Json) => block.id),
      );
    }
    const interrupted = messages[4].content.find((block: Json) => block.type === 'tool_result');
    expect(interrupted.is_error).toBe(true);
    expect(JSON.stringify(interrupted.content)).toContain('The server stopped while this call');
    expect(messages[4].content.at(-1)).toEqual({ type: 'text', text: 'again' });
  }, 60_000);

  test('restarted with the same instance id, the server frees the chat it held at once: no 409, calls shown aborted, followers told', async () => {
    const chat = await newChat();
    const instanceId = `crash-test-${process.pid}-${current().database.kind}`;
    fake.enqueue('openai', callTool('slow', { text: 'never ends' }));
    await turnKilledWhen(
      chat.id,
      async (seen) =>
        seen.some((event) => event.type === 'tool_call_completed') &&
        // The model's message is stored before its tool runs.
        waitUntil(async () => (await messagesOf(chat.id)).length === 2),
      instanceId,
    );
    expect(await claimsOf(chat.id)).toHaveLength(1);
    child = await startChild(instanceId);
    const url = child.url;
    const headers = { 'content-type': 'application/json', cookie: alice.cookie };
    expect(await claimsOf(chat.id)).toHaveLength(0);
    // A follower of the dead turn is told it was interrupted instead of waiting for ever.
    const followed = await readTurnEvents(
      await fetch(`${url}/api/chats/${chat.id}/turns/current/events`, { headers }),
    );
    expect(followed.at(-2)).toMatchObject({ type: 'error', code: 'aborted' });
    expect(followed.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    const shown = (await (
      await fetch(`${url}/api/chats/${chat.id}/messages`, { headers })
    ).json()) as { messages: ChatMessage[] };
    expect(shown.messages[1]?.parts[0]).toMatchObject({ name: 'slow', status: 'aborted' });
    fake.enqueue('openai', say('Back at once.'));
    const next = await fetch(`${url}/api/chats/${chat.id}/turns`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ content: 'again' }),
    });
    expect(next.status).toBe(200);
    expect((await readTurnEvents(next)).at(-1)).toMatchObject({
      type: 'done',
      status: 'completed',
    });
  }, 60_000);
});
