/** The Gemini adapter: `models/{model}:streamGenerateContent?alt=sse` through `@google/genai`. */
import { GoogleGenAI } from '@google/genai';
import type { ProviderConnectionOptions } from '../shared/provider-connection';
import { toProviderErrorEvent } from '../shared/provider-stream-error';
import type { LanguageModelProvider } from '../spec';
import { toGeminiContents } from './convert-messages';
import { parseGeminiStream } from './parse-stream';
import { prepareGeminiTools } from './prepare-tools';

const LABEL = 'Gemini';

export function createGeminiProvider(options: ProviderConnectionOptions): LanguageModelProvider {
  const retries = options.maxRetries ?? 2;
  const client = new GoogleGenAI({
    apiKey: options.apiKey || 'no-key',
    httpOptions: {
      ...(options.baseURL ? { baseUrl: options.baseURL } : {}),
      timeout: options.timeoutMs ?? 600_000,
      // The SDK retries only when asked; the same policy as the other adapters.
      ...(retries > 0 ? { retryOptions: { attempts: retries + 1 } } : {}),
    },
  });
  return {
    id: 'gemini',
    async *streamTurn(request) {
      let stream: AsyncIterable<unknown>;
      try {
        stream = await client.models.generateContentStream({
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
        });
      } catch (error) {
        yield toProviderErrorEvent(LABEL, error, request.signal);
        return;
      }
      yield* parseGeminiStream(stream, LABEL, request.signal);
    },
  };
}
