/**
 * `GET {baseURL}/v1/models` through `@anthropic-ai/sdk`, every page
 * (`has_more`, `last_id` → `after_id`); each model with its display name.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { collectSdkPages, usableModelId } from '../shared/model-list-pages';
import type { ListedModel, ListModelsOptions } from '../spec';

/** The largest page the Models API serves. */
const PAGE_SIZE = 1000;

export function listAnthropicModels(
  client: Anthropic,
  options: ListModelsOptions = {},
): Promise<ListedModel[]> {
  return collectSdkPages(
    client.models.list({ limit: PAGE_SIZE }, { signal: options.signal }),
    (model) =>
      usableModelId(model.id)
        ? {
            modelId: model.id,
            ...(typeof model.display_name === 'string' && model.display_name
              ? { displayName: model.display_name }
              : {}),
          }
        : undefined,
  );
}
