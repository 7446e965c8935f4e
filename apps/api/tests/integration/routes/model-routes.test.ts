/**
 * `GET /api/models` and the model check over real HTTP on both databases
 * (docs/http-api.md#models): each provider's list through its SDK from the fake
 * provider server, one provider failing on its own, and a model that is not
 * offered refused with 422 before anything is stored — the chat keeps its
 * model, no message is written, the provider is never called.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'bun:test';
import type { Chat, ChatMessage, ErrorResponse, ModelsResponse } from '@mango/shared';
import '../../../src/services/tools';
import { createModelCatalog } from '../../../src/services/providers/model-catalog';
import {
  createProviderRegistry,
  PROVIDER_IDS,
} from '../../../src/services/providers/provider-registry';
import { say, useFakeProviderServer } from '../../support/fake-provider';
import { readTurnEvents } from '../../support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const fake = useFakeProviderServer();

const send = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

function serveAll() {
  fake.serveModels('openai', { models: [{ id: 'gpt-5' }, { id: 'gpt-5-mini' }] });
  fake.serveModels('openai-compatible', { models: [{ id: 'llama3.1' }] });
  fake.serveModels('anthropic', {
    models: [
      { id: 'claude-sonnet-4-5', displayName: 'Claude Sonnet 4.5' },
      { id: 'claude-haiku-4-5', displayName: 'Claude Haiku 4.5' },
    ],
    pageSize: 1,
  });
  fake.serveModels('gemini', { models: [{ id: 'gemini-2.5-flash' }] });
}

describeEachDatabase('the models route and the model check', (_kind, current) => {
  let app: TestApp;
  let alice: TestUser;
  beforeAll(async () => {
    const providers = createProviderRegistry(
      Object.fromEntries(
        PROVIDER_IDS.map((id) => [
          id,
          { baseURL: fake.baseUrl(id), apiKey: 'test-key', maxRetries: 0 },
        ]),
      ),
    );
    // The catalog keeps no list between questions here, so each test sees the lists it scripts.
    app = startTestApp(current().database, {
      providers,
      models: createModelCatalog({
        providers,
        additional: [
          {
            id: 'openai:ft:gpt-5:acme',
            provider: 'openai',
            modelId: 'ft:gpt-5:acme',
            kind: 'chat',
          },
        ],
        ttlMs: 0,
        failureTtlMs: 0,
      }),
    });
    alice = await app.signUp();
  });
  afterAll(() => app.stop());
  beforeEach(() => serveAll());

  async function createChat(body: Record<string, unknown>): Promise<Chat> {
    const response = await app.fetch('/api/chats', { ...send('POST', body), user: alice });
    expect(response.status).toBe(201);
    return (await response.json()) as Chat;
  }
  const readChat = async (id: string) =>
    (await (await app.fetch(`/api/chats/${id}`, { user: alice })).json()) as Chat;
  const messagesOf = async (id: string) =>
    (
      (await (await app.fetch(`/api/chats/${id}/messages`, { user: alice })).json()) as {
        messages: ChatMessage[];
      }
    ).messages;

  test('needs a signed-in user', async () => {
    expect((await app.fetch('/api/models')).status).toBe(401);
  });

  test('lists every provider’s models and the configured ones; a failing provider is reported alone', async () => {
    fake.serveModels('gemini', { fault: { type: 'http_error', status: 429 } });
    const response = await app.fetch('/api/models', { user: alice });
    expect(response.status).toBe(200);
    const body = (await response.json()) as ModelsResponse;
    expect(body.models.map((model) => model.id)).toEqual([
      'openai:gpt-5',
      'openai:gpt-5-mini',
      'openai:ft:gpt-5:acme',
      'openai-compatible:llama3.1',
      'anthropic:claude-sonnet-4-5',
      'anthropic:claude-haiku-4-5',
    ]);
    expect(body.models[4]).toEqual({
      id: 'anthropic:claude-sonnet-4-5',
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
      kind: 'chat',
      displayName: 'Claude Sonnet 4.5',
    });
    // Anthropic answered one model per page: both pages were read.
    expect(fake.modelListRequests('anthropic')).toHaveLength(2);
    expect(body.providers.find((provider) => provider.provider === 'gemini')).toMatchObject({
      status: 'failed',
      error: { code: 'rate_limited', status: 429 },
    });
    expect(
      body.providers.filter((provider) => provider.status === 'ok').map((p) => p.provider),
    ).toEqual(['openai', 'openai-compatible', 'anthropic']);
  });

  test('creating a chat with a model that is not offered is refused, with the closest names; nothing is stored', async () => {
    const before = await app.fetch('/api/chats', { user: alice }).then((r) => r.json());
    const response = await app.fetch('/api/chats', {
      ...send('POST', { title: 'typo', model: 'anthropic:claude-sonet-4-5' }),
      user: alice,
    });
    expect(response.status).toBe(422);
    const { error } = (await response.json()) as ErrorResponse;
    expect(error.code).toBe('validation_failed');
    expect(error.details).toMatchObject({ field: 'model' });
    expect(error.details?.suggestions).toEqual([
      'anthropic:claude-sonnet-4-5',
      'anthropic:claude-haiku-4-5',
    ]);
    expect(await app.fetch('/api/chats', { user: alice }).then((r) => r.json())).toEqual(before);
  });

  test('PATCH with a model that is not offered is refused and the chat keeps its model', async () => {
    const chat = await createChat({ model: 'openai:gpt-5' });
    const response = await app.fetch(`/api/chats/${chat.id}`, {
      ...send('PATCH', { title: 'renamed', model: 'openai:gpt-55' }),
      user: alice,
    });
    expect(response.status).toBe(422);
    expect(((await response.json()) as ErrorResponse).error.message).toContain('openai:gpt-5');
    expect(await readChat(chat.id)).toMatchObject({ model: 'openai:gpt-5', title: chat.title });
    // A listed or configured model is accepted.
    for (const model of ['openai:gpt-5-mini', 'openai:ft:gpt-5:acme']) {
      const accepted = await app.fetch(`/api/chats/${chat.id}`, {
        ...send('PATCH', { model }),
        user: alice,
      });
      expect(accepted.status).toBe(200);
      expect(((await accepted.json()) as Chat).model).toBe(model);
    }
  });

  test('a turn naming a model that is not offered is refused before anything is stored or sent', async () => {
    const chat = await createChat({ model: 'openai:gpt-5' });
    const response = await app.fetch(`/api/chats/${chat.id}/turns`, {
      ...send('POST', { content: 'hello', model: 'gemini:gemini-2.5-flsh' }),
      user: alice,
    });
    expect(response.status).toBe(422);
    const { error } = (await response.json()) as ErrorResponse;
    expect(error.details).toMatchObject({
      field: 'model',
      suggestions: ['gemini:gemini-2.5-flash'],
    });
    expect(await messagesOf(chat.id)).toEqual([]);
    expect((await readChat(chat.id)).model).toBe('openai:gpt-5');
    expect(fake.requests()).toEqual([]);
  });

  test('a turn on an offered model runs and makes it the chat’s model', async () => {
    const chat = await createChat({ model: 'openai:gpt-5' });
    fake.enqueue('anthropic', say('Hello from Claude.'));
    const events = await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...send('POST', { content: 'hello', model: 'anthropic:claude-haiku-4-5' }),
        user: alice,
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect((await readChat(chat.id)).model).toBe('anthropic:claude-haiku-4-5');
  });

  test('when the provider’s list cannot be fetched, its models are not refused', async () => {
    fake.serveModels('anthropic', { fault: { type: 'http_error', status: 503 } });
    const chat = await createChat({ model: 'anthropic:claude-next' });
    expect(chat.model).toBe('anthropic:claude-next');
    fake.enqueue('anthropic', say('Still answering.'));
    const events = await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        ...send('POST', { content: 'hello' }),
        user: alice,
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(fake.requests('anthropic')[0]?.body.model).toBe('claude-next');
  });
});
