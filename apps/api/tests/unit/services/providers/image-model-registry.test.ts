import { describe, expect, test } from 'bun:test';
import {
  createImageModelRegistry,
  loadImageModelNames,
  parseImageModelNames,
} from '../../../../src/services/providers/image-model-registry';
import { ProviderConfigError } from '../../../../src/services/providers/provider-config';

describe('MANGO_IMAGE_MODELS', () => {
  test('comma-separated provider:modelId names, in order, the model id keeping later colons', () => {
    expect(
      loadImageModelNames({
        MANGO_IMAGE_MODELS:
          ' openai:gpt-image-1 , gemini:gemini-2.5-flash-image,openai-compatible:sd:xl ,',
      }),
    ).toEqual([
      { name: 'openai:gpt-image-1', provider: 'openai', modelId: 'gpt-image-1' },
      {
        name: 'gemini:gemini-2.5-flash-image',
        provider: 'gemini',
        modelId: 'gemini-2.5-flash-image',
      },
      { name: 'openai-compatible:sd:xl', provider: 'openai-compatible', modelId: 'sd:xl' },
    ]);
    expect(loadImageModelNames({})).toEqual([]);
  });

  test('a provider without an image adapter, a missing model id or a repeated name stops the start', () => {
    for (const [value, message] of [
      ['anthropic:claude-sonnet-4-5', 'provider one of openai, openai-compatible, gemini'],
      ['openai:', 'not provider:modelId'],
      ['gpt-image-1', 'not provider:modelId'],
      ['openai:gpt-image-1,openai:gpt-image-1', 'twice'],
    ] as const) {
      expect(() => parseImageModelNames(value)).toThrow(ProviderConfigError);
      expect(() => parseImageModelNames(value)).toThrow(message);
    }
  });

  test('only models whose provider is configured are offered, with kind image; the others are reported', () => {
    const registry = createImageModelRegistry(
      parseImageModelNames('openai:gpt-image-1,gemini:gemini-2.5-flash-image'),
      { gemini: { apiKey: 'key' } },
    );
    expect(registry.list()).toEqual([
      {
        name: 'gemini:gemini-2.5-flash-image',
        provider: 'gemini',
        modelId: 'gemini-2.5-flash-image',
        kind: 'image',
      },
    ]);
    expect(registry.get('gemini:gemini-2.5-flash-image')?.maxImagesPerRequest).toBe(1);
    expect(registry.get('openai:gpt-image-1')).toBeUndefined();
    expect(registry.unconfigured().map((model) => model.name)).toEqual(['openai:gpt-image-1']);
  });
});
