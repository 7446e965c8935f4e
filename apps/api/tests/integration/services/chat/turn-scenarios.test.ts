/**
 * One scenario list, four adapters: each scenario runs the real turn loop
 * against the official SDK of each provider pointed at the fake provider
 * server, and checks both what the loop produced and what was sent back.
 */
import { describe, expect, test } from 'bun:test';
import type { ConversationMessage, ToolCallPart, TurnStreamEvent } from '@mango/shared';
import { runChatTurn } from '../../../../src/services/chat';
import { PROVIDER_IDS } from '../../../../src/services/providers/provider-registry';
import type { ProviderId } from '../../../../src/services/providers/spec';
import type { StoredToolSettings } from '../../../../src/services/tools/types';
import {
  callTool,
  type FakeTurn,
  say,
  useFakeProviderServer,
} from '../../../support/fake-provider';
import { createProviderForFake, MODEL_FOR } from '../../../support/provider-factories';
import {
  createScenarioRegistry,
  createScenarioToolset,
  type ScenarioToolProbe,
} from '../../../support/scenario-tools';
import { waitUntil } from '../../../support/wait-until';

/** Recorded request bodies are arbitrary provider JSON. */
// biome-ignore lint/suspicious/noExplicitAny: read as recorded, checked by the assertions.
type Json = any;
const fake = useFakeProviderServer();

interface ScenarioOptions {
  saved?: Record<string, StoredToolSettings>;
  maxIterations?: number;
  controller?: AbortController;
  onEvent?: (event: TurnStreamEvent) => void;
  prepare?: (probe: ScenarioToolProbe) => void;
}

async function runScenario(id: ProviderId, turns: FakeTurn[], options: ScenarioOptions = {}) {
  fake.enqueue(id, ...turns);
  const { registry, probe } = createScenarioRegistry();
  options.prepare?.(probe);
  const toolset = await createScenarioToolset(registry, options.saved);
  const events: TurnStreamEvent[] = [];
  const history: ConversationMessage[] = [
    { role: 'user', parts: [{ type: 'text', text: 'Please help.' }] },
  ];
  const result = await runChatTurn({
    provider: createProviderForFake(id, fake),
    model: MODEL_FOR[id],
    history,
    toolset,
    ...(options.maxIterations ? { maxIterations: options.maxIterations } : {}),
    ...(options.controller ? { signal: options.controller.signal } : {}),
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  return { result, events, probe, requests: fake.requests(id) };
}

const ofType = <T extends TurnStreamEvent['type']>(events: TurnStreamEvent[], type: T) =>
  events.filter((event): event is Extract<TurnStreamEvent, { type: T }> => event.type === type);
const toolCalls = (messages: ConversationMessage[]) =>
  messages.flatMap((message) =>
    message.role === 'assistant'
      ? message.parts.filter((part): part is ToolCallPart => part.type === 'tool_call')
      : [],
  );
const toolResults = (messages: ConversationMessage[]) =>
  messages.flatMap((message) => (message.role === 'tool' ? message.parts : []));
const textOf = (messages: ConversationMessage[]) =>
  messages
    .flatMap((message) =>
      message.role === 'assistant'
        ? message.parts.map((part) => (part.type === 'text' ? part.text : ''))
        : [],
    )
    .join('');

/** The tool names declared in a request, in each provider's format. */
function declaredTools(id: ProviderId, body: Json): string[] {
  if (id === 'openai') return (body.tools ?? []).map((tool: { name: string }) => tool.name);
  if (id === 'openai-compatible')
    return (body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
  if (id === 'anthropic') return (body.tools ?? []).map((tool: { name: string }) => tool.name);
  return (body.tools?.[0]?.functionDeclarations ?? []).map((tool: { name: string }) => tool.name);
}
function toolChoiceIsNone(id: ProviderId, body: Json): boolean {
  if (id === 'openai' || id === 'openai-compatible') return body.tool_choice === 'none';
  if (id === 'anthropic') return body.tool_choice?.type === 'none';
  return body.toolConfig?.functionCallingConfig?.mode === 'NONE';
}

interface Exchange {
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  content: string;
}

/** Asserts the follow-up request answers the calls in the provider's exact format and ids. */
function expectResultsSentBack(id: ProviderId, body: Json, exchanges: Exchange[]) {
  if (id === 'openai') {
    const calls = body.input.filter((item: { type?: string }) => item.type === 'function_call');
    const outputs = body.input.filter(
      (item: { type?: string }) => item.type === 'function_call_output',
    );
    expect(calls).toEqual(
      exchanges.map((call) => ({
        type: 'function_call',
        call_id: call.toolCallId,
        name: call.name,
        arguments: JSON.stringify(call.args),
      })),
    );
    expect(outputs).toEqual(
      exchanges.map((call) => ({
        type: 'function_call_output',
        call_id: call.toolCallId,
        output: call.content,
      })),
    );
  } else if (id === 'openai-compatible') {
    expect(body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: exchanges.map((call) => ({
          id: call.toolCallId,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        })),
      },
      ...exchanges.map((call) => ({
        role: 'tool',
        tool_call_id: call.toolCallId,
        content: call.content,
      })),
    ]);
  } else if (id === 'anthropic') {
    expect(body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: exchanges.map((call) => ({
          type: 'tool_use',
          id: call.toolCallId,
          name: call.name,
          input: call.args,
        })),
      },
      // Every result in ONE user message.
      {
        role: 'user',
        content: exchanges.map((call) => ({
          type: 'tool_result',
          tool_use_id: call.toolCallId,
          content: call.content,
          ...(call.content.startsWith('{"error"') ? { is_error: true } : {}),
        })),
      },
    ]);
  } else {
    expect(body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: exchanges.map((call) => ({ functionCall: { name: call.name, args: call.args } })),
      },
      {
        role: 'user',
        parts: exchanges.map((call) => {
          const value = JSON.parse(call.content);
          return {
            functionResponse: {
              name: call.name,
              response: value.error ? { error: value } : { output: value },
            },
          };
        }),
      },
    ]);
  }
}

describe.each(PROVIDER_IDS)('turn scenarios through the %s adapter', (id) => {
  test('text only: one model call, streamed text, done', async () => {
    const { result, events, requests } = await runScenario(id, [say('Hello from the model.')]);
    expect(requests).toHaveLength(1);
    expect(declaredTools(id, requests[0]?.body)).toContain('echo');
    expect(
      ofType(events, 'text_delta')
        .map((event) => event.delta)
        .join(''),
    ).toBe('Hello from the model.');
    expect(events.at(-1)).toEqual({ type: 'done', status: 'completed', iterations: 1 });
    // The assistant message keeps what its model call used, as the usage event said.
    const [usage] = ofType(events, 'usage');
    expect(usage).toBeDefined();
    const { type: _type, ...reported } = usage as Extract<TurnStreamEvent, { type: 'usage' }>;
    expect(result.messages).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'text', text: 'Hello from the model.' }],
        usage: reported,
      },
    ]);
  });

  test('one tool call round trip: the result goes back in the provider format with the same ids', async () => {
    const { result, events, requests, probe } = await runScenario(id, [
      callTool('echo', { text: 'hi' }),
      say('It said hi.'),
    ]);
    expect(requests).toHaveLength(2);
    expect(probe.echoCalls).toEqual([{ text: 'hi' }]);
    const [call] = ofType(events, 'tool_call_completed');
    expect(call?.name).toBe('echo');
    const [toolResult] = ofType(events, 'tool_result');
    expect(toolResult).toMatchObject({
      toolCallId: call?.toolCallId,
      name: 'echo',
      content: '{"echo":"hi"}',
      isError: false,
    });
    expectResultsSentBack(id, requests[1]?.body, [
      {
        toolCallId: call?.toolCallId as string,
        name: 'echo',
        args: { text: 'hi' },
        content: '{"echo":"hi"}',
      },
    ]);
    expect(toolCalls(result.messages)).toEqual([
      expect.objectContaining({
        toolCallId: call?.toolCallId,
        name: 'echo',
        arguments: '{"text":"hi"}',
        status: 'succeeded',
      }),
    ]);
    expect(textOf(result.messages)).toBe('It said hi.');
    expect(events.at(-1)).toEqual({ type: 'done', status: 'completed', iterations: 2 });
  });

  test('parallel calls run concurrently and all results go back together', async () => {
    const parallel: FakeTurn = {
      content: [
        { type: 'tool_call', name: 'barrier', arguments: { text: 'a' } },
        { type: 'tool_call', name: 'barrier', arguments: { text: 'b' } },
      ],
    };
    const { result, events, requests } = await runScenario(id, [parallel, say('Both met.')]);
    const calls = ofType(events, 'tool_call_completed');
    expect(calls).toHaveLength(2);
    expect(new Set(calls.map((call) => call.toolCallId)).size).toBe(2);
    expect(toolResults(result.messages).map((part) => [part.content, part.isError])).toEqual([
      ['{"met":"a"}', false],
      ['{"met":"b"}', false],
    ]);
    expectResultsSentBack(id, requests[1]?.body, [
      {
        toolCallId: calls[0]?.toolCallId as string,
        name: 'barrier',
        args: { text: 'a' },
        content: '{"met":"a"}',
      },
      {
        toolCallId: calls[1]?.toolCallId as string,
        name: 'barrier',
        args: { text: 'b' },
        content: '{"met":"b"}',
      },
    ]);
  });

  test('a tool that fails is answered with an error result and the turn goes on', async () => {
    const { result, events, requests } = await runScenario(id, [
      callTool('fail_always', { text: 'x' }),
      say('Sorry.'),
    ]);
    const [toolResult] = ofType(events, 'tool_result');
    expect(toolResult).toMatchObject({ isError: true, errorCode: 'execution_failed' });
    expect(toolResult?.content).toContain('The disk is on fire');
    expect(toolCalls(result.messages)[0]).toMatchObject({
      status: 'failed',
      errorCode: 'execution_failed',
    });
    expect(requests).toHaveLength(2);
    expect(JSON.stringify(requests[1]?.body)).toContain('The disk is on fire');
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  test('an unknown tool is answered with unknown_tool', async () => {
    const { events, requests } = await runScenario(id, [
      callTool('no_such_tool', { text: 'x' }),
      say('Ok.'),
    ]);
    expect(ofType(events, 'tool_result')[0]).toMatchObject({
      name: 'no_such_tool',
      isError: true,
      errorCode: 'unknown_tool',
    });
    expect(JSON.stringify(requests[1]?.body)).toContain('unknown_tool');
  });

  test('invalid argument JSON is not executed and is answered with validation_failed naming the parser error', async () => {
    const { result, events, probe, requests } = await runScenario(id, [
      callTool('echo', '{"text": "hi"'),
      say('Retrying later.'),
    ]);
    expect(probe.echoCalls).toEqual([]);
    const [toolResult] = ofType(events, 'tool_result');
    expect(toolResult).toMatchObject({ isError: true, errorCode: 'validation_failed' });
    expect(toolResult?.content).toContain('not valid JSON');
    expect(toolCalls(result.messages)[0]).toMatchObject({
      arguments: '{"text": "hi"',
      status: 'failed',
      errorCode: 'validation_failed',
    });
    // The broken arguments are never replayed where the provider needs an object.
    const replay = JSON.stringify(requests[1]?.body);
    if (id === 'anthropic') expect(requests[1]?.body.messages[1].content[0].input).toEqual({});
    if (id === 'gemini')
      expect(requests[1]?.body.contents[1].parts[0].functionCall.args).toEqual({});
    expect(replay).toContain('validation_failed');
  });

  test('a disabled tool is not declared, and a call to it anyway is refused with tool_disabled', async () => {
    const { events, requests } = await runScenario(
      id,
      [callTool('secret_tool', { text: 'x' }), say('Cannot.')],
      {
        saved: { secret_tool: { enabled: false } },
      },
    );
    expect(declaredTools(id, requests[0]?.body)).not.toContain('secret_tool');
    expect(declaredTools(id, requests[0]?.body)).toContain('echo');
    expect(ofType(events, 'tool_result')[0]).toMatchObject({
      isError: true,
      errorCode: 'tool_disabled',
    });
  });

  test('a result that cannot be serialised becomes an error result', async () => {
    const { events } = await runScenario(id, [callTool('bad_result', { text: 'x' }), say('Hm.')]);
    const [toolResult] = ofType(events, 'tool_result');
    expect(toolResult).toMatchObject({ isError: true, errorCode: 'execution_failed' });
    expect(toolResult?.content).toContain('could not be serialised');
  });

  test('cancel during a running tool aborts it and answers every unanswered call', async () => {
    const controller = new AbortController();
    const both: FakeTurn = {
      content: [
        { type: 'tool_call', name: 'slow', arguments: { text: 'x' } },
        { type: 'tool_call', name: 'echo', arguments: { text: 'y' } },
      ],
    };
    const { result, events, probe, requests } = await runScenario(
      id,
      [both, say('never requested')],
      {
        controller,
        prepare: (probe) => void probe.slowStarted.then(() => controller.abort()),
      },
    );
    expect(probe.slowAbortReason).toMatchObject({ code: 'aborted' });
    expect(result.status).toBe('cancelled');
    expect(requests).toHaveLength(1);
    const slow = ofType(events, 'tool_result').find((event) => event.name === 'slow');
    expect(slow).toMatchObject({ isError: true, errorCode: 'aborted' });
    const calls = toolCalls(result.messages);
    expect(calls.find((call) => call.name === 'slow')).toMatchObject({
      status: 'aborted',
      errorCode: 'aborted',
    });
    // Every call has exactly one result, so the conversation can continue.
    expect(
      toolResults(result.messages)
        .map((part) => part.toolCallId)
        .sort(),
    ).toEqual(calls.map((call) => call.toolCallId).sort());
    expect(events.at(-1)).toEqual({ type: 'done', status: 'cancelled', iterations: 1 });
  });

  test('cancel while the provider is streaming aborts the request and keeps the text', async () => {
    const controller = new AbortController();
    const hanging: FakeTurn = {
      content: [{ type: 'text', text: 'Thinking about it' }],
      fragmentSize: 4,
      fault: { type: 'hang', afterFrames: 5 },
    };
    const { result, events } = await runScenario(id, [hanging], {
      controller,
      onEvent: (event) => {
        if (event.type === 'text_delta') controller.abort();
      },
    });
    expect(result.status).toBe('cancelled');
    expect(ofType(events, 'error')).toEqual([]);
    expect(textOf(result.messages).length).toBeGreaterThan(0);
    expect(await waitUntil(() => fake.openConnections() === 0)).toBe(true);
  });

  test('the iteration limit forces a final answer with tools declared and tool_choice none', async () => {
    const { result, events, requests } = await runScenario(
      id,
      [
        callTool('echo', { text: '1' }),
        callTool('echo', { text: '2' }),
        say('Here is what I have.'),
      ],
      { maxIterations: 2 },
    );
    expect(requests).toHaveLength(3);
    expect(toolChoiceIsNone(id, requests[1]?.body)).toBe(false);
    expect(toolChoiceIsNone(id, requests[2]?.body)).toBe(true);
    expect(declaredTools(id, requests[2]?.body)).toContain('echo');
    expect(ofType(events, 'iteration_limit')).toEqual([
      expect.objectContaining({ maxIterations: 2 }),
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', status: 'iteration_limit', iterations: 3 });
    expect(result.status).toBe('iteration_limit');
    expect(textOf(result.messages)).toBe('Here is what I have.');
    expect(toolResults(result.messages)).toHaveLength(2);
  });

  test('HTTP 429 ends the turn with a retryable rate_limited error', async () => {
    const { result, events } = await runScenario(id, [
      { fault: { type: 'http_error', status: 429, retryAfterSeconds: 1 } },
    ]);
    expect(ofType(events, 'error')).toEqual([
      expect.objectContaining({ code: 'rate_limited', retryable: true, status: 429 }),
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', status: 'error', iterations: 1 });
    expect(result).toMatchObject({
      status: 'error',
      messages: [],
      error: { code: 'rate_limited' },
    });
  });

  test('HTTP 500 after a tool round ends the turn with a retryable error and keeps the round', async () => {
    const { result, events } = await runScenario(id, [
      callTool('echo', { text: 'kept' }),
      { fault: { type: 'http_error', status: 500 } },
    ]);
    expect(ofType(events, 'error')).toEqual([
      expect.objectContaining({ code: 'provider_unavailable', retryable: true, status: 500 }),
    ]);
    expect(toolResults(result.messages)).toEqual([
      expect.objectContaining({ content: '{"echo":"kept"}', isError: false }),
    ]);
    expect(result.status).toBe('error');
  });

  test('a stream cut in the middle of a tool call ends the turn with a retryable error, keeping what arrived', async () => {
    let seen: () => void = () => {};
    const delivered = new Promise<void>((resolve) => {
      seen = resolve;
    });
    // Gemini sends whole calls, so for it the cut lands inside the frame carrying the call:
    // wait until all the text before it has arrived.
    let received = '';
    const arrived = (event: TurnStreamEvent) => {
      if (event.type === 'text_delta') received += event.delta;
      return id === 'gemini' ? received === 'Let me look.' : event.type === 'tool_call_started';
    };
    const cut: FakeTurn = {
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_call', name: 'echo', arguments: { text: 'a long argument' } },
      ],
      fault: { type: 'cut', at: 'mid_tool_call', when: delivered },
    };
    const { result, events, probe } = await runScenario(id, [cut], {
      onEvent: (event) => {
        if (arrived(event)) seen();
      },
    });
    expect(ofType(events, 'error')).toEqual([
      expect.objectContaining({ code: 'stream_interrupted', retryable: true }),
    ]);
    expect(result.status).toBe('error');
    expect(probe.echoCalls).toEqual([]);
    expect(textOf(result.messages)).toBe('Let me look.');
    const calls = toolCalls(result.messages);
    if (id !== 'gemini')
      expect(calls).toEqual([expect.objectContaining({ name: 'echo', status: 'aborted' })]);
    expect(toolResults(result.messages).map((part) => part.toolCallId)).toEqual(
      calls.map((call) => call.toolCallId),
    );
    expect(events.at(-1)).toEqual({ type: 'done', status: 'error', iterations: 1 });
  });

  test('a malformed chunk ends the turn with invalid_chunk instead of crashing', async () => {
    const { events } = await runScenario(id, [
      { content: [{ type: 'text', text: 'abc' }], fault: { type: 'malformed_chunk' } },
    ]);
    expect(ofType(events, 'error')).toEqual([
      expect.objectContaining({ code: 'invalid_chunk', retryable: true }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
  });
});
