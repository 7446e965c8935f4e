/** The Anthropic Messages adapter: `POST {baseURL}/v1/messages` through `@anthropic-ai/sdk`. */
import Anthropic from '@anthropic-ai/sdk';
import type { ProviderConnectionOptions } from '../shared/provider-connection';
import { toProviderErrorEvent } from '../shared/provider-stream-error';
import type { LanguageModelProvider } from '../spec';
import { toAnthropicMessages } from './convert-messages';
import { parseAnthropicStream } from './parse-stream';
import { prepareAnthropicTools } from './prepare-tools';

const LABEL = 'Anthropic';
/** Anthropic requires `max_tokens`; this fits every current model's output limit. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

export function createAnthropicProvider(options: ProviderConnectionOptions): LanguageModelProvider {
  const client = new Anthropic({
    apiKey: options.apiKey || 'no-key',
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 600_000,
    logLevel: 'off',
  });
  return {
    id: 'anthropic',
    async *streamTurn(request) {
      let stream: AsyncIterable<unknown>;
      try {
        stream = await client.messages.create(
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
        );
      } catch (error) {
        yield toProviderErrorEvent(LABEL, error, request.signal);
        return;
      }
      yield* parseAnthropicStream(stream, LABEL, request.signal);
    },
  };
}
