/**
 * Streams kept as fixture files (`__fixtures__/`, in each provider's documented
 * wire format with the details real servers add: obfuscation padding, pings,
 * whole calls without an index, empty continuation fields, thought
 * signatures) replayed through each official SDK and the turn loop: what the
 * adapter parses, and the request body it sends back.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConversationMessage, TurnStreamEvent } from '@mango/shared';
import { runChatTurn } from '../../../../src/services/chat';
import type { ProviderId } from '../../../../src/services/providers/spec';
import { say, useFakeProviderServer } from '../../../support/fake-provider';
import { createProviderForFake, MODEL_FOR } from '../../../support/provider-factories';
import { createScenarioRegistry, createScenarioToolset } from '../../../support/scenario-tools';

const fake = useFakeProviderServer();

const fixture = (name: string) => readFileSync(join(import.meta.dir, '__fixtures__', name), 'utf8');

async function replay(id: ProviderId, name: string) {
  fake.enqueue(id, { raw: fixture(name) }, say('Done.'));
  const { registry, probe } = createScenarioRegistry();
  const events: TurnStreamEvent[] = [];
  const history: ConversationMessage[] = [{ role: 'user', parts: [{ type: 'text', text: 'go' }] }];
  const result = await runChatTurn({
    provider: createProviderForFake(id, fake),
    model: MODEL_FOR[id],
    history,
    toolset: await createScenarioToolset(registry),
    onEvent: (event) => events.push(event),
  });
  const calls = events.flatMap((event) => (event.type === 'tool_call_completed' ? [event] : []));
  return { result, events, calls, probe, followUp: fake.requests(id)[1]?.body };
}

describe('recorded provider streams', () => {
  test('OpenAI Responses: reasoning summary, a call with padded argument deltas, usage with details', async () => {
    const { events, calls, probe, followUp, result } = await replay(
      'openai',
      'openai-responses-reasoning-then-call.sse',
    );
    expect(
      events
        .filter((event) => event.type === 'reasoning_delta')
        .map((event) => (event as { delta: string }).delta)
        .join(''),
    ).toBe('**Reading the file** I should open it.');
    expect(calls).toEqual([
      {
        type: 'tool_call_completed',
        toolCallId: 'call_Xy7',
        name: 'echo',
        arguments: '{"text":"notes.txt"}',
      },
    ]);
    expect(events.find((event) => event.type === 'usage')).toEqual({
      type: 'usage',
      inputTokens: 120,
      outputTokens: 40,
      totalTokens: 160,
      reasoningTokens: 24,
      cachedInputTokens: 64,
    });
    expect(probe.echoCalls).toEqual([{ text: 'notes.txt' }]);
    expect(result.messages[0]?.parts[0]).toEqual({
      type: 'reasoning',
      text: '**Reading the file** I should open it.',
    });
    // Reasoning is kept but not resent; the call and its output are, by call_id, without item ids.
    expect(followUp.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'go' }] },
      {
        type: 'function_call',
        call_id: 'call_Xy7',
        name: 'echo',
        arguments: '{"text":"notes.txt"}',
      },
      { type: 'function_call_output', call_id: 'call_Xy7', output: '{"echo":"notes.txt"}' },
    ]);
    expect(followUp.store).toBe(false);
    expect(followUp.tools[0]).toMatchObject({ type: 'function', name: 'echo', strict: true });
  });

  test('Chat Completions (Ollama): whole calls without index, finish_reason stop', async () => {
    const { calls, probe, followUp, events } = await replay(
      'openai-compatible',
      'chat-completions-ollama-whole-call.sse',
    );
    expect(calls.map((call) => [call.toolCallId, call.arguments])).toEqual([
      ['call_a1b2c3d4', '{"text":"one"}'],
      ['call_e5f6g7h8', '{"text":"two"}'],
    ]);
    expect(events.find((event) => event.type === 'turn_completed')).toEqual({
      type: 'turn_completed',
      finishReason: 'tool_calls',
      rawFinishReason: 'stop',
    });
    expect(probe.echoCalls).toEqual([{ text: 'one' }, { text: 'two' }]);
    expect(followUp.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_a1b2c3d4', content: '{"echo":"one"}' },
      { role: 'tool', tool_call_id: 'call_e5f6g7h8', content: '{"echo":"two"}' },
    ]);
  });

  test('Chat Completions (Mistral): empty id and name on continuations, a split inside a key and an escape', async () => {
    const { calls, probe } = await replay(
      'openai-compatible',
      'chat-completions-empty-continuation.sse',
    );
    expect(calls).toEqual([
      {
        type: 'tool_call_completed',
        toolCallId: 'Ab3dE6gH9',
        name: 'echo',
        arguments: '{"text":"é\\"q"}',
      },
    ]);
    expect(probe.echoCalls).toEqual([{ text: 'é"q' }]);
  });

  test('Anthropic: text, a call after a ping, a no-argument call; results in one user message', async () => {
    const { calls, followUp, events } = await replay(
      'anthropic',
      'anthropic-text-then-tool-use.sse',
    );
    expect(calls.map((call) => [call.toolCallId, call.name, call.arguments])).toEqual([
      ['toolu_01A', 'echo', '{"text": "ab"}'],
      ['toolu_01B', 'no_args', '{}'],
    ]);
    expect(events.find((event) => event.type === 'usage')).toEqual({
      type: 'usage',
      inputTokens: 300,
      outputTokens: 61,
      totalTokens: 361,
      cachedInputTokens: 100,
    });
    expect(followUp.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'echo', input: { text: 'ab' } },
          { type: 'tool_use', id: 'toolu_01B', name: 'no_args', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: '{"echo":"ab"}' },
          { type: 'tool_result', tool_use_id: 'toolu_01B', content: '{"pong":true,"received":{}}' },
        ],
      },
    ]);
  });

  test('Gemini: parallel calls without ids in one chunk, the signature replayed on the first', async () => {
    const { calls, followUp, result } = await replay(
      'gemini',
      'gemini-parallel-calls-with-signature.sse',
    );
    expect(calls).toHaveLength(2);
    expect(calls[0]?.toolCallId).not.toBe(calls[1]?.toolCallId);
    expect(result.messages[0]?.parts[0]).toEqual({ type: 'text', text: 'I will echo both.' });
    expect(followUp.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { text: 'I will echo both.' },
          {
            functionCall: { name: 'echo', args: { text: 'first' } },
            thoughtSignature: 'CiQB0e2Kb2sig==',
          },
          { functionCall: { name: 'echo', args: { text: 'second' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'echo', response: { output: { echo: 'first' } } } },
          { functionResponse: { name: 'echo', response: { output: { echo: 'second' } } } },
        ],
      },
    ]);
  });
});
