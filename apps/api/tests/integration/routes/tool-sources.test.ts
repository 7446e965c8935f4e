/**
 * Tool sources beside the built-ins, over real HTTP on both databases: a
 * second source's tools appear in Settings → Tools and in the inspector, can be
 * switched off there like built-ins, are offered to the model and run through
 * their source in a turn; a source that cannot list is reported, not fatal;
 * and an unexpected failure streams a generic error naming the request id.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type {
  Chat,
  ChatCapabilities,
  ErrorEvent,
  ToolSettingsListResponse,
  TurnStreamEvent,
} from '@mango/shared';
import { createLogger } from '../../../src/logger';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { callTool, say, useFakeProviderServer } from '../../support/fake-provider';
import { readTurnEvents, summedUsage } from '../../support/sse-client';
import { createEchoTool, createStaticToolSource } from '../../support/static-tool-source';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const fake = useFakeProviderServer();

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describeEachDatabase('tool sources beside the built-ins', (_kind, current) => {
  const notes = createStaticToolSource(
    [createEchoTool('mcp__notes__search', { title: 'Search notes' })],
    {
      id: 'mcp:notes',
      name: 'Notes',
    },
  );
  const broken = createStaticToolSource([createEchoTool('mcp__broken__x')], {
    id: 'mcp:broken',
    name: 'Broken',
    failWith: 'connection refused',
  });
  let app: TestApp;
  let alice: TestUser;
  const logLines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    app = startTestApp(current().database, {
      providers: createProviderRegistry({
        openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
      }),
      toolSources: [notes, broken],
      logger: createLogger({ level: 'info', write: (line) => logLines.push(JSON.parse(line)) }),
    });
    alice = await app.signUp();
  });
  afterAll(() => app.stop());

  async function createChat(): Promise<Chat> {
    const response = await app.fetch('/api/chats', {
      ...json('POST', { model: 'openai:gpt-5' }),
      user: alice,
    });
    return (await response.json()) as Chat;
  }

  test('the source’s tools are in Settings → Tools, the inspector and the turn', async () => {
    const settings = (await (
      await app.fetch('/api/settings/tools', { user: alice })
    ).json()) as ToolSettingsListResponse;
    expect(settings.tools.find((tool) => tool.name === 'mcp__notes__search')).toMatchObject({
      title: 'Search notes',
      source: 'server',
      enabled: true,
    });
    expect(settings.tools.find((tool) => tool.name === 'read_file')?.source).toBe('builtin');

    const chat = await createChat();
    const inspected = (await (
      await app.fetch(`/api/chats/${chat.id}/capabilities`, { user: alice })
    ).json()) as ChatCapabilities;
    expect(inspected.tools.find((tool) => tool.name === 'mcp__notes__search')).toEqual({
      name: 'mcp__notes__search',
      title: 'Search notes',
      category: 'system',
      source: 'server',
      server: 'mcp:notes',
      state: 'enabled',
    });
    expect(inspected.servers).toEqual([
      { id: 'mcp:notes', name: 'Notes', state: 'ready', health: 'ok', toolCount: 1 },
      {
        id: 'mcp:broken',
        name: 'Broken',
        state: 'error',
        health: 'source_failed',
        reason: expect.stringContaining('connection refused'),
        toolCount: null,
      },
    ]);

    fake.enqueue('openai', callTool('mcp__notes__search', { text: 'groceries' }), say('Found.'));
    const events = await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json('POST', { content: 'go' }),
        user: alice,
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    // The broken source is reported in the stream, right after turn_started; the turn goes on.
    expect(events[1]).toMatchObject({
      type: 'tool_source_skipped',
      sourceId: 'mcp:broken',
      sourceName: 'Broken',
      reason: 'source_failed',
      message: expect.stringContaining('connection refused'),
    });
    const [request] = fake.requests('openai');
    expect(JSON.stringify(request?.body.tools)).toContain('mcp__notes__search');
    const result = events.find(
      (event): event is Extract<TurnStreamEvent, { type: 'tool_result' }> =>
        event.type === 'tool_result',
    );
    expect(result).toMatchObject({ name: 'mcp__notes__search', isError: false });
    expect(Number.isInteger(result?.durationMs)).toBe(true);
    expect(notes.calls.at(-1)).toEqual({ name: 'mcp__notes__search', args: { text: 'groceries' } });
    // One log line sums the turn up; the broken source was reported when the turn started.
    const turnLine = logLines.find((line) => line.msg === 'chat turn' && line.chatId === chat.id);
    expect(turnLine).toMatchObject({
      userId: alice.id,
      model: 'openai:gpt-5',
      status: 'completed',
      iterations: 2,
      toolCalls: { succeeded: 1, failed: 0, aborted: 0 },
      usage: summedUsage(events),
    });
    expect(Number.isInteger(turnLine?.durationMs)).toBe(true);
    expect(
      logLines.find(
        (line) => line.msg === 'tool sources left out of a turn' && line.chatId === chat.id,
      ),
    ).toMatchObject({ problems: [expect.objectContaining({ sourceId: 'mcp:broken' })] });
  });

  test('a source’s tool is switched off like a built-in; an unknown name is still 404', async () => {
    const put = await app.fetch('/api/settings/tools/mcp__notes__search', {
      ...json('PUT', { enabled: false }),
      user: alice,
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ name: 'mcp__notes__search', enabled: false });
    const chat = await createChat();
    const inspected = (await (
      await app.fetch(`/api/chats/${chat.id}/capabilities`, { user: alice })
    ).json()) as ChatCapabilities;
    expect(inspected.tools.find((tool) => tool.name === 'mcp__notes__search')?.state).toBe(
      'disabled',
    );
    const missing = await app.fetch('/api/settings/tools/mcp__broken__x', {
      ...json('PUT', { enabled: false }),
      user: alice,
    });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('unknown_tool');
  });
});

describeEachDatabase('an unexpected failure during a turn', (_kind, current) => {
  const faulty = createStaticToolSource(
    [
      {
        ...createEchoTool('mcp__faulty__tool'),
        buildDefinition: () => {
          throw new Error('secret internal detail: password=hunter2');
        },
      },
    ],
    { id: 'mcp:faulty', name: 'Faulty' },
  );
  let app: TestApp;
  let alice: TestUser;
  beforeAll(async () => {
    app = startTestApp(current().database, {
      providers: createProviderRegistry({
        openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
      }),
      toolSources: [faulty],
    });
    alice = await app.signUp();
  });
  afterAll(() => app.stop());

  test('streams a generic internal_error with the request id, never the internal message', async () => {
    const chat = (await (
      await app.fetch('/api/chats', { ...json('POST', { model: 'openai:gpt-5' }), user: alice })
    ).json()) as Chat;
    const events = await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json('POST', { content: 'go' }),
        headers: { 'content-type': 'application/json', 'x-request-id': 'turn-req-42' },
        user: alice,
      }),
    );
    const error = events.find((event): event is ErrorEvent => event.type === 'error');
    expect(error).toMatchObject({
      code: 'internal_error',
      retryable: true,
      requestId: 'turn-req-42',
    });
    expect(error?.message).toContain('turn-req-42');
    expect(JSON.stringify(events)).not.toContain('hunter2');
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
  });
});
