/**
 * The capabilities inspector over real HTTP on both databases: every tool with
 * its source and state for the signed-in user, and with ?include=wire the tool
 * fields the chat's provider would receive — checked against what a real turn
 * then sends to the fake provider, for OpenAI Responses and Anthropic.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { type Chat, ChatCapabilities } from '@mango/shared';
import { Value } from '@sinclair/typebox/value';
import '../../../src/services/tools';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { listTools } from '../../../src/services/tools/registry';
import { DISABLED_TOOL_REASON } from '../../../src/services/tools/sources/tool-source';
import { say, useFakeProviderServer } from '../../support/fake-provider';
import { readTurnEvents } from '../../support/sse-client';
import { createTempTree, type TempTree } from '../../support/temp-tree';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const fake = useFakeProviderServer();
let tree: TempTree;
let workspace: string;
beforeAll(async () => {
  tree = createTempTree('mango-capabilities');
  workspace = tree.root;
});
afterAll(async () => {
  tree.remove();
});

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describeEachDatabase('the capabilities inspector', (_kind, current) => {
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    app = startTestApp(current().database, {
      providers: createProviderRegistry({
        openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
        anthropic: { baseURL: fake.baseUrl('anthropic'), apiKey: 'k', maxRetries: 0 },
        gemini: { baseURL: fake.baseUrl('gemini'), apiKey: 'k', maxRetries: 0 },
        'openai-compatible': { baseURL: fake.baseUrl('openai-compatible'), maxRetries: 0 },
      }),
    });
    alice = await app.signUp();
    bob = await app.signUp();
    // Bob is not an admin: his file tools reach only what an admin granted him.
    await app.services.roots.replace(bob.id, [workspace]);
  });
  afterAll(() => app.stop());

  async function createChat(user: TestUser, body: Record<string, unknown>): Promise<Chat> {
    const response = await app.fetch('/api/chats', { ...json('POST', body), user });
    expect(response.status).toBe(201);
    return (await response.json()) as Chat;
  }

  async function inspect(user: TestUser, chatId: string, query = '') {
    return app.fetch(`/api/chats/${chatId}/capabilities${query}`, { user });
  }

  test('lists every tool with its source and state; a switched-off tool says why', async () => {
    const chat = await createChat(alice, { mode: 'agent', workingDirectory: workspace });
    const first = (await (await inspect(alice, chat.id)).json()) as ChatCapabilities;
    expect(Value.Check(ChatCapabilities, first)).toBe(true);
    expect(first).toMatchObject({ chatId: chat.id, model: null, servers: [] });
    expect(first.wire).toBeUndefined();
    expect(first.tools.map((tool) => tool.name)).toEqual(
      listTools().map((tool) => tool.definition.name),
    );
    for (const tool of first.tools) {
      const registered = listTools().find((item) => item.definition.name === tool.name);
      expect(tool.source).toBe('builtin');
      expect(tool.state).toBe(registered?.settings.enabledByDefault ? 'enabled' : 'disabled');
    }

    const put = await app.fetch('/api/settings/tools/read_file', {
      ...json('PUT', { enabled: false }),
      user: alice,
    });
    expect(put.status).toBe(200);
    const after = (await (await inspect(alice, chat.id)).json()) as ChatCapabilities;
    expect(after.tools.find((tool) => tool.name === 'read_file')).toEqual({
      name: 'read_file',
      title: expect.any(String),
      category: 'system',
      source: 'builtin',
      state: 'disabled',
      reason: DISABLED_TOOL_REASON,
    });
    // Bob's settings are his own.
    const bobsChat = await createChat(bob, {});
    const bobs = (await (await inspect(bob, bobsChat.id)).json()) as ChatCapabilities;
    expect(bobs.tools.find((tool) => tool.name === 'read_file')?.state).toBe('enabled');
  });

  test.each([
    ['openai:gpt-5', 'openai'],
    ['anthropic:claude-sonnet-4-5', 'anthropic'],
    ['gemini:gemini-2.5-flash', 'gemini'],
    ['openai-compatible:llama3.1', 'openai-compatible'],
  ] as const)(
    '?include=wire for %s is exactly the tools a turn then sends',
    async (model, provider) => {
      const chat = await createChat(alice, { mode: 'agent', workingDirectory: workspace, model });
      const response = await inspect(alice, chat.id, '?include=wire');
      expect(response.status).toBe(200);
      const capabilities = (await response.json()) as ChatCapabilities;
      expect(capabilities.wire?.model).toBe(model);
      const payload = capabilities.wire?.payload as Record<string, unknown>;
      const enabled = capabilities.tools.filter((tool) => tool.state === 'enabled');
      // Gemini groups its function declarations in one tool.
      const declared =
        provider === 'gemini'
          ? (payload.tools as Array<{ functionDeclarations: unknown[] }>)[0]?.functionDeclarations
          : (payload.tools as unknown[]);
      expect(declared?.length).toBe(enabled.length);

      fake.enqueue(provider, say('Hello.'));
      const events = await readTurnEvents(
        await app.fetch(`/api/chats/${chat.id}/turns`, {
          ...json('POST', { content: 'hi' }),
          user: alice,
        }),
      );
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
      const sent = fake.requests(provider)[0]?.body as Record<string, unknown>;
      expect(sent.tools).toEqual(payload.tools);
      expect(sent.tool_choice).toEqual(payload.tool_choice);
    },
  );

  test('?include=wire needs a model: the chat’s, or ?model=; a model the server cannot run is refused', async () => {
    const chat = await createChat(alice, {});
    const missing = await inspect(alice, chat.id, '?include=wire');
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({
      error: { code: 'validation_failed', message: expect.stringContaining('?model=') },
    });
    const chosen = await inspect(alice, chat.id, '?include=wire&model=anthropic:claude-sonnet-4-5');
    expect(chosen.status).toBe(200);
    expect(((await chosen.json()) as ChatCapabilities).wire?.model).toBe(
      'anthropic:claude-sonnet-4-5',
    );
    const unknown = await inspect(alice, chat.id, '?include=wire&model=mistral:large');
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      'provider:modelId',
    );
  });

  test('another user’s chat is 404, no user is 401, an unknown query field is 400', async () => {
    const chat = await createChat(alice, {});
    expect((await inspect(bob, chat.id)).status).toBe(404);
    expect((await app.fetch(`/api/chats/${chat.id}/capabilities`)).status).toBe(401);
    expect((await inspect(alice, chat.id, '?include=everything')).status).toBe(400);
  });
});
