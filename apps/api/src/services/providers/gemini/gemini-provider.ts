/** The Gemini adapter: `models/{model}:streamGenerateContent?alt=sse` through `@google/genai`. */
import {
  DEFAULT_PROVIDER_MAX_RETRIES,
  DEFAULT_PROVIDER_TIMEOUT_MS,
  type ProviderConnectionOptions,
} from '../shared/provider-connection';
import { streamProviderCall } from '../shared/stream-provider-call';
import type { LanguageModelProvider } from '../spec';
import { toGeminiContents } from './convert-messages';
import { lazyGeminiClient } from './gemini-client';
import { listGeminiModels } from './list-models';
import { parseGeminiStream } from './parse-stream';
import { geminiToolRequestFields, prepareGeminiTools } from './prepare-tools';

const LABEL = 'Gemini';

export function createGeminiProvider(options: ProviderConnectionOptions): LanguageModelProvider {
  const retries = options.maxRetries ?? DEFAULT_PROVIDER_MAX_RETRIES;
  const client = lazyGeminiClient(options.apiKey, {
    ...(options.baseURL ? { baseUrl: options.baseURL } : {}),
    timeout: options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS,
    // The SDK retries only when asked; the same policy as the other adapters.
    ...(retries > 0 ? { retryOptions: { attempts: retries + 1 } } : {}),
  });
  return {
    id: 'gemini',
    prepare: async () => {
      await client();
    },
    listModels: async (options) => listGeminiModels(await client(), options),
    toolRequestFields: (tools) => geminiToolRequestFields(tools),
    streamTurn: (request) =>
      streamProviderCall(
        LABEL,
        request.signal,
        async () =>
          (await client()).models.generateContentStream({
            model: request.model,
            contents: toGeminiContents(request.messages),
            config: {
              ...(request.system ? { systemInstruction: request.system } : {}),
              ...prepareGeminiTools(request.tools, request.toolChoice),
              // The turn loop runs the tools and owns the stream: no SDK-side calling or resuming.
              automaticFunctionCalling: { disable: true },
              automaticContinuation: false,
              ...(request.maxOutputTokens ? { maxOutputTokens: request.maxOutputTokens } : {}),
              ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
              ...(request.signal ? { abortSignal: request.signal } : {}),
            },
          }),
        parseGeminiStream,
      ),
  };
}
