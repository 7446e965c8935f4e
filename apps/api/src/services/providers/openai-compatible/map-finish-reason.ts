/** Chat Completions finish reasons and usage → the contract's. */
import type { FinishReason, UsageEvent } from '@mango/shared';

/** Tool calls present decide `tool_calls`, whatever the server said (it may say `stop`). */
export function mapChatCompletionsFinishReason(
  raw: string | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (hasToolCalls) return 'tool_calls';
  if (raw === 'stop' || raw === undefined) return 'stop';
  if (raw === 'length') return 'length';
  if (raw === 'content_filter') return 'content_filter';
  if (raw === 'tool_calls' || raw === 'function_call') return 'stop';
  return 'other';
}

export function mapChatCompletionsUsage(usage: {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}): UsageEvent {
  const inputTokens = usage.prompt_tokens ?? 0;
  const outputTokens = usage.completion_tokens ?? 0;
  const event: UsageEvent = {
    type: 'usage',
    inputTokens,
    outputTokens,
    totalTokens: usage.total_tokens ?? inputTokens + outputTokens,
  };
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (reasoning !== undefined) event.reasoningTokens = reasoning;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (cached !== undefined) event.cachedInputTokens = cached;
  return event;
}
