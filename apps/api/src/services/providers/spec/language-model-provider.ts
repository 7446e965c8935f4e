/** The one interface every provider adapter implements and the turn loop consumes. Types only. */
import type { ConversationMessage, ProviderStreamEvent } from '@mango/shared';
import type { ProviderRequest } from './provider-request';
import type { ToolDefinition } from './tool-definition';

/** The adapters this server has; a model is named `<ProviderId>:<modelId>` (docs/http-api.md#routes). */
export type ProviderId = 'openai' | 'openai-compatible' | 'anthropic' | 'gemini';

/** One model a provider's own model list names (docs/http-api.md#models). */
export interface ListedModel {
  /** The model as the provider names it (the part after `provider:`). */
  modelId: string;
  displayName?: string;
}

export interface ListModelsOptions {
  /** Stops the listing (the caller's time budget, every page included). */
  signal?: AbortSignal;
}

export interface LanguageModelProvider {
  readonly id: ProviderId;
  /**
   * The chat models the provider offers, asked of its own model-list endpoint
   * (every page). Throws what the SDK throws when the provider cannot be asked.
   * Absent for an adapter whose provider has no model list.
   */
  listModels?(options?: ListModelsOptions): Promise<ListedModel[]>;
  /**
   * Runs one model call and streams it as events. The stream never throws: a
   * failure (HTTP error, cut stream, invalid chunk, cancel) is its last event,
   * an `error` with a code and `retryable`. A call that succeeded ends with
   * `usage` (when the provider reports it) and `turn_completed`. Tool calls are
   * always `tool_call_started`, zero or more `tool_call_arguments_delta`, then
   * `tool_call_completed` with the whole arguments text; ids are unique within
   * the call even when the provider sent none.
   */
  streamTurn(request: ProviderRequest): AsyncIterable<ProviderStreamEvent>;
  /**
   * Loads what the first call needs (the SDK, loaded on first use) ahead of
   * it, without calling the provider. The server does this for the offered
   * providers once it is up, so the first turn does not wait for it.
   */
  prepare?(): Promise<void>;
  /**
   * The tool fields this adapter puts into a request with these tools and this
   * history when the model may choose (tool choice `auto`), in the provider's
   * own format: what the capabilities inspector shows as the wire payload.
   */
  toolRequestFields(
    tools: readonly ToolDefinition[],
    messages: readonly ConversationMessage[],
  ): Record<string, unknown>;
}
