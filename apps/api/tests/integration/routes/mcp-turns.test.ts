/**
 * MCP tools in turns and in the capabilities inspector, end to end through
 * HTTP with the fake provider, on both databases and over both transports:
 * the inspector connects lazily on the very connection the next turn uses
 * (one process), shows exactly the payload the turn then sends; a call's
 * result reaches the stream, the stored messages and the follow-up request;
 * images go to the images store; a server error is an error result; cancel
 * reaches the server; a crashed server is reported and the next turn
 * reconnects; a hanging server is skipped within the budget while a healthy
 * one works.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type {
  Chat,
  ChatCapabilities,
  ChatMessagesResponse,
  McpServer,
  TurnStreamEvent,
} from '@mango/shared';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { callTool, say, useFakeProviderServer } from '../../support/fake-provider';
import { createMarkerDir, SCENARIO_STDIO_ENTRY } from '../../support/mcp/mcp-fixtures';
import { startScenarioHttpServer } from '../../support/mcp/scenario-http';
import { readTurnEvents } from '../../support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';
import { waitUntil } from '../../support/wait-until';

const fake = useFakeProviderServer();
const CONNECT_BUDGET_MS = 1_500;

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

type ToolResult = Extract<TurnStreamEvent, { type: 'tool_result' }>;
const resultOf = (events: TurnStreamEvent[]) =>
  events.find((event): event is ToolResult => event.type === 'tool_result');

describeEachDatabase('MCP tools in turns', (_kind, current) => {
  let app: TestApp;
  let admin: TestUser;
  const marks = createMarkerDir();
  const http = startScenarioHttpServer();
  beforeAll(async () => {
    app = startTestApp(current().database, {
      providers: createProviderRegistry({
        openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
        gemini: { baseURL: fake.baseUrl('gemini'), apiKey: 'k', maxRetries: 0 },
      }),
      mcp: { allowPrivateUrls: true, connectBudgetMs: CONNECT_BUDGET_MS },
    });
    admin = await app.signUp();
  });
  afterAll(async () => {
    await app.stop();
    await http.stop();
    marks.remove();
  });

  async function addServer(body: Record<string, unknown>): Promise<McpServer> {
    const response = await app.fetch('/api/mcp/servers', { ...json('POST', body), user: admin });
    expect(response.status).toBe(201);
    return (await response.json()) as McpServer;
  }
  async function setEnabled(server: McpServer, enabled: boolean) {
    const response = await app.fetch(`/api/mcp/servers/${server.id}`, {
      ...json('PUT', { enabled }),
      user: admin,
    });
    expect(response.status).toBe(200);
  }
  async function newChat(): Promise<Chat> {
    const response = await app.fetch('/api/chats', {
      ...json('POST', { model: 'openai:gpt-5' }),
      user: admin,
    });
    return (await response.json()) as Chat;
  }
  async function inspect(chat: Chat, query = ''): Promise<ChatCapabilities> {
    const response = await app.fetch(`/api/chats/${chat.id}/capabilities${query}`, { user: admin });
    expect(response.status).toBe(200);
    return (await response.json()) as ChatCapabilities;
  }
  const turn = async (chat: Chat, content = 'go') =>
    readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, { ...json('POST', { content }), user: admin }),
    );

  const transports = [
    {
      name: 'stdio',
      slug: 'local',
      body: () => ({
        name: 'Local',
        slug: 'local',
        type: 'stdio',
        command: process.execPath,
        args: [SCENARIO_STDIO_ENTRY],
        env: { MCP_MARKER_DIR: marks.path },
      }),
      starts: () => marks.starts().length,
      cancels: () => marks.cancels(),
      crash: async (chat: Chat) => {
        fake.enqueue('openai', callTool('mcp__local__crash'), say('It crashed.'));
        return turn(chat);
      },
      crashMark: 'crashing on purpose',
    },
    {
      name: 'http',
      slug: 'remote',
      body: () => ({ name: 'Remote', slug: 'remote', type: 'http', url: http.url }),
      starts: () => http.sessionsStarted,
      cancels: () => http.cancels,
      crash: async (chat: Chat) => {
        // The server restarts: it no longer knows the session, and answers 404.
        http.expireSessions();
        fake.enqueue('openai', callTool('mcp__remote__echo', { text: 'lost' }), say('It failed.'));
        return turn(chat);
      },
      crashMark: '404',
    },
  ] as const;

  for (const transport of transports) {
    let server: McpServer;
    const prefix = `mcp__${transport.slug}__`;

    test(`[${transport.name}] the inspector connects lazily; inspector then turn is one connection, and the payload matches`, async () => {
      server = await addServer(transport.body());
      const chat = await newChat();
      expect(transport.starts()).toBe(0);
      const inspected = await inspect(chat, '?include=wire');
      expect(transport.starts()).toBe(1);
      expect(inspected.servers.find((item) => item.id === `mcp:${server.id}`)).toMatchObject({
        name: server.name,
        state: 'ready',
        health: 'ok',
      });
      expect(inspected.tools.find((tool) => tool.name === `${prefix}echo`)).toMatchObject({
        source: 'server',
        server: `mcp:${server.id}`,
        state: 'enabled',
        category: 'interaction',
      });
      expect(inspected.tools.find((tool) => tool.name === `${prefix}not_an_object`)).toMatchObject({
        state: 'unavailable',
        reason: expect.stringContaining('type "string"'),
      });
      const wireTools = (inspected.wire?.payload.tools ?? []) as {
        name: string;
        strict: boolean;
        parameters: unknown;
      }[];
      expect(wireTools.find((tool) => tool.name === `${prefix}echo`)?.strict).toBe(true);
      const union = wireTools.find((tool) => tool.name === `${prefix}union_args`);
      expect(union?.strict).toBe(false);
      expect(JSON.stringify(union?.parameters)).toContain('anyOf');
      expect(wireTools.some((tool) => tool.name === `${prefix}not_an_object`)).toBe(false);

      fake.enqueue('openai', callTool(`${prefix}echo`, { text: 'hello from mcp' }), say('Done.'));
      const events = await turn(chat);
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
      expect(transport.starts()).toBe(1);
      const result = resultOf(events);
      expect(result).toMatchObject({ name: `${prefix}echo`, isError: false });
      expect(JSON.stringify(result?.content)).toContain('hello from mcp');
      const [first, followUp] = fake.requests('openai').slice(-2);
      // What the inspector showed is what the provider received.
      expect(first?.body.tools).toEqual(inspected.wire?.payload.tools);
      expect(JSON.stringify(followUp?.body.input)).toContain('hello from mcp');
      const stored = (await (
        await app.fetch(`/api/chats/${chat.id}/messages`, { user: admin })
      ).json()) as ChatMessagesResponse;
      expect(JSON.stringify(stored.messages)).toContain('hello from mcp');
    });

    test(`[${transport.name}] an image result goes to the images store and is referenced, never inlined`, async () => {
      const chat = await newChat();
      fake.enqueue('openai', callTool(`${prefix}picture`), say('A picture.'));
      const events = await turn(chat);
      const image = events.find((event) => event.type === 'image_generated') as
        | { url: string; mediaType: string }
        | undefined;
      const url = image?.url ?? '';
      expect(url).toMatch(/^\/api\/images\/img_/);
      expect(image?.mediaType).toBe('image/png');
      const result = resultOf(events);
      expect(JSON.stringify(result?.content)).toContain('Here is a picture:');
      expect(JSON.stringify(fake.requests('openai').at(-1)?.body)).not.toContain('iVBORw0KGgo');
      const served = await app.fetch(url, { user: admin });
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
    });

    test(`[${transport.name}] a server-side isError is an error result (execution_failed)`, async () => {
      const chat = await newChat();
      fake.enqueue('openai', callTool(`${prefix}fail`), say('It failed.'));
      const events = await turn(chat);
      expect(resultOf(events)).toMatchObject({ isError: true, errorCode: 'execution_failed' });
      expect(JSON.stringify(resultOf(events)?.content)).toContain('the thing broke');
    });

    test(`[${transport.name}] cancelling the turn mid-call cancels the call on the server`, async () => {
      const chat = await newChat();
      fake.enqueue('openai', callTool(`${prefix}slow`, { ms: 20_000 }), say('never'));
      const response = await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...json('POST', { content: 'wait' }),
        user: admin,
      });
      const reading = readTurnEvents(response);
      const cancelsBefore = transport.cancels().length;
      // The call is running once the server reports progress; then stop the turn.
      await Bun.sleep(400);
      const cancel = await app.fetch(`/api/chats/${chat.id}/turns/cancel`, {
        method: 'POST',
        user: admin,
      });
      expect(cancel.status).toBe(200);
      const events = await reading;
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
      expect(resultOf(events)).toMatchObject({ isError: true, errorCode: 'aborted' });
      expect(await waitUntil(() => transport.cancels().length > cancelsBefore)).toBe(true);
    });

    test(`[${transport.name}] a crashed server is reported, and the next turn reconnects`, async () => {
      const chat = await newChat();
      const startsBefore = transport.starts();
      const events = await transport.crash(chat);
      expect(events.at(-1)).toMatchObject({ type: 'done' });
      expect(resultOf(events)).toMatchObject({ isError: true, errorCode: 'execution_failed' });
      const inspected = await inspect(chat);
      // The inspector's listing reconnects at once; the failure stays visible until then.
      expect(inspected.servers.find((item) => item.id === `mcp:${server.id}`)?.state).toBe('ready');
      const listed = (await (
        await app.fetch(`/api/mcp/servers/${server.id}`, { user: admin })
      ).json()) as McpServer;
      expect(listed.status).toBe('ready');
      expect(transport.starts()).toBe(startsBefore + 1);

      fake.enqueue('openai', callTool(`${prefix}echo`, { text: 'back again' }), say('Back.'));
      const next = await turn(chat);
      expect(resultOf(next)).toMatchObject({ isError: false });
      expect(JSON.stringify(resultOf(next)?.content)).toContain('back again');
    });

    test(`[${transport.name}] a switched-off tool is not offered; a disabled server starts nothing`, async () => {
      const chat = await newChat();
      const put = await app.fetch(`/api/settings/tools/${prefix}add`, {
        ...json('PUT', { enabled: false }),
        user: admin,
      });
      expect(put.status).toBe(200);
      const inspected = await inspect(chat, '?include=wire');
      expect(inspected.tools.find((tool) => tool.name === `${prefix}add`)?.state).toBe('disabled');
      const names = ((inspected.wire?.payload.tools ?? []) as { name: string }[]).map(
        (tool) => tool.name,
      );
      expect(names).not.toContain(`${prefix}add`);
      expect(names).toContain(`${prefix}echo`);

      await setEnabled(server, false);
      const startsBefore = transport.starts();
      const off = await inspect(chat, '?include=wire');
      expect(off.servers.find((item) => item.id === `mcp:${server.id}`)).toMatchObject({
        state: 'disabled',
        health: 'disabled',
      });
      expect(off.tools.find((tool) => tool.name === `${prefix}echo`)?.state).toBe('unavailable');
      expect(
        ((off.wire?.payload.tools ?? []) as { name: string }[]).some((tool) =>
          tool.name.startsWith(prefix),
        ),
      ).toBe(false);
      await Bun.sleep(100);
      expect(transport.starts()).toBe(startsBefore);
    });
  }

  test('ten concurrent inspector calls start one process', async () => {
    const burst = createMarkerDir();
    try {
      await addServer({
        name: 'Burst',
        type: 'stdio',
        command: process.execPath,
        args: [SCENARIO_STDIO_ENTRY],
        env: { MCP_MARKER_DIR: burst.path },
      });
      const chat = await newChat();
      const answers = await Promise.all(Array.from({ length: 10 }, () => inspect(chat)));
      expect(burst.starts()).toHaveLength(1);
      for (const answer of answers)
        expect(answer.tools.find((tool) => tool.name === 'mcp__burst__echo')?.state).toBe(
          'enabled',
        );
    } finally {
      burst.remove();
    }
  });

  test('Gemini gets the subset it accepts, and names within 64 characters', async () => {
    const chat = await newChat();
    const inspected = await inspect(chat, '?include=wire&model=gemini:gemini-2.5-flash');
    const declarations = (
      (inspected.wire?.payload.tools ?? []) as {
        functionDeclarations: { name: string; parameters?: unknown }[];
      }[]
    ).flatMap((tool) => tool.functionDeclarations);
    const mcpNames = declarations
      .map((item) => item.name)
      .filter((name) => name.startsWith('mcp__'));
    const payload = JSON.stringify(declarations.map((item) => item.parameters));
    expect(mcpNames).toContain('mcp__burst__union_args');
    expect(mcpNames).toContain('mcp__burst__gemini_hostile');
    for (const name of mcpNames) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    // Keywords Gemini refuses never reach it; the reference is inlined.
    for (const keyword of ['additionalProperties', '$ref', '$defs', '"const"', '"uri"'])
      expect({ keyword, found: payload.includes(keyword) }).toEqual({ keyword, found: false });
    const hostile = declarations.find((item) => item.name === 'mcp__burst__gemini_hostile');
    expect(JSON.stringify(hostile?.parameters)).toContain('"link"');
  });

  test('a hanging server is skipped within the budget while a healthy one works', async () => {
    const healthy = await addServer({ name: 'Healthy', type: 'http', url: http.url });
    const hanging = await addServer({
      name: 'Hangs',
      type: 'stdio',
      command: process.execPath,
      args: [SCENARIO_STDIO_ENTRY],
      env: { MCP_HANG_ON_INITIALIZE: '1' },
    });
    const chat = await newChat();
    fake.enqueue(
      'openai',
      callTool('mcp__healthy__echo', { text: 'healthy answer' }),
      say('Done.'),
    );
    const started = Date.now();
    const events = await turn(chat);
    const elapsed = Date.now() - started;
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(events.find((event) => event.type === 'tool_source_skipped')).toMatchObject({
      sourceId: `mcp:${hanging.id}`,
      sourceName: 'Hangs',
      reason: 'source_timed_out',
    });
    expect(JSON.stringify(resultOf(events)?.content)).toContain('healthy answer');
    expect(elapsed).toBeLessThan(CONNECT_BUDGET_MS + 3_000);
    const tools = ((fake.requests('openai').at(-2)?.body.tools ?? []) as { name: string }[]).map(
      (tool) => tool.name,
    );
    expect(tools).toContain('mcp__healthy__echo');
    expect(tools.some((name) => name.startsWith('mcp__hangs__'))).toBe(false);
    const inspected = await inspect(chat);
    expect(inspected.servers.find((item) => item.id === `mcp:${hanging.id}`)).toMatchObject({
      health: 'source_timed_out',
    });
    expect(inspected.servers.find((item) => item.id === `mcp:${healthy.id}`)?.state).toBe('ready');
    await app.fetch(`/api/mcp/servers/${hanging.id}`, { method: 'DELETE', user: admin });
  });
});
