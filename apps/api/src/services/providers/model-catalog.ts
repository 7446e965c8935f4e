/**
 * The models this server offers (docs/http-api.md#models): what each
 * configured provider lists at its own model-list endpoint, plus the models
 * named in configuration (`MANGO_MODELS`; image models are another source of
 * the same kind). Each provider's list is cached for `MODEL_LIST_TTL_MS`, and
 * concurrent callers share one fetch per provider. A provider that cannot be
 * asked is reported on its own and never fails the whole list; its models are
 * then not checked, so a provider outage does not refuse every turn.
 */
import type {
  ModelEntry,
  ModelKind,
  ModelProviderListing,
  ModelsResponse,
  ProviderErrorCode,
} from '@mango/shared';
import type { Logger } from '../../logger';
import { closestModels } from './model-suggestions';
import { logProviderFailure } from './provider-failure-log';
import { ModelNameError, type ProviderRegistry } from './provider-registry';
import { toProviderErrorEvent } from './shared/provider-stream-error';
import type { ListedModel, ProviderId } from './spec';

/** How long a provider's model list is reused. */
export const MODEL_LIST_TTL_MS = 10 * 60_000;
/** How long a failed fetch is remembered before the provider is asked again. */
export const MODEL_LIST_FAILURE_TTL_MS = 30_000;
/** The budget of one listing, every page included. */
export const MODEL_LIST_TIMEOUT_MS = 10_000;
/** A name missing from a list older than this fetches the list again once before it is refused. */
export const MODEL_LIST_RECHECK_AFTER_MS = 60_000;

const PROVIDER_LABELS: Record<ProviderId, string> = {
  openai: 'OpenAI',
  'openai-compatible': 'The OpenAI-compatible provider',
  anthropic: 'Anthropic',
  gemini: 'Gemini',
};

type ListingError = NonNullable<ModelProviderListing['error']>;

/** Why a provider's model list could not be fetched, classified like a failed model call. */
function listingFailure(
  label: string,
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
): ListingError {
  if (timedOut)
    return {
      code: 'provider_timeout',
      message: `${label} did not list its models within ${timeoutMs / 1000} s.`,
    };
  const event = toProviderErrorEvent(label, error);
  const detail = error instanceof Error ? error.message : String(error);
  return {
    // toProviderErrorEvent answers with provider codes only.
    code: event.code as ProviderErrorCode,
    message: `${label} could not list its models: ${detail}`,
    ...(event.status !== undefined ? { status: event.status } : {}),
  };
}

type ProviderModels =
  | { status: 'ok'; models: ListedModel[]; at: number }
  | { status: 'failed'; error: ListingError; at: number }
  | { status: 'unlisted'; at: number };

export interface ModelCatalogCallOptions {
  /** The request that asks, named in the log line of a failed fetch. */
  requestId?: string;
}

export interface ModelCatalog {
  /** Every offered model and how each provider's listing went. */
  list(options?: ModelCatalogCallOptions): Promise<ModelsResponse>;
  /**
   * Throws `ModelNameError` (422 `validation_failed`, with the closest offered
   * names) unless `name` is offered as a model of `kind`. A provider whose list
   * could not be fetched does not refuse its models.
   */
  assertOffered(name: string, kind?: ModelKind, options?: ModelCatalogCallOptions): Promise<void>;
}

export interface ModelCatalogOptions {
  providers: ProviderRegistry;
  /** Models offered besides the providers' lists (`MANGO_MODELS`, image models). */
  additional?: readonly ModelEntry[];
  logger?: Logger;
  now?: () => number;
  ttlMs?: number;
  failureTtlMs?: number;
  timeoutMs?: number;
}

export function createModelCatalog(options: ModelCatalogOptions): ModelCatalog {
  const { providers, logger } = options;
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? MODEL_LIST_TTL_MS;
  const failureTtlMs = options.failureTtlMs ?? MODEL_LIST_FAILURE_TTL_MS;
  const timeoutMs = options.timeoutMs ?? MODEL_LIST_TIMEOUT_MS;
  const cached = new Map<ProviderId, ProviderModels>();
  const inFlight = new Map<ProviderId, Promise<ProviderModels>>();
  const offeredProviders = () => new Set(providers.offered());
  const additional = () => {
    const offered = offeredProviders();
    return (options.additional ?? []).filter((entry) => offered.has(entry.provider as ProviderId));
  };

  async function fetchList(id: ProviderId, requestId?: string): Promise<ProviderModels> {
    const provider = providers.get(id);
    if (!provider?.listModels) return { status: 'unlisted', at: now() };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const models = await provider.listModels({ signal: controller.signal });
      return { status: 'ok', models, at: now() };
    } catch (error) {
      const failure = listingFailure(
        PROVIDER_LABELS[id],
        error,
        controller.signal.aborted,
        timeoutMs,
      );
      logProviderFailure(logger, {
        provider: id,
        operation: 'list_models',
        errorCode: failure.code,
        message: failure.message,
        ...(failure.status !== undefined ? { status: failure.status } : {}),
        ...(requestId ? { requestId } : {}),
      });
      return { status: 'failed', error: failure, at: now() };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The provider's list: cached while fresh, else one fetch shared by every caller. */
  function modelsOf(
    id: ProviderId,
    requestId?: string,
    olderThan?: number,
  ): Promise<ProviderModels> {
    const running = inFlight.get(id);
    if (running) return running;
    const known = cached.get(id);
    const lifetime = known?.status === 'failed' ? failureTtlMs : ttlMs;
    const fresh = known && now() - known.at < lifetime;
    if (known && fresh && (olderThan === undefined || known.at > olderThan))
      return Promise.resolve(known);
    const fetching = fetchList(id, requestId).then((result) => {
      cached.set(id, result);
      inFlight.delete(id);
      return result;
    });
    inFlight.set(id, fetching);
    return fetching;
  }

  function entriesOf(id: ProviderId, listing: ProviderModels): ModelEntry[] {
    if (listing.status !== 'ok') return [];
    const unique = new Map(listing.models.map((model) => [model.modelId, model]));
    return [...unique.values()].map((model) => ({
      id: `${id}:${model.modelId}`,
      provider: id,
      modelId: model.modelId,
      kind: 'chat' as const,
      ...(model.displayName ? { displayName: model.displayName } : {}),
    }));
  }

  function merge(listed: ModelEntry[], extra: readonly ModelEntry[]): ModelEntry[] {
    const seen = new Set(listed.map((entry) => `${entry.kind} ${entry.id}`));
    return [...listed, ...extra.filter((entry) => !seen.has(`${entry.kind} ${entry.id}`))];
  }

  async function offeredModels(requestId?: string) {
    const ids = providers.offered();
    const listings = await Promise.all(ids.map((id) => modelsOf(id, requestId)));
    const extra = additional();
    const models: ModelEntry[] = [];
    const statuses: ModelProviderListing[] = [];
    ids.forEach((id, index) => {
      const listing = listings[index] as ProviderModels;
      models.push(
        ...merge(
          entriesOf(id, listing),
          extra.filter((entry) => entry.provider === id),
        ),
      );
      statuses.push({
        provider: id,
        status: listing.status,
        ...(listing.status === 'unlisted' ? {} : { fetchedAt: new Date(listing.at).toISOString() }),
        ...(listing.status === 'failed' ? { error: listing.error } : {}),
      });
    });
    return { models, providers: statuses };
  }

  return {
    list: (callOptions = {}) => offeredModels(callOptions.requestId),

    async assertOffered(name, kind = 'chat', callOptions = {}) {
      // Throws for a name that is not provider:modelId or names a provider not configured.
      const { providerId, modelId } = providers.resolveModel(name);
      const id = `${providerId}:${modelId}`;
      const extra = additional();
      if (extra.some((entry) => entry.id === id && entry.kind === kind)) return;
      let listing: ProviderModels | undefined;
      if (kind === 'chat') {
        listing = await modelsOf(providerId, callOptions.requestId);
        if (listing.status !== 'ok') return;
        const listed = (candidate: ProviderModels) =>
          candidate.status !== 'ok' || candidate.models.some((model) => model.modelId === modelId);
        if (listed(listing)) return;
        // A model released since the list was fetched is not refused for the cache's lifetime.
        if (now() - listing.at >= MODEL_LIST_RECHECK_AFTER_MS) {
          listing = await modelsOf(providerId, callOptions.requestId, listing.at);
          if (listed(listing)) return;
        }
      }
      const offered = merge(listing ? entriesOf(providerId, listing) : [], extra).filter(
        (entry) => entry.kind === kind,
      );
      const suggestions = closestModels(offered, providerId, modelId);
      const label = PROVIDER_LABELS[providerId];
      const source =
        kind === 'chat'
          ? `${label} does not list "${modelId}" and it is not named in MANGO_MODELS`
          : `it is not configured as an image model`;
      throw new ModelNameError(
        `Model "${name}" is not offered by this server: ${source}. ${
          suggestions.length > 0
            ? `Closest offered: ${suggestions.join(', ')}.`
            : `No ${kind} model of ${providerId} is offered.`
        } GET /api/models lists every offered model.`,
        { suggestions },
      );
    },
  };
}
