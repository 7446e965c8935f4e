/** The OpenAI Responses adapter: `POST {baseURL}/responses` through the `openai` SDK. */
import OpenAI from 'openai';
import type { ProviderConnectionOptions } from '../shared/provider-connection';
import { toProviderErrorEvent } from '../shared/provider-stream-error';
import type { LanguageModelProvider } from '../spec';
import { toResponsesInput } from './convert-messages';
import { parseResponsesStream } from './parse-stream';
import { prepareResponsesTools } from './prepare-tools';

const LABEL = 'OpenAI';

export function createOpenAIResponsesProvider(
  options: ProviderConnectionOptions,
): LanguageModelProvider {
  const client = new OpenAI({
    apiKey: options.apiKey || 'no-key',
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 600_000,
    logLevel: 'off',
  });
  return {
    id: 'openai',
    async *streamTurn(request) {
      let stream: AsyncIterable<unknown>;
      try {
        stream = await client.responses.create(
          {
            model: request.model,
            input: toResponsesInput(request.messages),
            ...(request.system ? { instructions: request.system } : {}),
            ...prepareResponsesTools(request.tools, request.toolChoice),
            // Conversations live in this server's database, not OpenAI's.
            store: false,
            stream: true,
            ...(request.maxOutputTokens ? { max_output_tokens: request.maxOutputTokens } : {}),
            ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          },
          { signal: request.signal },
        );
      } catch (error) {
        yield toProviderErrorEvent(LABEL, error, request.signal);
        return;
      }
      yield* parseResponsesStream(stream, LABEL, request.signal);
    },
  };
}
