import { expect, test } from 'bun:test';
import type { ModelEntry } from '@mango/shared';
import { closestModels } from '../../../../src/services/providers/model-suggestions';

const entry = (provider: string, modelId: string): ModelEntry => ({
  id: `${provider}:${modelId}`,
  provider,
  modelId,
  kind: 'chat',
});

const offered = [
  entry('openai', 'gpt-4o'),
  entry('openai', 'gpt-5'),
  entry('openai', 'gpt-5-mini'),
  entry('openai', 'o3'),
  entry('anthropic', 'claude-sonnet-4-5'),
];

test('the closest names of the same provider come first, at most three', () => {
  expect(closestModels(offered, 'openai', 'gpt5')).toEqual([
    'openai:gpt-5',
    'openai:gpt-4o',
    'openai:o3',
  ]);
  expect(closestModels(offered, 'openai', 'gpt-5-min')).toEqual([
    'openai:gpt-5-mini',
    'openai:gpt-5',
    'openai:gpt-4o',
  ]);
});

test('a provider with no offered model gets the closest of every provider', () => {
  const suggestions = closestModels(offered, 'gemini', 'claude-sonnet');
  expect(suggestions[0]).toBe('anthropic:claude-sonnet-4-5');
  expect(suggestions).toHaveLength(3);
  expect(closestModels([], 'openai', 'gpt-5')).toEqual([]);
});
