/**
 * The chat API end to end over real HTTP: accounts, a real database (SQLite
 * and PostgreSQL), the official OpenAI SDK against the fake provider server,
 * real built-in tools on a temp directory, and the SSE stream read as a client
 * would. What the stream said and what a reload shows must agree.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Chat, ChatListResponse, ChatMessage, TurnStreamEvent } from '@mango/shared';
import '../../../src/services/tools';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { callTool, say, useFakeProviderServer } from '../../support/fake-provider';
import { readSseFrames, readTurnEvents, summedUsage } from '../../support/sse-client';
import { createTempTree, type TempTree } from '../../support/temp-tree';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';
import { waitUntil } from '../../support/wait-until';

const fake = useFakeProviderServer();
let tree: TempTree;
let workspace: string;
beforeAll(async () => {
  tree = createTempTree('mango-chat-routes', { 'notes.txt': 'hello from disk\n' });
  workspace = tree.root;
});
afterAll(async () => {
  tree.remove();
});

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describeEachDatabase('chat routes', (_kind, current) => {
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    const providers = createProviderRegistry({
      openai: { baseURL: fake.baseUrl('openai'), apiKey: 'test-key', maxRetries: 0 },
      anthropic: { baseURL: fake.baseUrl('anthropic'), apiKey: 'test-key', maxRetries: 0 },
    });
    app = startTestApp(current().database, { providers });
    alice = await app.signUp();
    bob = await app.signUp();
  });
  afterAll(() => app.stop());

  async function createChat(user: TestUser, body: Record<string, unknown>): Promise<Chat> {
    const response = await app.fetch('/api/chats', { ...json(body), user });
    expect(response.status).toBe(201);
    return (await response.json()) as Chat;
  }

  async function messagesOf(user: TestUser, chatId: string): Promise<ChatMessage[]> {
    const response = await app.fetch(`/api/chats/${chatId}/messages`, { user });
    expect(response.status).toBe(200);
    return ((await response.json()) as { messages: ChatMessage[] }).messages;
  }

  test('an agent turn reads a file in the bound directory; the stream and the stored messages agree', async () => {
    const chat = await createChat(alice, {
      mode: 'agent',
      workingDirectory: workspace,
      model: 'openai:gpt-5',
    });
    expect(chat).toMatchObject({
      mode: 'agent',
      workingDirectory: workspace,
      restrictToWorkingDirectory: true,
      title: 'New chat',
    });
    fake.enqueue(
      'openai',
      callTool('read_file', { path: 'notes.txt' }),
      say('The file says hello from disk.'),
    );

    const response = await app.fetch(`/api/chats/${chat.id}/turns`, {
      ...json({ content: 'What is in notes.txt?' }),
      user: alice,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readTurnEvents(response);
    expect(events.at(-1)).toEqual({
      type: 'done',
      status: 'completed',
      iterations: 2,
      usage: summedUsage(events),
    });
    expect(summedUsage(events).totalTokens).toBeGreaterThan(0);

    // The agent prompt announces the directory and the restriction.
    const [first, second] = fake.requests('openai');
    expect(first?.body.instructions).toContain(workspace);
    expect(first?.body.instructions).toContain('restricted to this directory');
    const result = events.find(
      (event): event is Extract<TurnStreamEvent, { type: 'tool_result' }> =>
        event.type === 'tool_result',
    );
    expect(result).toMatchObject({ name: 'read_file', isError: false });
    expect(result?.content).toContain('hello from disk');
    expect(JSON.stringify(second?.body)).toContain('hello from disk');

    const messages = await messagesOf(alice, chat.id);
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(messages[0]?.parts).toEqual([{ type: 'text', text: 'What is in notes.txt?' }]);
    const completed = events.find((event) => event.type === 'tool_call_completed');
    expect(messages[1]?.parts).toEqual([
      {
        type: 'tool_call',
        toolCallId: (completed as { toolCallId: string }).toolCallId,
        name: 'read_file',
        arguments: '{"path":"notes.txt"}',
        status: 'succeeded',
        durationMs: result?.durationMs as number,
      },
    ]);
    expect(messages[2]?.parts).toEqual([
      {
        type: 'tool_result',
        toolCallId: result?.toolCallId as string,
        name: 'read_file',
        content: result?.content as string,
        isError: false,
      },
    ]);
    const streamedText = events
      .map((event) => (event.type === 'text_delta' ? event.delta : ''))
      .join('');
    expect(messages[3]?.parts).toEqual([{ type: 'text', text: streamedText }]);
    expect(streamedText).toBe('The file says hello from disk.');

    // The first turn names the chat.
    const reread = (await (
      await app.fetch(`/api/chats/${chat.id}`, { user: alice })
    ).json()) as Chat;
    expect(reread.title).toBe('What is in notes.txt?');
  });

  test('chat mode does not announce a directory', async () => {
    const chat = await createChat(alice, {
      mode: 'chat',
      workingDirectory: workspace,
      model: 'anthropic:claude-sonnet-4-5',
    });
    fake.enqueue('anthropic', say('Hi.'));
    await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, { ...json({ content: 'hi' }), user: alice }),
    );
    expect(JSON.stringify(fake.requests('anthropic')[0]?.body)).not.toContain(workspace);
  });

  test('a turn may switch providers; the history replays', async () => {
    const chat = await createChat(alice, { model: 'openai:gpt-5' });
    fake.enqueue('openai', say('First answer.'));
    await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, { ...json({ content: 'one' }), user: alice }),
    );
    fake.enqueue('anthropic', say('Second answer.'));
    const events = await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json({ content: 'two', model: 'anthropic:claude-sonnet-4-5' }),
        user: alice,
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(fake.requests('anthropic')[0]?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'one' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'First answer.' }] },
      { role: 'user', content: [{ type: 'text', text: 'two' }] },
    ]);
    const reread = (await (
      await app.fetch(`/api/chats/${chat.id}`, { user: alice })
    ).json()) as Chat;
    expect(reread.model).toBe('anthropic:claude-sonnet-4-5');
  });

  test('a turn whose model the provider refuses leaves the chat on its model', async () => {
    const chat = await createChat(alice, { model: 'openai:gpt-5' });
    fake.enqueue('anthropic', {
      fault: { type: 'http_error', status: 404, message: 'model: claude-nonexistent' },
    });
    const events = await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json({ content: 'hi', model: 'anthropic:claude-nonexistent' }),
        user: alice,
      }),
    );
    expect(events.find((event) => event.type === 'error')).toMatchObject({
      code: 'invalid_request',
      retryable: false,
    });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    const reread = (await (
      await app.fetch(`/api/chats/${chat.id}`, { user: alice })
    ).json()) as Chat;
    expect(reread.model).toBe('openai:gpt-5');
    // The next turn, on the chat's model, works.
    fake.enqueue('openai', say('Still here.'));
    const next = await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json({ content: 'again' }),
        user: alice,
      }),
    );
    expect(next.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  test("another user's chat answers 404 on every route", async () => {
    const chat = await createChat(alice, { title: 'private', model: 'openai:gpt-5' });
    const paths: [string, RequestInit][] = [
      [`/api/chats/${chat.id}`, { method: 'GET' }],
      [
        `/api/chats/${chat.id}`,
        {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: '{"title":"mine"}',
        },
      ],
      [`/api/chats/${chat.id}/messages`, { method: 'GET' }],
      [`/api/chats/${chat.id}/turns`, json({ content: 'hi' })],
      [`/api/chats/${chat.id}/turns/cancel`, { method: 'POST' }],
      [`/api/chats/${chat.id}`, { method: 'DELETE' }],
    ];
    for (const [path, init] of paths) {
      const response = await app.fetch(path, { ...init, user: bob });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    const list = (await (await app.fetch('/api/chats', { user: bob })).json()) as { chats: Chat[] };
    expect(list.chats.map((item) => item.id)).not.toContain(chat.id);
    expect((await app.fetch(`/api/chats/${chat.id}`, { user: alice })).status).toBe(200);
    expect(fake.requests()).toEqual([]);
  });

  test('chats can be listed, changed and deleted by their owner', async () => {
    const chat = await createChat(alice, { title: 'to change' });
    const patched = await app.fetch(`/api/chats/${chat.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'changed',
        mode: 'agent',
        workingDirectory: workspace,
        restrictToWorkingDirectory: false,
      }),
      user: alice,
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      title: 'changed',
      mode: 'agent',
      workingDirectory: workspace,
      restrictToWorkingDirectory: false,
    });
    const list = (await (await app.fetch('/api/chats', { user: alice })).json()) as {
      chats: Chat[];
    };
    expect(list.chats[0]?.id).toBe(chat.id);
    expect(
      (await app.fetch(`/api/chats/${chat.id}`, { method: 'DELETE', user: alice })).status,
    ).toBe(204);
    expect((await app.fetch(`/api/chats/${chat.id}`, { user: alice })).status).toBe(404);
  });

  test('the chat list comes a page at a time, newest first, every chat once', async () => {
    const owner = await app.signUp();
    const made: Chat[] = [];
    for (let index = 0; index < 5; index++)
      made.push(await createChat(owner, { title: `Paged ${index}` }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await app.fetch(
        `/api/chats?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { user: owner },
      );
      expect(response.status).toBe(200);
      const page = (await response.json()) as ChatListResponse;
      expect(page.chats.length).toBeLessThanOrEqual(2);
      seen.push(...page.chats.map((chat) => chat.title));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    // Without a limit: the default page holds them all; no cursor is left. The pages, put
    // together, are that list: in its order (newest first; chats made in the same millisecond
    // by id), each chat once.
    const all = (await (await app.fetch('/api/chats', { user: owner })).json()) as ChatListResponse;
    expect(all.nextCursor).toBeUndefined();
    expect(seen).toEqual(all.chats.map((chat) => chat.title));
    expect([...seen].sort()).toEqual(made.map((chat) => chat.title).sort());
    const times = all.chats.map((chat) => Date.parse(chat.updatedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // A cursor the server did not give out, or a limit out of range, is refused.
    const forged = await app.fetch('/api/chats?cursor=not-a-cursor', { user: owner });
    expect(forged.status).toBe(422);
    expect(
      ((await forged.json()) as { error: { details: { field: string } } }).error.details.field,
    ).toBe('cursor');
    expect((await app.fetch('/api/chats?limit=0', { user: owner })).status).toBe(422);
    expect((await app.fetch('/api/chats?limit=500', { user: owner })).status).toBe(422);
    expect((await app.fetch('/api/chats?limit=ten', { user: owner })).status).toBe(400);
  });

  test('bad requests are refused before anything streams', async () => {
    const chat = await createChat(alice, {});
    const expectError = async (response: Response, status: number, code: string) => {
      expect(response.status).toBe(status);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    };
    // No model on the chat or the turn.
    await expectError(
      await app.fetch(`/api/chats/${chat.id}/turns`, { ...json({ content: 'hi' }), user: alice }),
      422,
      'validation_failed',
    );
    // A provider this server does not offer, and a malformed name.
    await expectError(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json({ content: 'hi', model: 'gemini:gemini-2.5-flash' }),
        user: alice,
      }),
      422,
      'validation_failed',
    );
    await expectError(
      await app.fetch('/api/chats', { ...json({ model: 'gpt-5' }), user: alice }),
      422,
      'validation_failed',
    );
    await expectError(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json({ content: 'hi', model: 'openai:gpt-5', maxIterations: 0 }),
        user: alice,
      }),
      400,
      'invalid_request',
    );
    await expectError(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json({ content: 'hi', model: 'openai:gpt-5', extra: 1 }),
        user: alice,
      }),
      400,
      'invalid_request',
    );
    await expectError(
      await app.fetch('/api/chats', {
        ...json({ workingDirectory: join(workspace, 'missing') }),
        user: alice,
      }),
      422,
      'validation_failed',
    );
    await expectError(
      await app.fetch('/api/chats', { ...json({ workingDirectory: 'relative/dir' }), user: alice }),
      422,
      'validation_failed',
    );
    await expectError(await app.fetch('/api/chats', json({})), 401, 'unauthorized');
    expect(fake.requests()).toEqual([]);
  });

  test('closing the connection leaves the turn running; the cancel route stops it; one turn per chat', async () => {
    const chat = await createChat(alice, { model: 'openai:gpt-5' });
    const hanging = () => ({
      content: [{ type: 'text' as const, text: 'Working on it slowly' }],
      fragmentSize: 4,
      fault: { type: 'hang' as const, afterFrames: 6 },
    });

    // 1. The client goes away: the turn goes on (the provider connection stays open).
    fake.enqueue('openai', hanging());
    const client = new AbortController();
    const response = await app.fetch(`/api/chats/${chat.id}/turns`, {
      ...json({ content: 'first' }),
      user: alice,
      signal: client.signal,
    });
    const frames = readSseFrames(response);
    expect((await frames.next()).value?.event).toBe('turn_started');
    expect((await frames.next()).value?.event).toBe('text_delta');
    // A second turn while this one runs is refused.
    const busy = await app.fetch(`/api/chats/${chat.id}/turns`, {
      ...json({ content: 'second' }),
      user: alice,
    });
    expect(busy.status).toBe(409);
    client.abort();
    await frames.return(undefined).catch(() => {});
    await Bun.sleep(300);
    expect(fake.openConnections()).toBe(1);
    expect(
      (await app.fetch(`/api/chats/${chat.id}/turns`, { ...json({ content: 'x' }), user: alice }))
        .status,
    ).toBe(409);

    // 2. The cancel route stops it; it is stored.
    const cancel = await app.fetch(`/api/chats/${chat.id}/turns/cancel`, {
      method: 'POST',
      user: alice,
    });
    expect(await cancel.json()).toEqual({ cancelled: true });
    let stored: ChatMessage[] = [];
    await waitUntil(async () => {
      stored = await messagesOf(alice, chat.id);
      return stored.length === 2;
    });
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(stored[1]?.parts[0]).toMatchObject({ type: 'text' });
    expect(await waitUntil(() => fake.openConnections() === 0)).toBe(true);
    // The stopped turn lets go of the chat once it is stored; only then may the next start.
    expect(
      await waitUntil(async () => {
        const answer = await app.fetch(`/api/chats/${chat.id}/turns/cancel`, {
          method: 'POST',
          user: alice,
        });
        return ((await answer.json()) as { cancelled: boolean }).cancelled === false;
      }),
    ).toBe(true);

    // 3. The cancel route, with the client still reading.
    fake.enqueue('openai', hanging());
    const second = await app.fetch(`/api/chats/${chat.id}/turns`, {
      ...json({ content: 'again' }),
      user: alice,
    });
    expect(second.status).toBe(200);
    const events: TurnStreamEvent[] = [];
    for await (const frame of readSseFrames(second)) {
      const event = JSON.parse(frame.data) as TurnStreamEvent;
      events.push(event);
      if (event.type === 'text_delta' && events.length === 2) {
        const cancelled = await app.fetch(`/api/chats/${chat.id}/turns/cancel`, {
          method: 'POST',
          user: alice,
        });
        expect(await cancelled.json()).toEqual({ cancelled: true });
      }
    }
    expect(events.at(-1)).toEqual({
      type: 'done',
      status: 'cancelled',
      iterations: 1,
      usage: summedUsage(events),
    });
    const idle = await app.fetch(`/api/chats/${chat.id}/turns/cancel`, {
      method: 'POST',
      user: alice,
    });
    expect(await idle.json()).toEqual({ cancelled: false });
    expect((await messagesOf(alice, chat.id)).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  test('GET /api/providers lists the configured providers', async () => {
    const response = await app.fetch('/api/providers', { user: alice });
    expect(await response.json()).toEqual({ providers: [{ id: 'openai' }, { id: 'anthropic' }] });
  });
});
