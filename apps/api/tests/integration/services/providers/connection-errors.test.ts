/**
 * A provider that cannot be reached, through each official SDK: a refused
 * connection is `connection_failed`, retryable, for a model call and for the
 * model list (docs/errors.md#provider-error-codes). The SDKs report it
 * differently (the `openai` SDK names its connection error "Error"; Bun's
 * fetch under `@google/genai` throws a TypeError), which is what this protects.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { createServer } from 'node:net';
import { createModelCatalog } from '../../../../src/services/providers/model-catalog';
import {
  createProviderRegistry,
  DEFAULT_PROVIDER_FACTORIES,
  PROVIDER_IDS,
} from '../../../../src/services/providers/provider-registry';
import { collectEvents } from '../../../support/collect-events';
import { MODEL_FOR } from '../../../support/provider-factories';

let closedUrl: string;

beforeAll(async () => {
  // A port that was just free: nothing listens there, so connecting is refused.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  closedUrl = `http://127.0.0.1:${address.port}`;
});

const request = (id: (typeof PROVIDER_IDS)[number]) => ({
  model: MODEL_FOR[id],
  messages: [{ role: 'user' as const, parts: [{ type: 'text' as const, text: 'hi' }] }],
  tools: [],
});

describe.each(PROVIDER_IDS.map((id) => [id]))('%s', (id) => {
  const baseURL = () =>
    id === 'openai' || id === 'openai-compatible' ? `${closedUrl}/v1` : closedUrl;

  test('a refused connection is connection_failed, for a model call and the model list', async () => {
    const options = { baseURL: baseURL(), apiKey: 'test-key', maxRetries: 0 };
    const events = await collectEvents(
      DEFAULT_PROVIDER_FACTORIES[id](options).streamTurn(request(id)),
    );
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      code: 'connection_failed',
      retryable: true,
    });
    const listed = await createModelCatalog({
      providers: createProviderRegistry({ [id]: options }),
    }).list();
    expect(listed.providers[0]).toMatchObject({
      status: 'failed',
      error: { code: 'connection_failed' },
    });
  });
});
