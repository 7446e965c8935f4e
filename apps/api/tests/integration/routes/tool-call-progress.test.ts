/**
 * What a running tool reports through `ToolContext.emit` reaches the client as
 * `tool_call_progress` events, in order, between the call's
 * `tool_call_completed` and its `tool_result`; reports that are malformed or
 * come after the call ended are dropped, and progress is never stored.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Chat, ChatMessage, TurnStreamEvent } from '@mango/shared';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { createToolRegistry } from '../../../src/services/tools/registry';
import type { ToolProgressEvent } from '../../../src/services/tools/types';
import { callTool, say, useFakeProviderServer } from '../../support/fake-provider';
import { readTurnEvents, summedUsage } from '../../support/sse-client';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const fake = useFakeProviderServer();

function createProgressRegistry() {
  const registry = createToolRegistry();
  registry.register({
    definition: {
      name: 'count_images',
      description: 'Makes two images and reports each one as it is done.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
    settings: {
      title: 'Count images',
      description: 'Reports progress.',
      category: 'image',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {},
      parameterDescriptors: [],
    },
    execute: async (_args, context) => {
      const emit = context.emit ?? (() => {});
      emit({ type: 'image_done', message: 'Image 1 of 2 is ready.', data: { done: 1, total: 2 } });
      // Not the ToolProgress shape, and data JSON cannot hold: both dropped.
      emit({ kind: 'nonsense' } as unknown as ToolProgressEvent);
      emit({ type: 'image_done', data: { size: 10n } });
      await Bun.sleep(1);
      emit({ type: 'image_done', message: 'Image 2 of 2 is ready.', data: { done: 2, total: 2 } });
      // After the call has ended: dropped.
      setTimeout(() => emit({ type: 'late', message: 'too late' }), 0);
      return { images: 2 };
    },
  });
  return registry;
}

describeEachDatabase('tool progress over the turn stream', (_kind, current) => {
  let app: TestApp;
  let alice: TestUser;
  beforeAll(async () => {
    app = startTestApp(current().database, {
      providers: createProviderRegistry({
        openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
      }),
      toolRegistry: createProgressRegistry(),
    });
    alice = await app.signUp();
  });
  afterAll(() => app.stop());

  test('a tool’s two reports stream in order between tool_call_completed and tool_result, and are not stored', async () => {
    fake.reset();
    const chat = (await (
      await app.fetch('/api/chats', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai:gpt-5' }),
        user: alice,
      })
    ).json()) as Chat;
    fake.enqueue('openai', callTool('count_images'), say('Both images are ready.'));
    const events = await readTurnEvents(
      await app.fetch(`/api/chats/${chat.id}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'Make two images.' }),
        user: alice,
      }),
    );
    expect(events.at(-1)).toEqual({
      type: 'done',
      status: 'completed',
      iterations: 2,
      usage: summedUsage(events),
    });
    const completed = events.find((event) => event.type === 'tool_call_completed') as Extract<
      TurnStreamEvent,
      { type: 'tool_call_completed' }
    >;
    const progress = events.filter((event) => event.type === 'tool_call_progress');
    expect(progress).toEqual([
      {
        type: 'tool_call_progress',
        toolCallId: completed.toolCallId,
        name: 'count_images',
        progress: {
          type: 'image_done',
          message: 'Image 1 of 2 is ready.',
          data: { done: 1, total: 2 },
        },
      },
      {
        type: 'tool_call_progress',
        toolCallId: completed.toolCallId,
        name: 'count_images',
        progress: {
          type: 'image_done',
          message: 'Image 2 of 2 is ready.',
          data: { done: 2, total: 2 },
        },
      },
    ]);
    const order = events
      .map((event) => event.type)
      .filter((type) =>
        ['tool_call_completed', 'tool_call_progress', 'tool_result'].includes(type),
      );
    expect(order).toEqual([
      'tool_call_completed',
      'tool_call_progress',
      'tool_call_progress',
      'tool_result',
    ]);
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      isError: false,
      content: '{"images":2}',
    });

    const response = await app.fetch(`/api/chats/${chat.id}/messages`, { user: alice });
    const { messages } = (await response.json()) as { messages: ChatMessage[] };
    expect(messages.map((message) => message.parts.map((part) => part.type))).toEqual([
      ['text'],
      ['tool_call'],
      ['tool_result'],
      ['text'],
    ]);
    expect(JSON.stringify(messages)).not.toContain('Image 1 of 2');
  });
});
