/**
 * A Gemini stream → contract events. Calls arrive whole (one part each, in one
 * chunk or spread over several, never indexed), so each becomes started + one
 * delta + completed at once. Ids are optional: a missing one is synthesised,
 * unique even for two calls to the same function in one step. The id Gemini
 * sent (if any) and its thought signature ride along as provider metadata, to
 * be replayed verbatim. A stream that ends without a finish reason was cut.
 */
import type { ProviderMetadata, ProviderStreamEvent, UsageEvent } from '@mango/shared';
import { createChunkValidator } from '../shared/chunk-validator';
import {
  streamEndedEarlyEvent,
  toProviderErrorEvent,
  turnCancelledEvent,
} from '../shared/provider-stream-error';
import { createToolCallId } from '../shared/tool-call-ids';
import { GeminiChunk, type GeminiPart } from './chunk-schema';
import { mapGeminiFinishReason, mapGeminiUsage } from './map-finish';

const validateChunk = createChunkValidator(GeminiChunk, 'Gemini chunk');

function* functionCallEvents(
  part: GeminiPart,
  usedIds: Set<string>,
): Generator<ProviderStreamEvent> {
  const call = part.functionCall;
  if (!call) return;
  const sentId = call.id && !usedIds.has(call.id) ? call.id : undefined;
  const toolCallId = sentId ?? createToolCallId();
  usedIds.add(toolCallId);
  const name = call.name ?? '';
  const text = typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {});
  const gemini: Record<string, unknown> = {};
  if (sentId) gemini.id = sentId;
  if (part.thoughtSignature) gemini.thoughtSignature = part.thoughtSignature;
  const providerMetadata: ProviderMetadata = { gemini };
  yield { type: 'tool_call_started', toolCallId, name };
  yield { type: 'tool_call_arguments_delta', toolCallId, delta: text };
  yield { type: 'tool_call_completed', toolCallId, name, arguments: text, providerMetadata };
}

export async function* parseGeminiStream(
  chunks: AsyncIterable<unknown>,
  providerLabel: string,
  signal?: AbortSignal,
): AsyncGenerator<ProviderStreamEvent> {
  const usedIds = new Set<string>();
  let finishReason: string | undefined;
  let usage: UsageEvent | undefined;
  let calls = 0;
  try {
    for await (const raw of chunks) {
      const chunk = validateChunk(raw);
      if (chunk.usageMetadata) usage = mapGeminiUsage(chunk.usageMetadata);
      if (chunk.promptFeedback?.blockReason) finishReason = chunk.promptFeedback.blockReason;
      const candidate = chunk.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        if (part.functionCall) {
          calls++;
          yield* functionCallEvents(part, usedIds);
        } else if (part.text) {
          yield part.thought
            ? { type: 'reasoning_delta', delta: part.text }
            : { type: 'text_delta', delta: part.text };
        }
      }
      if (candidate?.finishReason) finishReason = candidate.finishReason;
    }
  } catch (error) {
    yield toProviderErrorEvent(providerLabel, error, signal);
    return;
  }
  if (signal?.aborted) {
    yield turnCancelledEvent();
    return;
  }
  if (finishReason === undefined) {
    yield streamEndedEarlyEvent(providerLabel);
    return;
  }
  if (usage) yield usage;
  yield {
    type: 'turn_completed',
    finishReason: mapGeminiFinishReason(finishReason, calls > 0),
    rawFinishReason: finishReason,
  };
}
