/**
 * The providers this server offers and how a model name finds its adapter.
 * Models are named `provider:modelId` (`openai:gpt-5`,
 * `openai-compatible:llama3.1:8b`); only the first colon separates them.
 */
import { AppError } from '../../errors';
import { createAnthropicProvider } from './anthropic/anthropic-provider';
import { createGeminiProvider } from './gemini/gemini-provider';
import { createOpenAICompatibleProvider } from './openai-compatible/openai-compatible-provider';
import { createOpenAIResponsesProvider } from './openai-responses/openai-responses-provider';
import type { ProvidersConfig } from './provider-config';
import type { ProviderConnectionOptions } from './shared/provider-connection';
import type { LanguageModelProvider, ProviderId } from './spec';

export const PROVIDER_IDS: readonly ProviderId[] = [
  'openai',
  'openai-compatible',
  'anthropic',
  'gemini',
];

export type ProviderFactory = (options: ProviderConnectionOptions) => LanguageModelProvider;

export const DEFAULT_PROVIDER_FACTORIES: Record<ProviderId, ProviderFactory> = {
  openai: createOpenAIResponsesProvider,
  'openai-compatible': createOpenAICompatibleProvider,
  anthropic: createAnthropicProvider,
  gemini: createGeminiProvider,
};

/** A model name that does not name an offered provider; answered with 422 `validation_failed`. */
export class ModelNameError extends AppError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('validation_failed', message, { details: { field: 'model', ...details } });
  }
}

export interface ResolvedModel {
  providerId: ProviderId;
  modelId: string;
  provider: LanguageModelProvider;
}

export interface ProviderRegistry {
  /** The providers configured on this server, in a stable order. */
  offered(): ProviderId[];
  get(id: ProviderId): LanguageModelProvider | undefined;
  /** Finds the adapter for `provider:modelId`; throws `ModelNameError`. */
  resolveModel(name: string): ResolvedModel;
}

export function parseModelName(name: string): { providerId: ProviderId; modelId: string } {
  const colon = name.indexOf(':');
  const providerId = colon === -1 ? '' : name.slice(0, colon);
  const modelId = colon === -1 ? '' : name.slice(colon + 1).trim();
  if (!(PROVIDER_IDS as readonly string[]).includes(providerId) || modelId === '')
    throw new ModelNameError(
      `Model "${name}" is not of the form provider:modelId with provider one of ${PROVIDER_IDS.join(', ')} (for example "openai:gpt-5" or "openai-compatible:llama3.1").`,
    );
  return { providerId: providerId as ProviderId, modelId };
}

/**
 * Loads the offered providers' SDKs (`LanguageModelProvider.prepare`); resolves
 * when all are loaded, with the ids of those that could not be.
 */
export async function prepareProviders(registry: ProviderRegistry): Promise<ProviderId[]> {
  const offered = registry.offered();
  const outcomes = await Promise.allSettled(
    offered.map((id) => registry.get(id)?.prepare?.() ?? Promise.resolve()),
  );
  return offered.filter((_, index) => outcomes[index]?.status === 'rejected');
}

export function createProviderRegistry(
  config: ProvidersConfig,
  factories: Partial<Record<ProviderId, ProviderFactory>> = DEFAULT_PROVIDER_FACTORIES,
): ProviderRegistry {
  const providers = new Map<ProviderId, LanguageModelProvider>();
  for (const id of PROVIDER_IDS) {
    const options = config[id];
    const factory = factories[id] ?? DEFAULT_PROVIDER_FACTORIES[id];
    if (options) providers.set(id, factory(options));
  }
  return {
    offered: () => [...providers.keys()],
    get: (id) => providers.get(id),
    resolveModel(name) {
      const { providerId, modelId } = parseModelName(name);
      const provider = providers.get(providerId);
      if (!provider) {
        const offered = [...providers.keys()];
        throw new ModelNameError(
          `Provider "${providerId}" is not configured on this server${offered.length > 0 ? `; offered: ${offered.join(', ')}` : '; no provider is configured (set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OPENAI_COMPATIBLE_BASE_URL)'}.`,
        );
      }
      return { providerId, modelId, provider };
    },
  };
}
