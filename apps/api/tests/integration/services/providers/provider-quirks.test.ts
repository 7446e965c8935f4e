/** The provider quirks docs/chat-turns.md#the-provider-contract assigns to the Gemini and Anthropic adapters. */
import { describe, expect, test } from 'bun:test';
import type { ConversationMessage } from '@mango/shared';
import { runChatTurn } from '../../../../src/services/chat';
import { STAND_IN_THOUGHT_SIGNATURE } from '../../../../src/services/providers/gemini/convert-messages';
import type { ProviderRequest, ToolDefinition } from '../../../../src/services/providers/spec';
import { collectEvents, completedCalls } from '../../../support/collect-events';
import { type FakeTurn, say, useFakeProviderServer } from '../../../support/fake-provider';
import { createProviderForFake, MODEL_FOR } from '../../../support/provider-factories';
import { createScenarioRegistry, createScenarioToolset } from '../../../support/scenario-tools';

const fake = useFakeProviderServer();

const user = (text: string): ConversationMessage => ({
  role: 'user',
  parts: [{ type: 'text', text }],
});
const echoTool: ToolDefinition = {
  name: 'echo',
  description: 'Echoes.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

async function loopOnce(
  id: 'gemini' | 'anthropic',
  turns: FakeTurn[],
  history: ConversationMessage[] = [user('go')],
) {
  fake.enqueue(id, ...turns);
  const { registry, probe } = createScenarioRegistry();
  const result = await runChatTurn({
    provider: createProviderForFake(id, fake),
    model: MODEL_FOR[id],
    history,
    toolset: await createScenarioToolset(registry),
    onEvent: () => {},
  });
  return { result, probe, requests: fake.requests(id) };
}

describe('Gemini adapter quirks', () => {
  const twoEchoes = (extra: Partial<FakeTurn> = {}): FakeTurn => ({
    content: [
      { type: 'tool_call', name: 'echo', arguments: { text: 'first' } },
      { type: 'tool_call', name: 'echo', arguments: { text: 'second' } },
    ],
    ...extra,
  });

  test('calls without ids, two to the same function in one step, get distinct ids and both run', async () => {
    for (const oneCallPerChunk of [false, true]) {
      fake.reset();
      const { result, probe } = await loopOnce('gemini', [
        twoEchoes({ gemini: { oneCallPerChunk } }),
        say('ok'),
      ]);
      expect(probe.echoCalls).toEqual([{ text: 'first' }, { text: 'second' }]);
      const results = result.messages.flatMap((message) =>
        message.role === 'tool' ? message.parts : [],
      );
      expect(results.map((part) => part.content)).toEqual([
        '{"echo":"first"}',
        '{"echo":"second"}',
      ]);
      expect(new Set(results.map((part) => part.toolCallId)).size).toBe(2);
    }
  });

  test('ids Gemini sends are echoed in functionCall and functionResponse', async () => {
    const { requests } = await loopOnce('gemini', [
      {
        content: [{ type: 'tool_call', name: 'echo', arguments: { text: 'a' }, id: 'gem-1' }],
        gemini: { includeIds: true },
      },
      say('ok'),
    ]);
    const contents = requests[1]?.body.contents;
    expect(contents[1].parts[0].functionCall).toEqual({
      name: 'echo',
      args: { text: 'a' },
      id: 'gem-1',
    });
    expect(contents[2].parts[0].functionResponse).toEqual({
      name: 'echo',
      id: 'gem-1',
      response: { output: { echo: 'a' } },
    });
  });

  test('parallel calls are replayed as one model turn with their thought signature', async () => {
    const { requests } = await loopOnce('gemini', [
      twoEchoes({ gemini: { thoughtSignature: 'sig-A', oneCallPerChunk: true } }),
      say('ok'),
    ]);
    const contents = requests[1]?.body.contents;
    expect(contents).toHaveLength(3);
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        { functionCall: { name: 'echo', args: { text: 'first' } }, thoughtSignature: 'sig-A' },
        { functionCall: { name: 'echo', args: { text: 'second' } } },
      ],
    });
    expect(contents[2].role).toBe('user');
    expect(contents[2].parts).toHaveLength(2);
  });

  test('calls another provider made are replayed with the stand-in signature and without foreign ids', async () => {
    const history: ConversationMessage[] = [
      user('go'),
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            toolCallId: 'call_abc',
            name: 'echo',
            arguments: '{"text":"x"}',
            status: 'succeeded',
            durationMs: 1,
          },
          {
            type: 'tool_call',
            toolCallId: 'call_def',
            name: 'echo',
            arguments: '{"text":"y"}',
            status: 'succeeded',
            durationMs: 1,
          },
        ],
      },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            toolCallId: 'call_abc',
            name: 'echo',
            content: '{"echo":"x"}',
            isError: false,
          },
          {
            type: 'tool_result',
            toolCallId: 'call_def',
            name: 'echo',
            content: '{"echo":"y"}',
            isError: false,
          },
        ],
      },
      user('and now?'),
    ];
    fake.enqueue('gemini', say('done'));
    await collectEvents(
      createProviderForFake('gemini', fake).streamTurn({
        model: 'gemini-2.5-flash',
        messages: history,
        tools: [echoTool],
      }),
    );
    const contents = fake.requests('gemini')[0]?.body.contents;
    expect(contents[1].parts[0]).toEqual({
      functionCall: { name: 'echo', args: { text: 'x' } },
      thoughtSignature: STAND_IN_THOUGHT_SIGNATURE,
    });
    expect(contents[1].parts[1]).toEqual({ functionCall: { name: 'echo', args: { text: 'y' } } });
    // The results and the next user text share one user turn.
    expect(contents[2].parts.map((part: Record<string, unknown>) => Object.keys(part)[0])).toEqual([
      'functionResponse',
      'functionResponse',
      'text',
    ]);
  });
});

describe('Anthropic adapter quirks', () => {
  test('a no-argument tool ("" input) completes as {} and runs', async () => {
    fake.enqueue('anthropic', { content: [{ type: 'tool_call', name: 'no_args', arguments: '' }] });
    const request: ProviderRequest = {
      model: 'claude-sonnet-4-5',
      messages: [user('ping')],
      tools: [echoTool],
    };
    const events = await collectEvents(
      createProviderForFake('anthropic', fake).streamTurn(request),
    );
    expect(completedCalls(events)).toEqual([
      expect.objectContaining({ name: 'no_args', arguments: '{}' }),
    ]);
    expect(events.filter((event) => event.type === 'tool_call_arguments_delta')).toEqual([]);

    fake.reset();
    const { result, requests } = await loopOnce('anthropic', [
      { content: [{ type: 'tool_call', name: 'no_args', arguments: '' }] },
      say('pong!'),
    ]);
    const [toolResult] = result.messages.flatMap((message) =>
      message.role === 'tool' ? message.parts : [],
    );
    expect(toolResult).toMatchObject({ isError: false, content: '{"pong":true,"received":{}}' });
    expect(requests[1]?.body.messages[1].content[0]).toMatchObject({
      type: 'tool_use',
      name: 'no_args',
      input: {},
    });
  });

  test('results come first in the next user message, text after them', async () => {
    const history: ConversationMessage[] = [
      user('go'),
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Checking.' },
          {
            type: 'tool_call',
            toolCallId: 'functions.echo:0',
            name: 'echo',
            arguments: '{"text":"x"}',
            status: 'aborted',
            durationMs: 0,
          },
        ],
      },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            toolCallId: 'functions.echo:0',
            name: 'echo',
            content: '{"error":{"code":"aborted","message":"cancelled"}}',
            isError: true,
          },
        ],
      },
      user('try again'),
    ];
    fake.enqueue('anthropic', say('ok'));
    await collectEvents(
      createProviderForFake('anthropic', fake).streamTurn({
        model: 'claude-sonnet-4-5',
        messages: history,
        tools: [echoTool],
      }),
    );
    const messages = fake.requests('anthropic')[0]?.body.messages;
    expect(messages).toHaveLength(3);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        // Ids from other providers are made acceptable to Anthropic, the same way on both sides.
        { type: 'tool_use', id: 'functions_echo_0', name: 'echo', input: { text: 'x' } },
      ],
    });
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'functions_echo_0',
          content: '{"error":{"code":"aborted","message":"cancelled"}}',
          is_error: true,
        },
        { type: 'text', text: 'try again' },
      ],
    });
  });

  test('tools stay declared when history has tool blocks, even with no tool enabled', async () => {
    const history: ConversationMessage[] = [
      user('go'),
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            toolCallId: 'toolu_1',
            name: 'echo',
            arguments: '{"text":"x"}',
            status: 'succeeded',
            durationMs: 1,
          },
        ],
      },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            toolCallId: 'toolu_1',
            name: 'echo',
            content: '{"echo":"x"}',
            isError: false,
          },
        ],
      },
      user('thanks'),
    ];
    fake.enqueue('anthropic', say('welcome'));
    await collectEvents(
      createProviderForFake('anthropic', fake).streamTurn({
        model: 'claude-sonnet-4-5',
        messages: history,
        tools: [],
      }),
    );
    const body = fake.requests('anthropic')[0]?.body;
    expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual(['echo']);
    expect(body.tool_choice).toEqual({ type: 'none' });
  });
});
