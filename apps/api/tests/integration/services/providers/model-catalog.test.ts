/**
 * The model catalog against the fake provider server (docs/http-api.md#models):
 * every provider's own list, cached and shared by concurrent callers, a failing
 * provider reported on its own, configured models beside the listed ones, and
 * the check that refuses a model that is not offered with the closest names.
 */
import { describe, expect, test } from 'bun:test';
import type { ModelEntry } from '@mango/shared';
import { createLogger } from '../../../../src/logger';
import {
  createModelCatalog,
  MODEL_LIST_FAILURE_TTL_MS,
  MODEL_LIST_RECHECK_AFTER_MS,
  MODEL_LIST_TTL_MS,
  type ModelCatalogOptions,
} from '../../../../src/services/providers/model-catalog';
import { PROVIDER_FAILURE_LOG_MESSAGE } from '../../../../src/services/providers/provider-failure-log';
import {
  createProviderRegistry,
  ModelNameError,
  PROVIDER_IDS,
} from '../../../../src/services/providers/provider-registry';
import type { ProviderId } from '../../../../src/services/providers/spec';
import { useFakeProviderServer } from '../../../support/fake-provider';

const fake = useFakeProviderServer();

function registry(ids: readonly ProviderId[] = PROVIDER_IDS) {
  return createProviderRegistry(
    Object.fromEntries(
      ids.map((id) => [id, { baseURL: fake.baseUrl(id), apiKey: 'test-key', maxRetries: 0 }]),
    ),
  );
}

function catalog(options: Partial<ModelCatalogOptions> = {}) {
  return createModelCatalog({ providers: registry(), ...options });
}

function serveAll() {
  fake.serveModels('openai', { models: [{ id: 'gpt-5' }, { id: 'gpt-5-mini' }] });
  fake.serveModels('openai-compatible', { models: [{ id: 'llama3.1:8b' }] });
  fake.serveModels('anthropic', {
    models: [{ id: 'claude-sonnet-4-5', displayName: 'Claude Sonnet 4.5' }],
  });
  fake.serveModels('gemini', {
    models: [{ id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash' }],
  });
}

async function refusal(promise: Promise<unknown>): Promise<ModelNameError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ModelNameError)) throw new Error(`expected a refusal, got ${error}`);
  return error;
}

describe('listing', () => {
  test('lists every provider’s models in the four wire formats, each as provider:modelId', async () => {
    serveAll();
    const listed = await catalog().list();
    expect(listed.models).toEqual([
      { id: 'openai:gpt-5', provider: 'openai', modelId: 'gpt-5', kind: 'chat' },
      { id: 'openai:gpt-5-mini', provider: 'openai', modelId: 'gpt-5-mini', kind: 'chat' },
      {
        id: 'openai-compatible:llama3.1:8b',
        provider: 'openai-compatible',
        modelId: 'llama3.1:8b',
        kind: 'chat',
      },
      {
        id: 'anthropic:claude-sonnet-4-5',
        provider: 'anthropic',
        modelId: 'claude-sonnet-4-5',
        kind: 'chat',
        displayName: 'Claude Sonnet 4.5',
      },
      {
        id: 'gemini:gemini-2.5-flash',
        provider: 'gemini',
        modelId: 'gemini-2.5-flash',
        kind: 'chat',
        displayName: 'Gemini 2.5 Flash',
      },
    ]);
    expect(listed.providers.map((provider) => [provider.provider, provider.status])).toEqual([
      ['openai', 'ok'],
      ['openai-compatible', 'ok'],
      ['anthropic', 'ok'],
      ['gemini', 'ok'],
    ]);
  });

  test('one provider failing is reported with its code and never fails the list; it is logged', async () => {
    serveAll();
    fake.serveModels('anthropic', {
      fault: { type: 'http_error', status: 401, message: 'invalid x-api-key' },
    });
    const lines: string[] = [];
    const listed = await catalog({
      logger: createLogger({ write: (line) => lines.push(line) }),
    }).list({ requestId: 'req-models-1' });
    expect(listed.models.some((model) => model.provider === 'anthropic')).toBe(false);
    expect(listed.models.some((model) => model.provider === 'gemini')).toBe(true);
    const anthropic = listed.providers.find((provider) => provider.provider === 'anthropic');
    expect(anthropic).toMatchObject({
      status: 'failed',
      error: { code: 'authentication_failed', status: 401 },
    });
    expect(anthropic?.error?.message).toContain('invalid x-api-key');
    const logged = lines.map((line) => JSON.parse(line));
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: PROVIDER_FAILURE_LOG_MESSAGE,
        provider: 'anthropic',
        operation: 'list_models',
        status: 401,
        errorCode: 'authentication_failed',
        requestId: 'req-models-1',
      }),
    ]);
  });

  test('a provider that never answers is a provider_timeout after the listing budget', async () => {
    serveAll();
    fake.serveModels('gemini', { fault: { type: 'hang' } });
    const listed = await catalog({ timeoutMs: 200 }).list();
    expect(listed.providers.find((provider) => provider.provider === 'gemini')).toMatchObject({
      status: 'failed',
      error: { code: 'provider_timeout' },
    });
    expect(listed.models.filter((model) => model.provider !== 'gemini')).toHaveLength(4);
  });

  test('configured models are listed beside the provider’s, once each', async () => {
    serveAll();
    const additional: ModelEntry[] = [
      { id: 'openai:gpt-5', provider: 'openai', modelId: 'gpt-5', kind: 'chat' },
      { id: 'openai:ft:gpt-5:acme', provider: 'openai', modelId: 'ft:gpt-5:acme', kind: 'chat' },
      { id: 'openai:gpt-image-1', provider: 'openai', modelId: 'gpt-image-1', kind: 'image' },
    ];
    const listed = await createModelCatalog({ providers: registry(['openai']), additional }).list();
    expect(listed.models.map((model) => `${model.kind} ${model.id}`)).toEqual([
      'chat openai:gpt-5',
      'chat openai:gpt-5-mini',
      'chat openai:ft:gpt-5:acme',
      'image openai:gpt-image-1',
    ]);
  });
});

describe('caching', () => {
  test('concurrent callers share one fetch per provider; the list is reused until it expires', async () => {
    serveAll();
    let clock = 1_000_000;
    const models = catalog({ now: () => clock });
    await Promise.all([
      models.list(),
      models.list(),
      models.assertOffered('openai:gpt-5'),
      models.assertOffered('gemini:gemini-2.5-flash'),
    ]);
    for (const id of PROVIDER_IDS) expect(fake.modelListRequests(id)).toHaveLength(1);
    clock += MODEL_LIST_TTL_MS - 1;
    await models.list();
    expect(fake.modelListRequests('openai')).toHaveLength(1);
    clock += 1;
    await models.list();
    expect(fake.modelListRequests('openai')).toHaveLength(2);
  });

  test('a failure is remembered briefly, then the provider is asked again', async () => {
    let clock = 1_000_000;
    fake.serveModels('openai', { fault: { type: 'http_error', status: 503 } });
    const models = createModelCatalog({ providers: registry(['openai']), now: () => clock });
    expect((await models.list()).providers[0]).toMatchObject({
      status: 'failed',
      error: { code: 'provider_unavailable', status: 503 },
    });
    fake.serveModels('openai', { models: [{ id: 'gpt-5' }] });
    await models.list();
    expect(fake.modelListRequests('openai')).toHaveLength(1);
    clock += MODEL_LIST_FAILURE_TTL_MS;
    const listed = await models.list();
    expect(listed.providers[0]?.status).toBe('ok');
    expect(listed.models.map((model) => model.id)).toEqual(['openai:gpt-5']);
  });
});

describe('refusing a model that is not offered', () => {
  test('names the closest offered models of the same provider', async () => {
    serveAll();
    const error = await refusal(catalog().assertOffered('openai:gpt-5-mni'));
    expect(error.code).toBe('validation_failed');
    expect(error.status).toBe(422);
    expect(error.details).toMatchObject({
      field: 'model',
      suggestions: ['openai:gpt-5-mini', 'openai:gpt-5'],
    });
    expect(error.message).toContain('Closest offered: openai:gpt-5-mini, openai:gpt-5');
    expect(error.message).toContain('GET /api/models');
  });

  test('listed and configured models pass; a malformed name or an unconfigured provider is refused', async () => {
    serveAll();
    const models = createModelCatalog({
      providers: registry(['openai', 'anthropic']),
      additional: [{ id: 'openai:my-tune', provider: 'openai', modelId: 'my-tune', kind: 'chat' }],
    });
    await models.assertOffered('openai:gpt-5');
    await models.assertOffered('anthropic:claude-sonnet-4-5');
    await models.assertOffered('openai:my-tune');
    await refusal(models.assertOffered('gpt-5'));
    const unconfigured = await refusal(models.assertOffered('gemini:gemini-2.5-flash'));
    expect(unconfigured.message).toContain('not configured');
  });

  test('a provider whose list cannot be fetched does not refuse its models', async () => {
    fake.serveModels('anthropic', { fault: { type: 'http_error', status: 500 } });
    const models = createModelCatalog({ providers: registry(['anthropic']) });
    await models.assertOffered('anthropic:claude-anything');
  });

  test('a name missing from an older list fetches it again once before refusing', async () => {
    let clock = 1_000_000;
    fake.serveModels('openai', { models: [{ id: 'gpt-5' }] });
    const models = createModelCatalog({ providers: registry(['openai']), now: () => clock });
    await refusal(models.assertOffered('openai:gpt-6'));
    expect(fake.modelListRequests('openai')).toHaveLength(1);
    // Released since: found once the list is old enough to be asked again.
    fake.serveModels('openai', { models: [{ id: 'gpt-5' }, { id: 'gpt-6' }] });
    clock += MODEL_LIST_RECHECK_AFTER_MS;
    await models.assertOffered('openai:gpt-6');
    expect(fake.modelListRequests('openai')).toHaveLength(2);
    // A name that stays unknown does not refetch on every try.
    await refusal(models.assertOffered('openai:gpt-7'));
    expect(fake.modelListRequests('openai')).toHaveLength(2);
  });

  test('an image model must be configured as one', async () => {
    fake.serveModels('openai', { models: [{ id: 'gpt-5' }, { id: 'gpt-image-1' }] });
    const models = createModelCatalog({
      providers: registry(['openai']),
      additional: [
        { id: 'openai:gpt-image-1', provider: 'openai', modelId: 'gpt-image-1', kind: 'image' },
      ],
    });
    await models.assertOffered('openai:gpt-image-1', 'image');
    const error = await refusal(models.assertOffered('openai:gpt-5', 'image'));
    expect(error.details?.suggestions).toEqual(['openai:gpt-image-1']);
  });
});
