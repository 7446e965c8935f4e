/**
 * A Chat Completions stream → contract events. Tool calls are assembled from
 * index-keyed fragments by the shared assembler and closed at the finish
 * chunk, or when the stream ends (`[DONE]` or end of body) for servers that
 * send no finish reason. A stream that fails mid-way ends with an `error`
 * event; calls still open then stay unfinished (the loop answers them).
 */
import type { ProviderStreamEvent, UsageEvent } from '@mango/shared';
import { createChunkValidator } from '../shared/chunk-validator';
import { toProviderErrorEvent, turnCancelledEvent } from '../shared/provider-stream-error';
import { type AssemblerEvent, createToolCallAssembler } from '../shared/tool-call-assembler';
import { ChatCompletionsChunk } from './chunk-schema';
import { mapChatCompletionsFinishReason, mapChatCompletionsUsage } from './map-finish-reason';

const validateChunk = createChunkValidator(ChatCompletionsChunk, 'Chat Completions chunk');

export async function* parseChatCompletionsStream(
  chunks: AsyncIterable<unknown>,
  providerLabel: string,
  signal?: AbortSignal,
): AsyncGenerator<ProviderStreamEvent> {
  const assembler = createToolCallAssembler();
  let rawFinishReason: string | undefined;
  let usage: UsageEvent | undefined;
  let completedCalls = 0;
  const close = (events: AssemblerEvent[]) => {
    completedCalls += events.filter((event) => event.type === 'tool_call_completed').length;
    return events;
  };
  try {
    for await (const raw of chunks) {
      const chunk = validateChunk(raw);
      if (chunk.usage) usage = mapChatCompletionsUsage(chunk.usage);
      // One completion is requested (n = 1): only the first choice is read.
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      const reasoning = delta?.reasoning_content || delta?.reasoning;
      if (reasoning) yield { type: 'reasoning_delta', delta: reasoning };
      if (delta?.content) yield { type: 'text_delta', delta: delta.content };
      for (const fragment of delta?.tool_calls ?? [])
        yield* assembler.push({
          index: fragment.index,
          id: fragment.id,
          name: fragment.function?.name,
          arguments: fragment.function?.arguments,
        });
      if (choice.finish_reason) {
        rawFinishReason = choice.finish_reason;
        yield* close(assembler.finish());
      }
    }
  } catch (error) {
    yield toProviderErrorEvent(providerLabel, error, signal);
    return;
  }
  if (signal?.aborted) {
    yield turnCancelledEvent();
    return;
  }
  yield* close(assembler.finish());
  if (usage) yield usage;
  yield {
    type: 'turn_completed',
    finishReason: mapChatCompletionsFinishReason(rawFinishReason, completedCalls > 0),
    ...(rawFinishReason ? { rawFinishReason } : {}),
  };
}
