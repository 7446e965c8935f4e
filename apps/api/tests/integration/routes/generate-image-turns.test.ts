/**
 * generate_image in a real turn over HTTP, on both databases: the SSE events
 * per image, the `image` parts stored right after the call's `tool_call` part,
 * `GET /api/images/:id` for the owner (404 for another user, gone with the
 * chat), a follow-up turn on another provider that carries references, not
 * bytes, and the tool listed unavailable when no image model is configured.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Chat, ChatCapabilities, ChatMessage, TurnStreamEvent } from '@mango/shared';
import { createImageModelRegistry } from '../../../src/services/providers/image-model-registry';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { NO_IMAGE_MODEL_REASON } from '../../../src/services/tools';
import {
  type FakeImageServer,
  startFakeImageServer,
} from '../../support/fake-images/fake-image-server';
import { callTool, say, useFakeProviderServer } from '../../support/fake-provider';
import { readTurnEvents } from '../../support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';
import { waitUntil } from '../../support/wait-until';

const fake = useFakeProviderServer();
let imagesFake: FakeImageServer;
beforeAll(async () => {
  imagesFake = await startFakeImageServer();
});
afterAll(() => imagesFake.close());

describeEachDatabase('generate_image in a turn', (_kind, current) => {
  let app: TestApp;
  let bare: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    const providers = createProviderRegistry({
      openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
      anthropic: { baseURL: fake.baseUrl('anthropic'), apiKey: 'k', maxRetries: 0 },
    });
    app = startTestApp(current().database, {
      providers,
      imageModels: createImageModelRegistry(
        [{ name: 'openai:gpt-image-1', provider: 'openai', modelId: 'gpt-image-1' }],
        { openai: { apiKey: 'sk-test', baseURL: imagesFake.baseUrl('openai') } },
      ),
    });
    // The same server without an image model configured.
    bare = startTestApp(current().database, {
      providers,
      imageModels: createImageModelRegistry([], {}),
    });
    alice = await app.signUp();
    bob = await app.signUp();
  }, 30_000);
  afterAll(async () => {
    await app.stop();
    await bare.stop();
  });

  const post = (target: TestApp, path: string, user: TestUser, body: unknown) =>
    target.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      user,
    });

  test('each image streams as it is made, is stored after its tool_call, and is served to its owner only', async () => {
    fake.reset();
    imagesFake.reset();
    imagesFake.enqueue('openai', { kind: 'image' }, { kind: 'moderation' }, { kind: 'image' });
    const chat = (await (
      await post(app, '/api/chats', alice, { model: 'openai:gpt-5' })
    ).json()) as Chat;
    fake.enqueue(
      'openai',
      callTool('generate_image', { prompt: 'three cats', count: 3 }),
      say('Two of the three images are ready.'),
    );
    const events = await readTurnEvents(
      await post(app, `/api/chats/${chat.id}/turns`, alice, { content: 'Draw three cats.' }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    const order = events
      .map((event) => event.type)
      .filter((type) =>
        ['tool_call_completed', 'image_generated', 'image_failed', 'tool_result'].includes(type),
      );
    expect(order).toEqual([
      'tool_call_completed',
      'image_generated',
      'image_failed',
      'image_generated',
      'tool_result',
    ]);
    const generated = events.filter(
      (event): event is Extract<TurnStreamEvent, { type: 'image_generated' }> =>
        event.type === 'image_generated',
    );
    const completed = events.find((event) => event.type === 'tool_call_completed') as Extract<
      TurnStreamEvent,
      { type: 'tool_call_completed' }
    >;
    expect(
      generated.map((event) => [event.index, event.toolCallId, event.name, event.mediaType]),
    ).toEqual([
      [0, completed.toolCallId, 'generate_image', 'image/png'],
      [2, completed.toolCallId, 'generate_image', 'image/png'],
    ]);
    expect(events.find((event) => event.type === 'image_failed')).toMatchObject({
      index: 1,
      code: 'content_policy_violation',
    });

    const { messages } = (await (
      await app.fetch(`/api/chats/${chat.id}/messages`, { user: alice })
    ).json()) as { messages: ChatMessage[] };
    const assistant = messages.find((message) => message.role === 'assistant');
    expect(assistant?.parts.map((part) => part.type)).toEqual(['tool_call', 'image', 'image']);
    expect(assistant?.parts.slice(1)).toEqual(
      generated.map((event) => ({
        type: 'image',
        url: event.url,
        mediaType: 'image/png',
        alt: 'three cats',
        imageId: event.imageId,
        toolCallId: completed.toolCallId,
      })),
    );
    const result = messages.find((message) => message.role === 'tool')?.parts[0];
    expect(result).toMatchObject({ type: 'tool_result', isError: false });
    const content = JSON.parse((result as { content: string }).content);
    expect(content.images.map((image: { url: string }) => image.url)).toEqual(
      generated.map((event) => event.url),
    );

    const served = imagesFake.served();
    for (const [index, event] of generated.entries()) {
      const response = await app.fetch(event.url, { user: alice });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
      expect(
        Buffer.from(await response.arrayBuffer()).equals(Buffer.from(served[index] ?? [])),
      ).toBe(true);
      expect((await app.fetch(event.url, { user: bob })).status).toBe(404);
    }

    // The next turn goes to another provider: it reads the references, never the bytes.
    fake.enqueue('anthropic', say('They are in the chat above.'));
    const followUp = await readTurnEvents(
      await post(app, `/api/chats/${chat.id}/turns`, alice, {
        content: 'Where are they?',
        model: 'anthropic:claude-sonnet-4-5',
      }),
    );
    expect(followUp.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    const sent = JSON.stringify(fake.requests('anthropic').at(-1)?.body);
    for (const event of generated) expect(sent).toContain(event.url);
    for (const bytes of served) expect(sent).not.toContain(Buffer.from(bytes).toString('base64'));
    expect(sent).not.toContain('[image:');

    expect(
      (await app.fetch(`/api/chats/${chat.id}`, { method: 'DELETE', user: alice })).status,
    ).toBe(204);
    for (const event of generated)
      expect((await app.fetch(event.url, { user: alice })).status).toBe(404);
  });

  test('cancelling the turn mid-image aborts the request in flight and keeps the finished image', async () => {
    fake.reset();
    imagesFake.reset();
    imagesFake.enqueue('openai', { kind: 'image' }, { kind: 'hang' });
    const chat = (await (
      await post(app, '/api/chats', alice, { model: 'openai:gpt-5' })
    ).json()) as Chat;
    fake.enqueue('openai', callTool('generate_image', { prompt: 'a slow pair', count: 2 }));
    const reading = readTurnEvents(
      await post(app, `/api/chats/${chat.id}/turns`, alice, { content: 'Draw two.' }),
    );
    expect(await waitUntil(() => imagesFake.requests('openai').length === 2)).toBe(true);
    const cancel = await post(app, `/api/chats/${chat.id}/turns/cancel`, alice, {});
    expect(await cancel.json()).toEqual({ cancelled: true });
    const events = await reading;
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
    await imagesFake.requests('openai')[1]?.abortedSignal;
    expect(imagesFake.requests('openai')[1]?.aborted).toBe(true);
    const generated = events.filter((event) => event.type === 'image_generated');
    expect(generated).toHaveLength(1);
    expect(events.find((event) => event.type === 'image_failed')).toMatchObject({
      index: 1,
      code: 'aborted',
    });

    const { messages } = (await (
      await app.fetch(`/api/chats/${chat.id}/messages`, { user: alice })
    ).json()) as { messages: ChatMessage[] };
    const assistant = messages.find((message) => message.role === 'assistant');
    expect(assistant?.parts.map((part) => part.type)).toEqual(['tool_call', 'image']);
    const result = messages.find((message) => message.role === 'tool')?.parts[0] as {
      content: string;
    };
    expect(JSON.parse(result.content)).toMatchObject({
      count: 1,
      errors: [{ index: 1, code: 'aborted' }],
    });
    const url = (generated[0] as { url: string }).url;
    expect((await app.fetch(url, { user: alice })).status).toBe(200);
  });

  test('GET /api/models lists the image model with kind image; the bare server lists none', async () => {
    const listed = (await (await app.fetch('/api/models', { user: alice })).json()) as {
      models: { id: string; provider: string; modelId: string; kind: string }[];
    };
    expect(listed.models.filter((model) => model.kind === 'image')).toEqual([
      { id: 'openai:gpt-image-1', provider: 'openai', modelId: 'gpt-image-1', kind: 'image' },
    ]);
    const carol = await bare.signUp();
    const none = (await (await bare.fetch('/api/models', { user: carol })).json()) as {
      models: { kind: string }[];
    };
    expect(none.models.filter((model) => model.kind === 'image')).toEqual([]);
  });

  test('with no image model configured, generate_image is listed unavailable with the reason and never offered', async () => {
    fake.reset();
    const carol = await bare.signUp();
    const chat = (await (
      await post(bare, '/api/chats', carol, { model: 'openai:gpt-5' })
    ).json()) as Chat;
    const capabilities = (await (
      await bare.fetch(`/api/chats/${chat.id}/capabilities`, { user: carol })
    ).json()) as ChatCapabilities;
    expect(capabilities.tools.find((tool) => tool.name === 'generate_image')).toMatchObject({
      state: 'unavailable',
      reason: NO_IMAGE_MODEL_REASON,
    });
    fake.enqueue('openai', say('No tools needed.'));
    await readTurnEvents(await post(bare, `/api/chats/${chat.id}/turns`, carol, { content: 'Hi' }));
    const tools = (fake.requests('openai').at(-1)?.body.tools ?? []) as { name: string }[];
    expect(tools.map((tool) => tool.name)).not.toContain('generate_image');
    expect(tools.length).toBeGreaterThan(0);
  });
});
