/** Gemini finish reasons and usage metadata → the contract's. */
import type { FinishReason, UsageEvent } from '@mango/shared';
import type { GeminiChunk } from './chunk-schema';

const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
]);

/** Gemini says STOP even when it called functions; tool calls present decide. */
export function mapGeminiFinishReason(
  raw: string | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (hasToolCalls) return 'tool_calls';
  if (raw === 'STOP' || raw === undefined) return 'stop';
  if (raw === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(raw)) return 'content_filter';
  return 'other';
}

export function mapGeminiUsage(usage: NonNullable<GeminiChunk['usageMetadata']>): UsageEvent {
  const inputTokens = usage.promptTokenCount ?? 0;
  const outputTokens = (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0);
  const event: UsageEvent = {
    type: 'usage',
    inputTokens,
    outputTokens,
    totalTokens: usage.totalTokenCount ?? inputTokens + outputTokens,
  };
  if (usage.thoughtsTokenCount !== undefined) event.reasoningTokens = usage.thoughtsTokenCount;
  if (usage.cachedContentTokenCount !== undefined)
    event.cachedInputTokens = usage.cachedContentTokenCount;
  return event;
}
