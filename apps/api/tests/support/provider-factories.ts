/** Builds each adapter pointed at the fake provider server (test support). */
import { createAnthropicProvider } from '../../src/services/providers/anthropic/anthropic-provider';
import { createGeminiProvider } from '../../src/services/providers/gemini/gemini-provider';
import { createOpenAICompatibleProvider } from '../../src/services/providers/openai-compatible/openai-compatible-provider';
import { createOpenAIResponsesProvider } from '../../src/services/providers/openai-responses/openai-responses-provider';
import type { LanguageModelProvider, ProviderId } from '../../src/services/providers/spec';
import type { FakeProviderServer } from './fake-provider';

export const MODEL_FOR: Record<ProviderId, string> = {
  openai: 'gpt-5',
  'openai-compatible': 'llama3.1',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-2.5-flash',
};

export function createProviderForFake(
  id: ProviderId,
  fake: Pick<FakeProviderServer, 'baseUrl'>,
  maxRetries = 0,
): LanguageModelProvider {
  const options = { baseURL: fake.baseUrl(id), apiKey: 'test-key', maxRetries };
  switch (id) {
    case 'openai':
      return createOpenAIResponsesProvider(options);
    case 'openai-compatible':
      return createOpenAICompatibleProvider(options);
    case 'anthropic':
      return createAnthropicProvider(options);
    case 'gemini':
      return createGeminiProvider(options);
  }
}
