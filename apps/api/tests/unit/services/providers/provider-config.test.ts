import { describe, expect, test } from 'bun:test';
import {
  loadProvidersConfig,
  ProviderConfigError,
} from '../../../../src/services/providers/provider-config';
import {
  createProviderRegistry,
  ModelNameError,
  parseModelName,
} from '../../../../src/services/providers/provider-registry';
import type { LanguageModelProvider } from '../../../../src/services/providers/spec';

describe('provider configuration', () => {
  test('keys and base URLs are read; blank values count as unset; trailing slashes go', () => {
    expect(
      loadProvidersConfig({
        OPENAI_API_KEY: ' sk-1 ',
        OPENAI_BASE_URL: 'https://proxy.example/v1/',
        ANTHROPIC_API_KEY: '   ',
        GEMINI_BASE_URL: 'https://gemini.example',
        OPENAI_COMPATIBLE_BASE_URL: 'http://localhost:11434/v1',
        OPENAI_COMPATIBLE_API_KEY: 'ollama',
      }),
    ).toEqual({
      openai: { apiKey: 'sk-1', baseURL: 'https://proxy.example/v1' },
      'openai-compatible': { baseURL: 'http://localhost:11434/v1', apiKey: 'ollama' },
    });
  });

  test('a base URL that is not http(s) stops start-up naming the variable', () => {
    expect(() => loadProvidersConfig({ OPENAI_COMPATIBLE_BASE_URL: 'localhost:11434' })).toThrow(
      ProviderConfigError,
    );
    expect(() =>
      loadProvidersConfig({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'ftp://x' }),
    ).toThrow(/ANTHROPIC_BASE_URL/);
  });
});

describe('model names', () => {
  test('provider:modelId, split at the first colon only', () => {
    expect(parseModelName('openai:gpt-5')).toEqual({ providerId: 'openai', modelId: 'gpt-5' });
    expect(parseModelName('openai-compatible:llama3.1:8b')).toEqual({
      providerId: 'openai-compatible',
      modelId: 'llama3.1:8b',
    });
  });

  test.each(['gpt-5', 'openai:', 'mistral:large', ':gpt-5', ''])(
    '%p is refused with the expected form',
    (name) => {
      expect(() => parseModelName(name)).toThrow(ModelNameError);
      expect(() => parseModelName(name)).toThrow(/provider:modelId/);
    },
  );

  test('a provider that is not configured is not offered', () => {
    const fake: LanguageModelProvider = {
      id: 'anthropic',
      streamTurn: async function* () {},
      toolRequestFields: () => ({}),
    };
    const registry = createProviderRegistry(
      { anthropic: { apiKey: 'k' } },
      { anthropic: () => fake },
    );
    expect(registry.offered()).toEqual(['anthropic']);
    expect(registry.resolveModel('anthropic:claude-sonnet-4-5')).toEqual({
      providerId: 'anthropic',
      modelId: 'claude-sonnet-4-5',
      provider: fake,
    });
    expect(() => registry.resolveModel('openai:gpt-5')).toThrow(
      /not configured on this server; offered: anthropic/,
    );
    expect(() => createProviderRegistry({}).resolveModel('openai:gpt-5')).toThrow(
      /no provider is configured/,
    );
  });
});
