/**
 * The image-model contract (docs/images.md#image-models), beside the
 * language-model one: one request for images, one result with their bytes.
 * Types only. Adapters (`openai-images/`, `gemini-images/`) implement it on
 * their provider's official SDK; the `generate_image` tool consumes it.
 */

/** The providers with an image adapter; an image model is named `<ImageProviderId>:<modelId>`. */
export type ImageProviderId = 'openai' | 'openai-compatible' | 'gemini';

/** The quality levels the tool offers; each adapter maps them to its provider's own. */
export type ImageQuality = 'low' | 'medium' | 'high' | 'auto';

export interface ImageModelRequest {
  prompt: string;
  /** Images wanted from this one request (1 to the model's `maxImagesPerRequest`). */
  count: number;
  quality: ImageQuality;
  /** `WIDTHxHEIGHT` (`1024x1024`) or `auto`; absent = the provider's default. */
  size?: string;
  /** Extra fields per provider id, passed through to the request body as they are. */
  providerOptions?: Record<string, Record<string, unknown>>;
  /** Cancels the request in flight (the provider sees the connection close). */
  signal: AbortSignal;
}

export interface GeneratedImageData {
  bytes: Uint8Array;
  /** What the provider says the bytes are (the images store checks it against the bytes). */
  mediaType: string;
  /** The prompt the provider actually used, where it rewrites prompts. */
  revisedPrompt?: string;
}

export interface ImageModelUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

/** Something the request asked for that the provider could not honour; the images were made anyway. */
export interface ImageModelWarning {
  type: 'unsupported' | 'other';
  /** The setting concerned (`quality`, `size`). */
  feature?: string;
  message: string;
}

export interface ImageModelResult {
  images: GeneratedImageData[];
  usage?: ImageModelUsage;
  warnings: ImageModelWarning[];
}

export interface ImageModel {
  readonly provider: ImageProviderId;
  readonly modelId: string;
  /** `provider:modelId`. */
  readonly name: string;
  /** How many images one request may ask for. */
  readonly maxImagesPerRequest: number;
  /**
   * Makes the images. Rejects with an `ImageGenerationError` (a coded,
   * classified refusal or failure), never with the SDK's own error.
   */
  generate(request: ImageModelRequest): Promise<ImageModelResult>;
}
