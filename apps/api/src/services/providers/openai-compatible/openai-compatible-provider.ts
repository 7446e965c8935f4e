/**
 * The OpenAI-compatible adapter: `POST {baseURL}/chat/completions` through the
 * `openai` SDK. Serves OpenAI itself, Ollama, vLLM, OpenRouter and the like.
 */
import { listOpenAIModels } from '../shared/list-openai-models';
import { lazyOpenAIClient } from '../shared/openai-client';
import { type ProviderConnectionOptions, sdkClientOptions } from '../shared/provider-connection';
import { streamProviderCall } from '../shared/stream-provider-call';
import type { LanguageModelProvider } from '../spec';
import { toChatCompletionsMessages } from './convert-messages';
import { parseChatCompletionsStream } from './parse-stream';
import { prepareChatCompletionsTools } from './prepare-tools';

const LABEL = 'OpenAI-compatible provider';

export function createOpenAICompatibleProvider(
  options: ProviderConnectionOptions,
): LanguageModelProvider {
  const client = lazyOpenAIClient(sdkClientOptions(options));
  return {
    id: 'openai-compatible',
    prepare: async () => {
      await client();
    },
    listModels: async (options) => listOpenAIModels(await client(), options),
    toolRequestFields: (tools) => prepareChatCompletionsTools(tools, 'auto'),
    streamTurn: (request) =>
      streamProviderCall(
        LABEL,
        request.signal,
        async () =>
          (await client()).chat.completions.create(
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
          ),
        parseChatCompletionsStream,
      ),
  };
}
