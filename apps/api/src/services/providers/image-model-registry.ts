/**
 * The image models this server offers (docs/images.md#configuring-image-models),
 * from `MANGO_IMAGE_MODELS`: comma-separated `provider:modelId` names
 * (`openai:gpt-image-1,gemini:gemini-2.5-flash-image`). Each model reaches its
 * provider with that provider's base URL and key (README.md#configuration); a
 * name whose provider is not configured is not offered (and reported at start).
 * `list()` is the source other listings read (the models route, kind `image`).
 */
import type { ModelEntry } from '@mango/shared';
import { createGeminiImageModel } from './gemini-images/gemini-image-model';
import { createOpenAIImageModel } from './openai-images/openai-image-model';
import { ProviderConfigError, type ProvidersConfig } from './provider-config';
import type { ProviderConnectionOptions } from './shared/provider-connection';
import type { ImageModel, ImageProviderId } from './spec';

export const IMAGE_PROVIDER_IDS: readonly ImageProviderId[] = [
  'openai',
  'openai-compatible',
  'gemini',
];

export interface ImageModelName {
  /** `provider:modelId`. */
  name: string;
  provider: ImageProviderId;
  modelId: string;
}

/** An offered image model as listings show it. */
export interface ImageModelInfo extends ImageModelName {
  kind: 'image';
}

/** The offered image models as `GET /api/models` entries (kind `image`). */
export function imageModelEntries(registry: Pick<ImageModelRegistry, 'list'>): ModelEntry[] {
  return registry.list().map((model) => ({
    id: model.name,
    provider: model.provider,
    modelId: model.modelId,
    kind: 'image' as const,
  }));
}

export interface ImageModelRegistry {
  /** The offered models, in the order `MANGO_IMAGE_MODELS` names them. */
  list(): ImageModelInfo[];
  get(name: string): ImageModel | undefined;
  /** Named in the configuration but not offered: their provider has no key or URL. */
  unconfigured(): ImageModelName[];
}

export type ImageModelFactory = (
  name: ImageModelName,
  connection: ProviderConnectionOptions,
) => ImageModel;

export const defaultImageModelFactory: ImageModelFactory = (name, connection) =>
  name.provider === 'gemini'
    ? createGeminiImageModel({ ...connection, modelId: name.modelId })
    : createOpenAIImageModel({ ...connection, provider: name.provider, modelId: name.modelId });

/** Parses `MANGO_IMAGE_MODELS`; throws `ProviderConfigError` naming what is wrong. */
export function parseImageModelNames(raw: string | undefined): ImageModelName[] {
  if (!raw?.trim()) return [];
  const names: ImageModelName[] = [];
  for (const entry of raw.split(',')) {
    const name = entry.trim();
    if (name === '') continue;
    const colon = name.indexOf(':');
    const provider = colon === -1 ? '' : name.slice(0, colon);
    const modelId = colon === -1 ? '' : name.slice(colon + 1).trim();
    if (!(IMAGE_PROVIDER_IDS as readonly string[]).includes(provider) || modelId === '')
      throw new ProviderConfigError(
        `MANGO_IMAGE_MODELS: "${name}" is not provider:modelId with provider one of ${IMAGE_PROVIDER_IDS.join(', ')} (for example "openai:gpt-image-1" or "gemini:gemini-2.5-flash-image").`,
      );
    const full = `${provider}:${modelId}`;
    if (names.some((known) => known.name === full))
      throw new ProviderConfigError(`MANGO_IMAGE_MODELS names "${full}" twice.`);
    names.push({ name: full, provider: provider as ImageProviderId, modelId });
  }
  return names;
}

export function loadImageModelNames(
  env: Record<string, string | undefined> = process.env,
): ImageModelName[] {
  return parseImageModelNames(env.MANGO_IMAGE_MODELS);
}

export function createImageModelRegistry(
  names: readonly ImageModelName[],
  providers: ProvidersConfig,
  factory: ImageModelFactory = defaultImageModelFactory,
): ImageModelRegistry {
  const models = new Map<string, { info: ImageModelInfo; model: ImageModel }>();
  const unconfigured: ImageModelName[] = [];
  for (const name of names) {
    const connection = providers[name.provider];
    if (!connection) {
      unconfigured.push(name);
      continue;
    }
    models.set(name.name, { info: { ...name, kind: 'image' }, model: factory(name, connection) });
  }
  return {
    list: () => [...models.values()].map((entry) => ({ ...entry.info })),
    get: (name) => models.get(name)?.model,
    unconfigured: () => [...unconfigured],
  };
}
