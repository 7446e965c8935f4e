/**
 * A chat may switch providers between turns: a turn run by one adapter (with a
 * tool round trip) is replayed as history to every other adapter, which must
 * send the call and its result in its own format, paired by its own ids.
 */
import { describe, expect, test } from 'bun:test';
import type { ConversationMessage } from '@mango/shared';
import { runChatTurn } from '../../../../src/services/chat';
import { PROVIDER_IDS } from '../../../../src/services/providers/provider-registry';
import type { ProviderId } from '../../../../src/services/providers/spec';
import {
  callTool,
  type FakeProviderServer,
  say,
  useFakeProviderServer,
} from '../../../support/fake-provider';
import { createProviderForFake, MODEL_FOR } from '../../../support/provider-factories';
import { createScenarioRegistry, createScenarioToolset } from '../../../support/scenario-tools';

/** Recorded request bodies are arbitrary provider JSON. */
// biome-ignore lint/suspicious/noExplicitAny: read as recorded, checked by the assertions.
type Json = any;
const fake = useFakeProviderServer();

interface Exchange {
  callId?: string;
  resultId?: string;
  name: string;
  args: unknown;
  result: string;
}

/** Reads the tool calls and results a request replays, in each provider's format. */
function replayedExchanges(id: ProviderId, body: Json): Exchange[] {
  if (id === 'openai') {
    const outputs = body.input.filter((item: Json) => item.type === 'function_call_output');
    return body.input
      .filter((item: Json) => item.type === 'function_call')
      .map((call: Json, index: number) => ({
        callId: call.call_id,
        resultId: outputs[index]?.call_id,
        name: call.name,
        args: JSON.parse(call.arguments),
        result: outputs[index]?.output,
      }));
  }
  if (id === 'openai-compatible') {
    const tools = body.messages.filter((message: Json) => message.role === 'tool');
    return body.messages
      .flatMap((message: Json) => message.tool_calls ?? [])
      .map((call: Json, index: number) => ({
        callId: call.id,
        resultId: tools[index]?.tool_call_id,
        name: call.function.name,
        args: JSON.parse(call.function.arguments),
        result: tools[index]?.content,
      }));
  }
  if (id === 'anthropic') {
    const blocks = body.messages.flatMap((message: Json) =>
      Array.isArray(message.content) ? message.content : [],
    );
    const results = blocks.filter((block: Json) => block.type === 'tool_result');
    return blocks
      .filter((block: Json) => block.type === 'tool_use')
      .map((use: Json, index: number) => ({
        callId: use.id,
        resultId: results[index]?.tool_use_id,
        name: use.name,
        args: use.input,
        result: results[index]?.content,
      }));
  }
  const parts = body.contents.flatMap((content: Json) => content.parts);
  const responses = parts
    .filter((part: Json) => part.functionResponse)
    .map((part: Json) => part.functionResponse);
  return parts
    .filter((part: Json) => part.functionCall)
    .map((part: Json, index: number) => ({
      callId: part.functionCall.id,
      resultId: responses[index]?.id,
      name: part.functionCall.name,
      args: part.functionCall.args,
      result: JSON.stringify(responses[index]?.response.output),
    }));
}

async function turn(
  id: ProviderId,
  history: ConversationMessage[],
  turns: Parameters<FakeProviderServer['enqueue']>[1][],
) {
  fake.reset();
  fake.enqueue(id, ...turns);
  const { registry } = createScenarioRegistry();
  const result = await runChatTurn({
    provider: createProviderForFake(id, fake),
    model: MODEL_FOR[id],
    history,
    toolset: await createScenarioToolset(registry),
    onEvent: () => {},
  });
  return { result, requests: fake.requests(id) };
}

describe('switching providers between turns', () => {
  for (const first of PROVIDER_IDS) {
    for (const second of PROVIDER_IDS.filter((id) => id !== first)) {
      test(`a turn run by ${first} replays to ${second}`, async () => {
        const history: ConversationMessage[] = [
          { role: 'user', parts: [{ type: 'text', text: 'echo hi' }] },
        ];
        const one = await turn(first, history, [
          callTool('echo', { text: 'hi' }),
          say('It said hi.'),
        ]);
        expect(one.result.status).toBe('completed');
        const next: ConversationMessage[] = [
          ...history,
          ...one.result.messages,
          { role: 'user', parts: [{ type: 'text', text: 'again?' }] },
        ];
        const two = await turn(second, next, [say('Sure.')]);
        expect(two.result.status).toBe('completed');
        const [exchange] = replayedExchanges(second, two.requests[0]?.body);
        expect(exchange).toMatchObject({
          name: 'echo',
          args: { text: 'hi' },
          result: '{"echo":"hi"}',
        });
        expect(exchange?.resultId).toBe(exchange?.callId);
        expect(JSON.stringify(two.requests[0]?.body)).toContain('It said hi.');
      });
    }
  }
});
