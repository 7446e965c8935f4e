/** The Anthropic Messages adapter: `POST {baseURL}/v1/messages` through `@anthropic-ai/sdk`. */
import { lazySdkClient } from '../shared/lazy-sdk-client';
import { type ProviderConnectionOptions, sdkClientOptions } from '../shared/provider-connection';
import { streamProviderCall } from '../shared/stream-provider-call';
import type { LanguageModelProvider } from '../spec';
import { toAnthropicMessages } from './convert-messages';
import { listAnthropicModels } from './list-models';
import { parseAnthropicStream } from './parse-stream';
import { prepareAnthropicTools } from './prepare-tools';

const LABEL = 'Anthropic';
/** Anthropic requires `max_tokens`; this fits every current model's output limit. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

export function createAnthropicProvider(options: ProviderConnectionOptions): LanguageModelProvider {
  const client = lazySdkClient(async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    return new Anthropic(sdkClientOptions(options));
  });
  return {
    id: 'anthropic',
    prepare: async () => {
      await client();
    },
    listModels: async (options) => listAnthropicModels(await client(), options),
    toolRequestFields: (tools, messages) => prepareAnthropicTools(tools, 'auto', messages),
    streamTurn: (request) =>
      streamProviderCall(
        LABEL,
        request.signal,
        async () =>
          (await client()).messages.create(
            {
              model: request.model,
              max_tokens: request.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
              messages: toAnthropicMessages(request.messages),
              ...(request.system ? { system: request.system } : {}),
              ...prepareAnthropicTools(request.tools, request.toolChoice, request.messages),
              stream: true,
              ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
            },
            { signal: request.signal },
          ),
        parseAnthropicStream,
      ),
  };
}
