/** Responses status, incomplete reason and usage → the contract's finish reason and usage. */
import type { FinishReason, UsageEvent } from '@mango/shared';
import type { ResponsesUsage } from './event-schemas';

/** The Responses API has no finish reason: tool calls present mean `tool_calls`. */
export function mapResponsesFinishReason(
  incompleteReason: string | null | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (hasToolCalls) return 'tool_calls';
  if (incompleteReason === 'max_output_tokens') return 'length';
  if (incompleteReason === 'content_filter') return 'content_filter';
  return incompleteReason ? 'other' : 'stop';
}

export function mapResponsesUsage(usage: ResponsesUsage): UsageEvent {
  const event: UsageEvent = {
    type: 'usage',
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    totalTokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
  };
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  if (reasoning !== undefined) event.reasoningTokens = reasoning;
  const cached = usage.input_tokens_details?.cached_tokens;
  if (cached !== undefined) event.cachedInputTokens = cached;
  return event;
}
