/**
 * `GET {baseUrl}/v1beta/models` through `@google/genai`, every page
 * (`nextPageToken`). Gemini says what each model supports: only those that
 * answer `generateContent` can hold a chat, so only those are listed.
 */
import type { GoogleGenAI, Model } from '@google/genai';
import { MAX_MODEL_LIST_PAGES, usableModelId } from '../shared/model-list-pages';
import type { ListedModel, ListModelsOptions } from '../spec';

/** The largest page the models endpoint serves. */
const PAGE_SIZE = 1000;

function toListedModel(model: Model): ListedModel | undefined {
  if (!usableModelId(model.name)) return undefined;
  if (model.supportedActions && !model.supportedActions.includes('generateContent'))
    return undefined;
  // Gemini names its models `models/<id>`; turns name them by `<id>`.
  const modelId = model.name.replace(/^models\//, '');
  return { modelId, ...(model.displayName ? { displayName: model.displayName } : {}) };
}

export async function listGeminiModels(
  client: GoogleGenAI,
  options: ListModelsOptions = {},
): Promise<ListedModel[]> {
  const pager = await client.models.list({
    config: { pageSize: PAGE_SIZE, ...(options.signal ? { abortSignal: options.signal } : {}) },
  });
  const models: ListedModel[] = [];
  let page = pager.page;
  for (let read = 1; ; read++) {
    for (const model of page) {
      const listed = toListedModel(model);
      if (listed) models.push(listed);
    }
    if (read >= MAX_MODEL_LIST_PAGES || !pager.hasNextPage()) return models;
    page = await pager.nextPage();
  }
}
