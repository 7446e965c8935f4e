/**
 * Each adapter's `listModels` through its official SDK against the fake
 * provider server's model-list endpoint in that provider's wire format,
 * reading every page (docs/http-api.md#models).
 */
import { describe, expect, test } from 'bun:test';
import { PROVIDER_IDS } from '../../../../src/services/providers/provider-registry';
import { MAX_MODEL_LIST_PAGES } from '../../../../src/services/providers/shared/model-list-pages';
import { type FakeModel, useFakeProviderServer } from '../../../support/fake-provider';
import { createProviderForFake } from '../../../support/provider-factories';

const fake = useFakeProviderServer();

const many = (count: number, prefix: string): FakeModel[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `${prefix}-${index + 1}`,
    displayName: `${prefix.toUpperCase()} ${index + 1}`,
  }));

function listModels(id: (typeof PROVIDER_IDS)[number]) {
  const provider = createProviderForFake(id, fake);
  if (!provider.listModels) throw new Error(`${id} has no model list`);
  return provider.listModels();
}

describe.each(PROVIDER_IDS.map((id) => [id]))('%s: the model list', (id) => {
  test('lists every model the provider names, with the id turns use', async () => {
    fake.serveModels(id, { models: many(3, 'model') });
    const models = await listModels(id);
    expect(models.map((model) => model.modelId)).toEqual(['model-1', 'model-2', 'model-3']);
    const [request] = fake.modelListRequests(id);
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe(id === 'gemini' ? '/v1beta/models' : '/v1/models');
    // The key reaches the provider the way its SDK sends it.
    if (id === 'gemini') expect(request?.headers['x-goog-api-key']).toBe('test-key');
    else expect(request?.headers.authorization).toBe('Bearer test-key');
  });

  test('an HTTP error is thrown with its status, for the catalog to classify', async () => {
    fake.serveModels(id, { fault: { type: 'http_error', status: 401, message: 'bad key' } });
    const failure = await listModels(id).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).toContain('bad key');
  });
});

describe('paging', () => {
  test('Anthropic: follows has_more and last_id to the last page, keeping display names', async () => {
    fake.serveModels('anthropic', { models: many(5, 'claude'), pageSize: 2 });
    const models = await listModels('anthropic');
    expect(models).toHaveLength(5);
    expect(models[4]).toEqual({ modelId: 'claude-5', displayName: 'CLAUDE 5' });
    const queries = fake.modelListRequests('anthropic').map((request) => request.query);
    expect(queries.map((query) => query.after_id)).toEqual([undefined, 'claude-2', 'claude-4']);
    expect(queries[0]?.limit).toBe('1000');
  });

  test('Gemini: follows nextPageToken, strips "models/", keeps only generateContent models', async () => {
    fake.serveModels('gemini', {
      models: [
        ...many(4, 'gemini'),
        { id: 'text-embedding-004', methods: ['embedContent'] },
        { id: 'gemini-last', displayName: 'Gemini Last' },
      ],
      pageSize: 4,
    });
    const models = await listModels('gemini');
    expect(models.map((model) => model.modelId)).toEqual([
      'gemini-1',
      'gemini-2',
      'gemini-3',
      'gemini-4',
      'gemini-last',
    ]);
    expect(models[4]?.displayName).toBe('Gemini Last');
    const tokens = fake.modelListRequests('gemini').map((request) => request.query.pageToken);
    expect(tokens).toEqual([undefined, '4']);
  });

  test.each([['anthropic' as const], ['gemini' as const]])(
    '%s: a provider that never stops paging is read for a bounded number of pages',
    async (id) => {
      fake.serveModels(id, { models: many(2, 'loop'), pageSize: 2, endless: true });
      const models = await listModels(id);
      expect(fake.modelListRequests(id)).toHaveLength(MAX_MODEL_LIST_PAGES);
      expect(models).toHaveLength(2 * MAX_MODEL_LIST_PAGES);
    },
  );
});
