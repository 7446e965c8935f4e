/**
 * The model-list endpoints of the fake provider server, in each provider's
 * wire format: OpenAI's and every OpenAI-compatible server's `GET /v1/models`
 * (`{object: "list", data}`, one page), Anthropic's `GET /v1/models` (paged by
 * `limit` and `after_id`/`before_id`, answering `data`, `has_more`,
 * `first_id`, `last_id`) and Gemini's `GET /v1beta/models` (paged by
 * `pageSize` and `pageToken`, answering `models` and `nextPageToken`).
 */
import type { FakeProviderKind } from './fake-turn';

export interface FakeModel {
  id: string;
  displayName?: string;
  /** Gemini's `supportedGenerationMethods` (default: `generateContent`, `countTokens`). */
  methods?: string[];
}

export type FakeModelList =
  | {
      models: FakeModel[];
      /** The most entries one page holds, whatever the client asks for (Anthropic, Gemini). */
      pageSize?: number;
      /** A broken provider: every page says there is another (the first page again). */
      endless?: boolean;
    }
  | { fault: { type: 'http_error'; status: number; message?: string } | { type: 'hang' } };

export type ModelListAnswer =
  | { type: 'json'; status: number; body: unknown }
  | { type: 'error'; status: number; message: string }
  | { type: 'hang' };

/** Which provider's model list a path asks for, given the provider its base URL names. */
export function isModelListPath(provider: FakeProviderKind, path: string): boolean {
  return provider === 'gemini' ? path === '/v1beta/models' : path === '/v1/models';
}

/** Entries per page: what the client asked for, at most the script's page size. */
function pageSize(requested: number, script: { pageSize?: number }): number {
  const asked = Number.isFinite(requested) && requested > 0 ? requested : 20;
  return Math.max(1, Math.min(asked, script.pageSize ?? asked));
}

function anthropicPage(
  models: FakeModel[],
  query: Record<string, string>,
  script: { pageSize?: number; endless?: boolean },
) {
  const size = pageSize(Number(query.limit ?? 20), script);
  let start = 0;
  let end: number;
  if (query.before_id) {
    end = Math.max(
      0,
      models.findIndex((model) => model.id === query.before_id),
    );
    start = Math.max(0, end - size);
  } else {
    if (query.after_id && !script.endless)
      start = models.findIndex((model) => model.id === query.after_id) + 1;
    end = Math.min(models.length, start + size);
  }
  const data = models.slice(start, end).map((model, index) => ({
    type: 'model',
    id: model.id,
    display_name: model.displayName ?? model.id,
    created_at: new Date(Date.UTC(2025, 0, 1 + start + index)).toISOString(),
  }));
  return {
    data,
    has_more: script.endless || (query.before_id ? start > 0 : end < models.length),
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}

function geminiPage(
  models: FakeModel[],
  query: Record<string, string>,
  script: { pageSize?: number; endless?: boolean },
) {
  const size = pageSize(Number(query.pageSize ?? 50), script);
  const start = query.pageToken && !script.endless ? Number(query.pageToken) : 0;
  const end = Math.min(models.length, start + size);
  return {
    models: models.slice(start, end).map((model) => ({
      name: `models/${model.id}`,
      version: '001',
      displayName: model.displayName ?? model.id,
      inputTokenLimit: 1_048_576,
      outputTokenLimit: 65_536,
      supportedGenerationMethods: model.methods ?? ['generateContent', 'countTokens'],
    })),
    // The last page carries no token at all, as Gemini's does.
    ...(end < models.length || script.endless ? { nextPageToken: String(end) } : {}),
  };
}

export function answerModelList(
  provider: FakeProviderKind,
  script: FakeModelList | undefined,
  query: Record<string, string>,
): ModelListAnswer {
  if (!script)
    return {
      type: 'error',
      status: 404,
      message: `fake provider: no model list scripted for ${provider}`,
    };
  if ('fault' in script) {
    if (script.fault.type === 'hang') return { type: 'hang' };
    return {
      type: 'error',
      status: script.fault.status,
      message: script.fault.message ?? `fake provider error ${script.fault.status}`,
    };
  }
  if (provider === 'anthropic')
    return { type: 'json', status: 200, body: anthropicPage(script.models, query, script) };
  if (provider === 'gemini')
    return { type: 'json', status: 200, body: geminiPage(script.models, query, script) };
  return {
    type: 'json',
    status: 200,
    body: {
      object: 'list',
      data: script.models.map((model) => ({
        id: model.id,
        object: 'model',
        created: 1_735_689_600,
        owned_by: provider === 'openai' ? 'openai' : 'library',
      })),
    },
  };
}
