/**
 * A Responses stream → contract events. A call starts at
 * `response.output_item.added` (name and `call_id` known there), its argument
 * deltas are keyed by item id, and it completes at `response.output_item.done`
 * whose item carries the final arguments. `response.completed` /
 * `response.incomplete` end the call; `response.failed` and `error` events end
 * it with an `error`; a stream that stops before any of them is interrupted.
 */
import type { ProviderStreamEvent } from '@mango/shared';
import {
  ProviderStreamError,
  streamStoppedEvent,
  toProviderErrorEvent,
} from '../shared/provider-stream-error';
import {
  type ResponsesFinalEvent,
  type ResponsesItemEvent,
  type ResponsesTextDelta,
  validateResponsesEvent,
} from './event-schemas';
import { mapResponsesFinishReason, mapResponsesUsage } from './map-finish';

interface OpenCall {
  toolCallId: string;
  name: string;
  arguments: string;
}

function streamedError(code: string | null | undefined, message: string): ProviderStreamError {
  const kind = code ?? '';
  if (/rate_limit/.test(kind)) return new ProviderStreamError('rate_limited', message);
  if (/server_error|unavailable|overloaded/.test(kind))
    return new ProviderStreamError('provider_unavailable', message);
  return new ProviderStreamError('provider_error', `${kind ? `${kind}: ` : ''}${message}`);
}

export async function* parseResponsesStream(
  events: AsyncIterable<unknown>,
  providerLabel: string,
  signal?: AbortSignal,
): AsyncGenerator<ProviderStreamEvent> {
  const calls = new Map<string, OpenCall>();
  let completedCalls = 0;
  try {
    for await (const event of events) {
      const type = validateResponsesEvent(event);
      if (type === 'response.output_text.delta') {
        const { delta } = event as ResponsesTextDelta;
        if (delta) yield { type: 'text_delta', delta };
      } else if (
        type === 'response.reasoning_summary_text.delta' ||
        type === 'response.reasoning_text.delta'
      ) {
        const { delta } = event as ResponsesTextDelta;
        if (delta) yield { type: 'reasoning_delta', delta };
      } else if (type === 'response.output_item.added') {
        const { item } = event as ResponsesItemEvent;
        if (item.type !== 'function_call') continue;
        if (!item.id || !item.call_id || !item.name)
          throw new ProviderStreamError(
            'invalid_chunk',
            'a function_call item arrived without its id, call_id or name.',
          );
        calls.set(item.id, { toolCallId: item.call_id, name: item.name, arguments: '' });
        yield { type: 'tool_call_started', toolCallId: item.call_id, name: item.name };
      } else if (type === 'response.function_call_arguments.delta') {
        const { item_id, delta } = event as ResponsesTextDelta;
        const call = calls.get(item_id);
        if (!call)
          throw new ProviderStreamError(
            'invalid_chunk',
            `argument delta for unknown item "${item_id}".`,
          );
        call.arguments += delta;
        if (delta) yield { type: 'tool_call_arguments_delta', toolCallId: call.toolCallId, delta };
      } else if (type === 'response.output_item.done') {
        const { item } = event as ResponsesItemEvent;
        if (item.type !== 'function_call' || !item.id) continue;
        const call = calls.get(item.id);
        if (!call) continue;
        calls.delete(item.id);
        completedCalls++;
        yield {
          type: 'tool_call_completed',
          toolCallId: call.toolCallId,
          name: call.name,
          arguments: item.arguments ?? call.arguments,
        };
      } else if (type === 'response.completed' || type === 'response.incomplete') {
        const { response } = event as ResponsesFinalEvent;
        if (response.usage) yield mapResponsesUsage(response.usage);
        const reason = response.incomplete_details?.reason;
        yield {
          type: 'turn_completed',
          finishReason: mapResponsesFinishReason(reason, completedCalls > 0),
          ...(reason
            ? { rawFinishReason: reason }
            : { rawFinishReason: response.status ?? 'completed' }),
        };
        return;
      } else if (type === 'response.failed') {
        const { response } = event as ResponsesFinalEvent;
        throw streamedError(
          response.error?.code,
          response.error?.message ?? 'the response failed.',
        );
      } else if (type === 'error') {
        const { code, message } = event as { code?: string | null; message: string };
        throw streamedError(code, message);
      }
    }
  } catch (error) {
    yield toProviderErrorEvent(providerLabel, error, signal);
    return;
  }
  yield streamStoppedEvent(providerLabel, signal);
}
