/**
 * The image adapters on their official SDKs against the fake image server:
 * what each sends, what it makes of each answer, and how it classifies each
 * refusal.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { createServer } from 'node:net';
import { createGeminiImageModel } from '../../../../../src/services/providers/gemini-images/gemini-image-model';
import { createOpenAIImageModel } from '../../../../../src/services/providers/openai-images/openai-image-model';
import type { ImageGenerationError } from '../../../../../src/services/providers/shared/image-generation-error';
import type { ImageModelRequest } from '../../../../../src/services/providers/spec';
import {
  type FakeImageServer,
  startFakeImageServer,
} from '../../../../support/fake-images/fake-image-server';
import { waitUntil } from '../../../../support/wait-until';

let fake: FakeImageServer;
beforeAll(async () => {
  fake = await startFakeImageServer();
});
beforeEach(() => fake.reset());
afterAll(() => fake.close());

const request = (overrides: Partial<ImageModelRequest> = {}): ImageModelRequest => ({
  prompt: 'a red fox, watercolour',
  count: 1,
  quality: 'auto',
  signal: new AbortController().signal,
  ...overrides,
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as ImageGenerationError,
  );

describe('OpenAI Images adapter', () => {
  const gpt = () =>
    createOpenAIImageModel({
      provider: 'openai',
      modelId: 'gpt-image-1',
      apiKey: 'sk-test',
      baseURL: fake.baseUrl('openai'),
    });

  test('sends a GPT image request without response_format and reads b64_json, media type and usage', async () => {
    fake.enqueue('openai', { kind: 'image', outputFormat: 'png' });
    const result = await gpt().generate(request({ quality: 'high' }));
    expect(fake.requests('openai')[0]?.body).toEqual({
      model: 'gpt-image-1',
      prompt: 'a red fox, watercolour',
      n: 1,
      quality: 'high',
    });
    expect(result.images).toHaveLength(1);
    expect(result.images[0]?.mediaType).toBe('image/png');
    expect(
      Buffer.from(result.images[0]?.bytes ?? []).equals(Buffer.from(fake.served()[0] ?? [])),
    ).toBe(true);
    expect(result.usage).toEqual({ inputTokens: 50, outputTokens: 1056, totalTokens: 1106 });
  });

  test('a safety refusal is content_policy_violation, not retryable', async () => {
    fake.enqueue('openai', { kind: 'moderation' });
    const error = await failure(gpt().generate(request()));
    expect(error.code).toBe('content_policy_violation');
    expect(error.retryable).toBe(false);
    expect(error.providerStatus).toBe(400);
  });

  test('insufficient quota is quota_exceeded (not retryable); a rate limit is rate_limited (retryable), tried once', async () => {
    fake.enqueue('openai', { kind: 'quota' });
    const quota = await failure(gpt().generate(request()));
    expect({ code: quota.code, retryable: quota.retryable }).toEqual({
      code: 'quota_exceeded',
      retryable: false,
    });
    fake.enqueue('openai', { kind: 'rate_limit' });
    const limited = await failure(gpt().generate(request()));
    expect({ code: limited.code, retryable: limited.retryable }).toEqual({
      code: 'rate_limited',
      retryable: true,
    });
    // maxRetries 0: a retry would spend the tool's budget and could bill twice.
    expect(fake.requests('openai')).toHaveLength(2);
  });

  test('aborting the signal aborts the request in flight', async () => {
    fake.enqueue('openai', { kind: 'hang' });
    const controller = new AbortController();
    const pending = failure(gpt().generate(request({ signal: controller.signal })));
    expect(await waitUntil(() => fake.requests('openai').length === 1)).toBe(true);
    controller.abort();
    expect((await pending).code).toBe('aborted');
    await fake.requests('openai')[0]?.abortedSignal;
    expect(fake.requests('openai')[0]?.aborted).toBe(true);
  });

  test("an OpenAI-compatible server's url answer is fetched from its own origin, with the revised prompt", async () => {
    const compatible = createOpenAIImageModel({
      provider: 'openai-compatible',
      modelId: 'stablediffusion',
      baseURL: fake.baseUrl('openai'),
    });
    fake.enqueue('openai', { kind: 'url' });
    const result = await compatible.generate(request());
    // quality auto is left to the server's own default.
    expect(fake.requests('openai')[0]?.body).toEqual({
      model: 'stablediffusion',
      prompt: 'a red fox, watercolour',
      n: 1,
    });
    expect(result.images[0]?.revisedPrompt).toBe('a red fox, watercolour (revised)');
    expect(
      Buffer.from(result.images[0]?.bytes ?? []).equals(Buffer.from(fake.served()[0] ?? [])),
    ).toBe(true);
  });

  test('a url answer pointing at another private address is refused by the URL guard', async () => {
    const compatible = createOpenAIImageModel({
      provider: 'openai-compatible',
      modelId: 'stablediffusion',
      baseURL: fake.baseUrl('openai'),
    });
    fake.enqueue('openai', { kind: 'url', url: 'http://169.254.169.254/latest/meta-data/' });
    const error = await failure(compatible.generate(request()));
    expect(error.code).toBe('provider_error');
    expect(error.message).toContain('169.254.169.254');
  });
});

describe('Gemini image adapter', () => {
  const model = (modelId = 'gemini-2.5-flash-image') =>
    createGeminiImageModel({ modelId, apiKey: 'gm-test', baseURL: fake.baseUrl('gemini') });

  test('asks generateContent for image output and keeps the final image, not the thought draft', async () => {
    fake.enqueue('gemini', { kind: 'image', thoughtFirst: true });
    const result = await model('gemini-3-pro-image-preview').generate(request({ quality: 'high' }));
    const sent = fake.requests('gemini')[0];
    expect(sent?.path).toBe('/v1beta/models/gemini-3-pro-image-preview:generateContent');
    expect(sent?.body.generationConfig).toEqual({
      responseModalities: ['IMAGE'],
      imageConfig: { imageSize: '2K' },
    });
    expect(sent?.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'a red fox, watercolour' }] },
    ]);
    expect(result.images).toHaveLength(1);
    expect(
      Buffer.from(result.images[0]?.bytes ?? []).equals(Buffer.from(fake.served()[0] ?? [])),
    ).toBe(true);
    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 1290, totalTokens: 1302 });
  });

  test('gemini-2.5-flash-image gets no imageSize, and says so in a warning', async () => {
    const result = await model().generate(request({ quality: 'low' }));
    expect(fake.requests('gemini')[0]?.body.generationConfig).toEqual({
      responseModalities: ['IMAGE'],
    });
    expect(result.warnings).toEqual([
      expect.objectContaining({ type: 'unsupported', feature: 'quality' }),
    ]);
  });

  test('IMAGE_SAFETY is content_policy_violation; a text-only answer is provider_error', async () => {
    fake.enqueue('gemini', { kind: 'moderation' }, { kind: 'text_only' });
    const refused = await failure(model().generate(request()));
    expect(refused.code).toBe('content_policy_violation');
    const textOnly = await failure(model().generate(request()));
    expect(textOnly.code).toBe('provider_error');
    expect(textOnly.message).toContain('I can only describe it in words.');
  });

  test('RESOURCE_EXHAUSTED is rate_limited; aborting reaches the server', async () => {
    fake.enqueue('gemini', { kind: 'rate_limit' }, { kind: 'hang' });
    expect((await failure(model().generate(request()))).code).toBe('rate_limited');
    const controller = new AbortController();
    const pending = failure(model().generate(request({ signal: controller.signal })));
    expect(await waitUntil(() => fake.requests('gemini').length === 2)).toBe(true);
    controller.abort();
    expect((await pending).code).toBe('aborted');
    await fake.requests('gemini')[1]?.abortedSignal;
    expect(fake.requests('gemini')[1]?.aborted).toBe(true);
  });
});

test('a refused connection is connection_failed (retryable) for both image adapters', async () => {
  // A port that was just free: nothing listens there.
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as { port: number };
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  const closed = `http://127.0.0.1:${port}`;
  for (const model of [
    createOpenAIImageModel({
      provider: 'openai',
      modelId: 'gpt-image-1',
      apiKey: 'k',
      baseURL: `${closed}/v1`,
    }),
    createGeminiImageModel({ modelId: 'gemini-2.5-flash-image', apiKey: 'k', baseURL: closed }),
  ]) {
    const error = await failure(model.generate(request()));
    expect({ name: model.name, code: error.code, retryable: error.retryable }).toEqual({
      name: model.name,
      code: 'connection_failed',
      retryable: true,
    });
  }
});
