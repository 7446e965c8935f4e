/**
 * Gemini image models (`gemini-2.5-flash-image`, `gemini-3-pro-image-preview`,
 * …) through `generateContent` with image output, on the official
 * `@google/genai` SDK (docs/images.md#gemini). Imagen's `generateImages` is
 * Vertex-only now and not used. Gemini makes one image per request (it refuses
 * `candidateCount` above 1), so `maxImagesPerRequest` is 1. Gemini 3 models
 * send draft "thought" images before the final one: only parts that are not
 * thoughts count. An answer without an image is a failure, told apart by its
 * finish reason or block reason: a safety refusal is
 * `content_policy_violation`, anything else `provider_error`.
 */
import type { GenerateContentResponse, Modality } from '@google/genai';
import { lazyGeminiClient } from '../gemini/gemini-client';
import { classifyImageError, ImageGenerationError } from '../shared/image-generation-error';
import type { ProviderConnectionOptions } from '../shared/provider-connection';
import type {
  GeneratedImageData,
  ImageModel,
  ImageModelRequest,
  ImageModelResult,
  ImageModelWarning,
  ImageQuality,
} from '../spec';

export interface GeminiImageModelOptions extends ProviderConnectionOptions {
  modelId: string;
}

const LABEL = 'Gemini images';

const SAFETY_REASONS = new Set([
  'SAFETY',
  'IMAGE_SAFETY',
  'PROHIBITED_CONTENT',
  'IMAGE_PROHIBITED_CONTENT',
  'BLOCKLIST',
  'SPII',
  'OTHER_SAFETY',
]);

/** `gemini-2.5-flash-image` has no `imageSize`; the newer image models take 1K/2K/4K. */
function acceptsImageSize(modelId: string): boolean {
  return !modelId.startsWith('gemini-2.5');
}

const IMAGE_SIZE_FOR_QUALITY: Record<ImageQuality, string | undefined> = {
  low: '1K',
  medium: '1K',
  high: '2K',
  auto: undefined,
};

function imagesOf(response: GenerateContentResponse): GeneratedImageData[] {
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  return parts
    .filter((part) => part.inlineData?.data && part.thought !== true)
    .map((part) => ({
      bytes: new Uint8Array(Buffer.from(part.inlineData?.data as string, 'base64')),
      mediaType: part.inlineData?.mimeType ?? 'image/png',
    }));
}

function noImageError(response: GenerateContentResponse): ImageGenerationError {
  const blockReason = response.promptFeedback?.blockReason;
  const candidate = response.candidates?.[0];
  const finishReason = candidate?.finishReason;
  const text = (candidate?.content?.parts ?? [])
    .map((part) => (part.thought ? '' : (part.text ?? '')))
    .join('')
    .trim();
  const said = text ? ` It answered: "${text.slice(0, 200)}".` : '';
  if (blockReason || (finishReason && SAFETY_REASONS.has(finishReason)))
    return new ImageGenerationError(
      'content_policy_violation',
      `${LABEL}: the provider's safety filters refused this image (${blockReason ? `blockReason ${blockReason}` : `finishReason ${finishReason}`}).${said} Describe the image differently; the same prompt will be refused again.`,
      { details: { finishReason: finishReason ?? null, blockReason: blockReason ?? null } },
    );
  return new ImageGenerationError(
    'provider_error',
    `${LABEL}: the model answered without an image (finishReason ${finishReason ?? 'none'}).${said} Try again, or rephrase the prompt as a request for a picture.`,
    { details: { finishReason: finishReason ?? null } },
  );
}

export function createGeminiImageModel(options: GeminiImageModelOptions): ImageModel {
  const client = lazyGeminiClient(options.apiKey, {
    ...(options.baseURL ? { baseUrl: options.baseURL } : {}),
    ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
  });
  const sized = acceptsImageSize(options.modelId);
  return {
    provider: 'gemini',
    modelId: options.modelId,
    name: `gemini:${options.modelId}`,
    maxImagesPerRequest: 1,
    async generate(request: ImageModelRequest): Promise<ImageModelResult> {
      const warnings: ImageModelWarning[] = [];
      if (request.count !== 1)
        throw new ImageGenerationError(
          'invalid_request',
          `${LABEL}: one image per request (asked for ${request.count}).`,
        );
      const imageSize = sized ? IMAGE_SIZE_FOR_QUALITY[request.quality] : undefined;
      if (!sized && request.quality !== 'auto')
        warnings.push({
          type: 'unsupported',
          feature: 'quality',
          message: `${options.modelId} has one output size; quality "${request.quality}" was not applied.`,
        });
      if (request.size)
        warnings.push({
          type: 'unsupported',
          feature: 'size',
          message:
            'Gemini image models take an aspect ratio, not a size; the size was not applied.',
        });
      let response: GenerateContentResponse;
      try {
        response = await (await client()).models.generateContent({
          model: options.modelId,
          contents: [{ role: 'user', parts: [{ text: request.prompt }] }],
          config: {
            // The SDK's enum value, written out (importing the enum would load the SDK with this module).
            responseModalities: ['IMAGE' as Modality.IMAGE],
            ...(imageSize ? { imageConfig: { imageSize } } : {}),
            abortSignal: request.signal,
            ...((request.providerOptions?.gemini ?? {}) as object),
          },
        });
      } catch (error) {
        throw classifyImageError(LABEL, error, request.signal);
      }
      const images = imagesOf(response);
      if (images.length === 0) throw noImageError(response);
      const usage = response.usageMetadata
        ? {
            ...(response.usageMetadata.promptTokenCount !== undefined
              ? { inputTokens: response.usageMetadata.promptTokenCount }
              : {}),
            ...(response.usageMetadata.candidatesTokenCount !== undefined
              ? { outputTokens: response.usageMetadata.candidatesTokenCount }
              : {}),
            ...(response.usageMetadata.totalTokenCount !== undefined
              ? { totalTokens: response.usageMetadata.totalTokenCount }
              : {}),
          }
        : undefined;
      // One image was asked for; a model that sends several finals is taken at its last word.
      return { images: images.slice(-1), warnings, ...(usage ? { usage } : {}) };
    },
  };
}
