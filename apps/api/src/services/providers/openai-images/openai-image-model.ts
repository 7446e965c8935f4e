/**
 * OpenAI Images (`POST /v1/images/generations`) through the official `openai`
 * SDK (docs/images.md#openai-images), for OpenAI's GPT image models and any
 * OpenAI-compatible images endpoint (LocalAI, proxies). GPT image models
 * answer `b64_json`; a compatible server may answer the older `url` shape
 * instead, which is fetched here through the URL guard (only the configured
 * base URL's origin is trusted as it is). The SDK's retries are off: they
 * would spend the tool's time budget silently and could bill twice.
 */
import type { ImageGenerateParamsNonStreaming, ImagesResponse } from 'openai/resources/images';
import { guardedFetch } from '../../../net/guarded-fetch';
import { classifyImageError, ImageGenerationError } from '../shared/image-generation-error';
import { lazyOpenAIClient } from '../shared/openai-client';
import type { ProviderConnectionOptions } from '../shared/provider-connection';
import type {
  GeneratedImageData,
  ImageModel,
  ImageModelRequest,
  ImageModelResult,
  ImageModelWarning,
} from '../spec';

/** The largest image fetched from a `url` answer. */
export const MAX_FETCHED_IMAGE_BYTES = 32 * 1024 * 1024;

export interface OpenAIImageModelOptions extends ProviderConnectionOptions {
  provider: 'openai' | 'openai-compatible';
  modelId: string;
  /** Resolves host names for the URL guard (tests); the system resolver otherwise. */
  lookup?: (hostname: string) => Promise<string[]>;
}

const OUTPUT_MEDIA_TYPES: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};

/** OpenAI's own models are the GPT image ones (DALL·E is retired); a compatible server's may be anything. */
function isGptImageModel(modelId: string): boolean {
  return /^(gpt-image|chatgpt-image)/.test(modelId);
}

export function createOpenAIImageModel(options: OpenAIImageModelOptions): ImageModel {
  const label = options.provider === 'openai' ? 'OpenAI Images' : 'OpenAI-compatible images';
  const client = lazyOpenAIClient({
    apiKey: options.apiKey || 'no-key',
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0,
    ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    logLevel: 'off',
  });
  const gpt = isGptImageModel(options.modelId);

  const toImage = async (
    item: NonNullable<ImagesResponse['data']>[number],
    mediaType: string,
    signal: AbortSignal,
    trustedOrigins: string[],
  ): Promise<GeneratedImageData> => {
    const revised = item.revised_prompt ? { revisedPrompt: item.revised_prompt } : {};
    if (typeof item.b64_json === 'string' && item.b64_json !== '')
      return { bytes: new Uint8Array(Buffer.from(item.b64_json, 'base64')), mediaType, ...revised };
    if (typeof item.url === 'string' && item.url !== '') {
      const fetched = await guardedFetch(item.url, {
        signal,
        maxBytes: MAX_FETCHED_IMAGE_BYTES,
        trustedOrigins,
        ...(options.lookup ? { lookup: options.lookup } : {}),
      }).catch((error: unknown) => {
        if (signal.aborted) throw error;
        throw new ImageGenerationError(
          'provider_error',
          `${label}: the image URL in the answer could not be fetched (${error instanceof Error ? error.message : String(error)}).`,
          { cause: error },
        );
      });
      return { bytes: fetched.bytes, mediaType: fetched.contentType ?? mediaType, ...revised };
    }
    throw new ImageGenerationError(
      'invalid_chunk',
      `${label}: an item of the answer's "data" has neither "b64_json" nor "url".`,
    );
  };

  return {
    provider: options.provider,
    modelId: options.modelId,
    name: `${options.provider}:${options.modelId}`,
    maxImagesPerRequest: 10,
    async generate(request: ImageModelRequest): Promise<ImageModelResult> {
      const warnings: ImageModelWarning[] = [];
      const body: ImageGenerateParamsNonStreaming = {
        model: options.modelId,
        prompt: request.prompt,
        n: request.count,
        ...(request.size ? { size: request.size as ImageGenerateParamsNonStreaming['size'] } : {}),
        // A compatible server's default is its own; OpenAI's GPT models take `auto` as it is.
        ...(gpt || request.quality !== 'auto' ? { quality: request.quality } : {}),
        ...((request.providerOptions?.[options.provider] ?? {}) as object),
      };
      let response: ImagesResponse;
      let trustedOrigins: string[];
      try {
        // Loading the SDK is inside: a failure there is classified like the request's own.
        const openai = await client();
        // The SDK's default base URL when none is configured.
        trustedOrigins = [new URL(openai.baseURL).origin];
        response = await openai.images.generate(body, {
          signal: request.signal,
          maxRetries: 0,
        });
      } catch (error) {
        throw classifyImageError(label, error, request.signal);
      }
      const data = Array.isArray(response?.data) ? response.data : [];
      if (data.length === 0)
        throw new ImageGenerationError(
          'invalid_chunk',
          `${label}: the answer held no image ("data" was empty).`,
        );
      const mediaType = OUTPUT_MEDIA_TYPES[response.output_format ?? 'png'] ?? 'image/png';
      let images: GeneratedImageData[];
      try {
        images = await Promise.all(
          data.map((item) => toImage(item, mediaType, request.signal, trustedOrigins)),
        );
      } catch (error) {
        throw classifyImageError(label, error, request.signal);
      }
      const usage = response.usage
        ? {
            inputTokens: response.usage.input_tokens,
            outputTokens: response.usage.output_tokens,
            totalTokens: response.usage.total_tokens,
          }
        : undefined;
      return { images, warnings, ...(usage ? { usage } : {}) };
    },
  };
}
