import { describe, expect, test } from 'bun:test';
import { createOpenAICompatibleProvider } from '../../../../../src/services/providers/openai-compatible/openai-compatible-provider';
import type { ProviderRequest } from '../../../../../src/services/providers/spec';
import { collectEvents, completedCalls, textOf } from '../../../../support/collect-events';
import { useFakeProviderServer } from '../../../../support/fake-provider';
import { waitUntil } from '../../../../support/wait-until';

const fake = useFakeProviderServer();

const provider = () =>
  createOpenAICompatibleProvider({ baseURL: fake.baseUrl('openai-compatible'), maxRetries: 0 });
const request = (overrides: Partial<ProviderRequest> = {}): ProviderRequest => ({
  model: 'llama3.1',
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
  tools: [{ name: 'one', description: 'One.', parameters: { type: 'object', properties: {} } }],
  ...overrides,
});
const twoCalls = {
  content: [
    { type: 'tool_call' as const, name: 'one', arguments: { x: 1 } },
    { type: 'tool_call' as const, name: 'one', arguments: { x: 2 } },
  ],
};

describe('OpenAI-compatible adapter quirks', () => {
  test('text arrives as deltas and the request carries stream options and tools', async () => {
    fake.enqueue('openai-compatible', {
      content: [{ type: 'text', text: 'Olá, mundo — ✓' }],
      splitWrites: true,
    });
    const events = await collectEvents(provider().streamTurn(request({ system: 'Be brief.' })));
    expect(textOf(events)).toBe('Olá, mundo — ✓');
    expect(events.at(-1)).toEqual({
      type: 'turn_completed',
      finishReason: 'stop',
      rawFinishReason: 'stop',
    });
    expect(events.find((event) => event.type === 'usage')).toMatchObject({
      inputTokens: 11,
      outputTokens: 7,
    });
    const body = fake.requests('openai-compatible')[0]?.body;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(body.tools[0]).toMatchObject({ type: 'function', function: { name: 'one' } });
    expect(body.tool_choice).toBe('auto');
  });

  test('tool-call deltas without an index', async () => {
    fake.enqueue('openai-compatible', {
      ...twoCalls,
      chatCompletions: { omitIndex: true },
      fragmentSize: 2,
    });
    const calls = completedCalls(await collectEvents(provider().streamTurn(request())));
    expect(calls.map((call) => call.arguments)).toEqual(['{"x":1}', '{"x":2}']);
  });

  test('index 0 reused for a different call id', async () => {
    fake.enqueue('openai-compatible', {
      ...twoCalls,
      chatCompletions: { reuseIndex: true },
      fragmentSize: 3,
    });
    const calls = completedCalls(await collectEvents(provider().streamTurn(request())));
    expect(calls.map((call) => call.arguments)).toEqual(['{"x":1}', '{"x":2}']);
    expect(new Set(calls.map((call) => call.toolCallId)).size).toBe(2);
  });

  test('empty id and name on continuation deltas', async () => {
    fake.enqueue('openai-compatible', {
      ...twoCalls,
      chatCompletions: { emptyContinuationFields: true, interleave: true },
      fragmentSize: 1,
    });
    const calls = completedCalls(await collectEvents(provider().streamTurn(request())));
    expect(calls).toHaveLength(2);
    expect(calls.map((call) => [call.name, call.arguments])).toEqual([
      ['one', '{"x":1}'],
      ['one', '{"x":2}'],
    ]);
  });

  test('finish_reason "stop" with tool calls still reports the calls', async () => {
    fake.enqueue('openai-compatible', { ...twoCalls, finishReason: 'stop' });
    const events = await collectEvents(provider().streamTurn(request()));
    expect(completedCalls(events)).toHaveLength(2);
    expect(events.at(-1)).toEqual({
      type: 'turn_completed',
      finishReason: 'tool_calls',
      rawFinishReason: 'stop',
    });
  });

  test('calls with no ids at all get unique synthesised ids', async () => {
    fake.enqueue('openai-compatible', { ...twoCalls, chatCompletions: { omitIds: true } });
    const calls = completedCalls(await collectEvents(provider().streamTurn(request())));
    expect(calls).toHaveLength(2);
    expect(calls[0]?.toolCallId).not.toBe(calls[1]?.toolCallId);
  });

  test('a chunk that is valid JSON but the wrong shape is an invalid_chunk error, not a crash', async () => {
    fake.enqueue('openai-compatible', {
      content: [{ type: 'text', text: 'abc' }],
      fault: { type: 'invalid_chunk', at: 2 },
    });
    const events = await collectEvents(provider().streamTurn(request()));
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'invalid_chunk', retryable: true });
  });

  test('a chunk that is not JSON is an invalid_chunk error', async () => {
    fake.enqueue('openai-compatible', {
      content: [{ type: 'text', text: 'abc' }],
      fault: { type: 'malformed_chunk' },
    });
    const events = await collectEvents(provider().streamTurn(request()));
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'invalid_chunk', retryable: true });
  });

  test('HTTP 500 is a retryable provider_unavailable error with the status', async () => {
    fake.enqueue('openai-compatible', { fault: { type: 'http_error', status: 500 } });
    const events = await collectEvents(provider().streamTurn(request()));
    expect(events).toEqual([
      expect.objectContaining({
        type: 'error',
        code: 'provider_unavailable',
        retryable: true,
        status: 500,
      }),
    ]);
  });

  test('a cancelled hanging stream ends with an aborted error and closes the connection', async () => {
    fake.enqueue('openai-compatible', {
      content: [{ type: 'text', text: 'abcdefghijkl' }],
      fault: { type: 'hang', afterFrames: 2 },
    });
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const event of provider().streamTurn(request({ signal: controller.signal }))) {
      seen.push(event.type);
      if (event.type === 'text_delta') controller.abort();
    }
    expect(seen.at(-1)).toBe('error');
    expect(await waitUntil(() => fake.openConnections() === 0)).toBe(true);
  });
});
