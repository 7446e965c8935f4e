import { describe, expect, test } from 'bun:test';
import {
  loadConfiguredModels,
  ProviderConfigError,
  readConfiguredModels,
} from '../../../../src/services/providers/provider-config';

const configured = {
  openai: { apiKey: 'sk-1' },
  'openai-compatible': { baseURL: 'http://localhost:11434/v1' },
};

describe('models named in configuration (MANGO_MODELS)', () => {
  test('a comma-separated provider:modelId list, blanks and repeats dropped', () => {
    expect(
      loadConfiguredModels(configured, {
        MANGO_MODELS:
          ' openai:ft:gpt-5:acme , openai-compatible:llama3.1:8b,, openai:ft:gpt-5:acme',
      }),
    ).toEqual([
      { id: 'openai:ft:gpt-5:acme', provider: 'openai', modelId: 'ft:gpt-5:acme', kind: 'chat' },
      {
        id: 'openai-compatible:llama3.1:8b',
        provider: 'openai-compatible',
        modelId: 'llama3.1:8b',
        kind: 'chat',
      },
    ]);
    expect(loadConfiguredModels(configured, {})).toEqual([]);
    expect(loadConfiguredModels(configured, { MANGO_MODELS: '  ' })).toEqual([]);
  });

  test('another list variable gives entries of its kind', () => {
    expect(
      readConfiguredModels({ IMAGES: 'openai:gpt-image-1' }, 'IMAGES', 'image', configured),
    ).toEqual([
      { id: 'openai:gpt-image-1', provider: 'openai', modelId: 'gpt-image-1', kind: 'image' },
    ]);
  });

  test('a name that is not provider:modelId stops start-up naming the variable', () => {
    expect(() => loadConfiguredModels(configured, { MANGO_MODELS: 'gpt-5' })).toThrow(
      ProviderConfigError,
    );
    expect(() => loadConfiguredModels(configured, { MANGO_MODELS: 'gpt-5' })).toThrow(
      /MANGO_MODELS must be a comma-separated list of provider:modelId/,
    );
  });

  test('a model of a provider that is not configured stops start-up', () => {
    expect(() =>
      loadConfiguredModels(configured, { MANGO_MODELS: 'anthropic:claude-sonnet-4-5' }),
    ).toThrow(/MANGO_MODELS names "anthropic:claude-sonnet-4-5", but the provider "anthropic"/);
  });
});
