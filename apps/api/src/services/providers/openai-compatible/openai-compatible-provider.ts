/**
 * The OpenAI-compatible adapter: `POST {baseURL}/chat/completions` through the
 * `openai` SDK. Serves OpenAI itself, Ollama, vLLM, OpenRouter and the like.
 */
import OpenAI from 'openai';
import type { ProviderConnectionOptions } from '../shared/provider-connection';
import { toProviderErrorEvent } from '../shared/provider-stream-error';
import type { LanguageModelProvider } from '../spec';
import { toChatCompletionsMessages } from './convert-messages';
import { parseChatCompletionsStream } from './parse-stream';
import { prepareChatCompletionsTools } from './prepare-tools';

const LABEL = 'OpenAI-compatible provider';

export function createOpenAICompatibleProvider(
  options: ProviderConnectionOptions,
): LanguageModelProvider {
  const client = new OpenAI({
    // Local servers such as Ollama need no key, but the SDK insists on one.
    apiKey: options.apiKey || 'no-key',
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 600_000,
    logLevel: 'off',
  });
  return {
    id: 'openai-compatible',
    async *streamTurn(request) {
      let stream: AsyncIterable<unknown>;
      try {
        stream = await client.chat.completions.create(
          {
            model: request.model,
            messages: toChatCompletionsMessages(request.system, request.messages),
            ...prepareChatCompletionsTools(request.tools, request.toolChoice),
            stream: true,
            stream_options: { include_usage: true },
            ...(request.maxOutputTokens ? { max_tokens: request.maxOutputTokens } : {}),
            ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          },
          { signal: request.signal },
        );
      } catch (error) {
        yield toProviderErrorEvent(LABEL, error, request.signal);
        return;
      }
      yield* parseChatCompletionsStream(stream, LABEL, request.signal);
    },
  };
}
