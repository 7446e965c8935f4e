/** What the turn loop asks of a provider adapter for one model call (docs/chat-turns.md#the-provider-contract). Types only. */
import type { ConversationMessage } from '@mango/shared';
import type { ToolDefinition } from './tool-definition';

/**
 * `auto`: the model may call tools. `none`: tools stay declared (history may
 * hold tool calls, and Anthropic refuses such a request without tools) but the
 * model must answer in text — the forced final answer at the iteration limit.
 * `required`: the model must call a tool.
 */
export type ProviderToolChoice = 'auto' | 'none' | 'required';

export interface ProviderRequest {
  /** The provider's own model id (`gpt-5`, not `openai:gpt-5`). */
  model: string;
  system?: string;
  /** The conversation so far; every tool call in it is answered by a tool result. */
  messages: readonly ConversationMessage[];
  tools: readonly ToolDefinition[];
  /** Default `auto`. */
  toolChoice?: ProviderToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  /** Cancels the request; the adapter then ends its stream with an `error` of code `aborted`. */
  signal?: AbortSignal;
}
