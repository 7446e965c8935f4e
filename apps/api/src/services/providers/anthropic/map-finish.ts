/** Anthropic stop reasons → the contract's finish reason. */
import type { FinishReason } from '@mango/shared';

export function mapAnthropicStopReason(
  raw: string | null | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (hasToolCalls) return 'tool_calls';
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
    case undefined:
    case null:
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}
