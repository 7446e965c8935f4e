/**
 * `GET {baseURL}/models` through the `openai` SDK: OpenAI's own list and every
 * OpenAI-compatible server's (Ollama, vLLM, OpenRouter). The list says nothing
 * about what a model does, so every entry is offered as it comes
 * (docs/http-api.md#models).
 */
import type OpenAI from 'openai';
import type { ListedModel, ListModelsOptions } from '../spec';
import { collectSdkPages, usableModelId } from './model-list-pages';

export function listOpenAIModels(
  client: OpenAI,
  options: ListModelsOptions = {},
): Promise<ListedModel[]> {
  return collectSdkPages(client.models.list({ signal: options.signal }), (model) =>
    usableModelId(model.id) ? { modelId: model.id } : undefined,
  );
}
