/**
 * Reads a provider's paged model list to its end through the SDK's own paging
 * (docs/http-api.md#models), keeping only entries with a usable id. A provider
 * that keeps answering "there is more" is read for at most
 * `MAX_MODEL_LIST_PAGES` pages, so a paging bug cannot loop forever.
 */
import type { ListedModel } from '../spec';

export const MAX_MODEL_LIST_PAGES = 50;

/** What the `openai` and `@anthropic-ai/sdk` page objects have in common. */
export interface SdkPage<Item> {
  getPaginatedItems(): Item[];
  hasNextPage(): boolean;
  getNextPage(): Promise<SdkPage<Item>>;
}

export async function collectSdkPages<Item>(
  first: PromiseLike<SdkPage<Item>>,
  toModel: (item: Item) => ListedModel | undefined,
): Promise<ListedModel[]> {
  const models: ListedModel[] = [];
  let page = await first;
  for (let read = 1; ; read++) {
    for (const item of page.getPaginatedItems()) {
      const model = toModel(item);
      if (model) models.push(model);
    }
    if (read >= MAX_MODEL_LIST_PAGES || !page.hasNextPage()) return models;
    page = await page.getNextPage();
  }
}

/** A listed id worth offering: a non-empty string. */
export function usableModelId(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}
