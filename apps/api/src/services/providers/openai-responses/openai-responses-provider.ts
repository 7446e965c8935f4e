/** The OpenAI Responses adapter: `POST {baseURL}/responses` through the `openai` SDK. */
import { listOpenAIModels } from '../shared/list-openai-models';
import { lazyOpenAIClient } from '../shared/openai-client';
import { type ProviderConnectionOptions, sdkClientOptions } from '../shared/provider-connection';
import { streamProviderCall } from '../shared/stream-provider-call';
import type { LanguageModelProvider } from '../spec';
import { toResponsesInput } from './convert-messages';
import { parseResponsesStream } from './parse-stream';
import { prepareResponsesTools } from './prepare-tools';

const LABEL = 'OpenAI';

export function createOpenAIResponsesProvider(
  options: ProviderConnectionOptions,
): LanguageModelProvider {
  const client = lazyOpenAIClient(sdkClientOptions(options));
  return {
    id: 'openai',
    prepare: async () => {
      await client();
    },
    listModels: async (options) => listOpenAIModels(await client(), options),
    toolRequestFields: (tools) => prepareResponsesTools(tools, 'auto'),
    streamTurn: (request) =>
      streamProviderCall(
        LABEL,
        request.signal,
        async () =>
          (await client()).responses.create(
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
          ),
        parseResponsesStream,
      ),
  };
}
