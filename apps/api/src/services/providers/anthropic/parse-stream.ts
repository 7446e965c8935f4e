/**
 * An Anthropic Messages stream → contract events. A `tool_use` block start is
 * the call's start, `input_json_delta` fragments its arguments, the block stop
 * its completion; a tool without arguments streams one empty fragment, which
 * completes as `{}`. `message_stop` ends the call; a stream that stops before
 * it was interrupted. `event: error` frames are raised by the SDK and
 * classified like HTTP errors.
 */
import type { ProviderStreamEvent } from '@mango/shared';
import { streamStoppedEvent, toProviderErrorEvent } from '../shared/provider-stream-error';
import {
  type AnthropicBlockDelta,
  type AnthropicBlockStart,
  type AnthropicBlockStop,
  type AnthropicDeltaFields,
  type AnthropicMessageDelta,
  type AnthropicMessageStart,
  validateAnthropicEvent,
} from './event-schemas';
import { mapAnthropicStopReason } from './map-finish';

interface OpenToolUse {
  toolCallId: string;
  name: string;
  arguments: string;
}

export async function* parseAnthropicStream(
  events: AsyncIterable<unknown>,
  providerLabel: string,
  signal?: AbortSignal,
): AsyncGenerator<ProviderStreamEvent> {
  const toolUses = new Map<number, OpenToolUse>();
  let inputTokens = 0;
  let cachedInputTokens: number | undefined;
  let outputTokens = 0;
  let stopReason: string | null | undefined;
  let completedCalls = 0;
  try {
    for await (const event of events) {
      const type = validateAnthropicEvent(event);
      if (type === 'message_start') {
        const usage = (event as AnthropicMessageStart).message.usage;
        inputTokens = usage?.input_tokens ?? 0;
        outputTokens = usage?.output_tokens ?? 0;
        if (typeof usage?.cache_read_input_tokens === 'number')
          cachedInputTokens = usage.cache_read_input_tokens;
      } else if (type === 'content_block_start') {
        const { index, content_block: block } = event as AnthropicBlockStart;
        if (block.type !== 'tool_use') continue;
        const toolCallId = block.id ?? '';
        const name = block.name ?? '';
        // The block's placeholder `input: {}` is ignored: the arguments are the fragments that follow.
        toolUses.set(index, { toolCallId, name, arguments: '' });
        yield { type: 'tool_call_started', toolCallId, name };
      } else if (type === 'content_block_delta') {
        const { index, delta } = event as AnthropicBlockDelta;
        const fields = delta as AnthropicDeltaFields;
        if (delta.type === 'text_delta' && fields.text)
          yield { type: 'text_delta', delta: fields.text };
        else if (delta.type === 'thinking_delta' && fields.thinking)
          yield { type: 'reasoning_delta', delta: fields.thinking };
        else if (delta.type === 'signature_delta' && fields.signature)
          yield {
            type: 'reasoning_delta',
            delta: '',
            providerMetadata: { anthropic: { signature: fields.signature } },
          };
        else if (delta.type === 'input_json_delta') {
          const call = toolUses.get(index);
          const fragment = fields.partial_json ?? '';
          if (!call || fragment === '') continue;
          call.arguments += fragment;
          yield { type: 'tool_call_arguments_delta', toolCallId: call.toolCallId, delta: fragment };
        }
      } else if (type === 'content_block_stop') {
        const { index } = event as AnthropicBlockStop;
        const call = toolUses.get(index);
        if (!call) continue;
        toolUses.delete(index);
        completedCalls++;
        yield {
          type: 'tool_call_completed',
          toolCallId: call.toolCallId,
          name: call.name,
          arguments: call.arguments === '' ? '{}' : call.arguments,
        };
      } else if (type === 'message_delta') {
        const { delta, usage } = event as AnthropicMessageDelta;
        stopReason = delta.stop_reason;
        if (typeof usage?.output_tokens === 'number') outputTokens = usage.output_tokens;
      } else if (type === 'message_stop') {
        yield {
          type: 'usage',
          inputTokens,
          outputTokens,
          totalTokens: inputTokens + outputTokens,
          ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
        };
        yield {
          type: 'turn_completed',
          finishReason: mapAnthropicStopReason(stopReason, completedCalls > 0),
          ...(stopReason ? { rawFinishReason: stopReason } : {}),
        };
        return;
      }
    }
  } catch (error) {
    yield toProviderErrorEvent(providerLabel, error, signal);
    return;
  }
  yield streamStoppedEvent(providerLabel, signal);
}
