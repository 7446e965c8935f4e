/**
 * generate_image's scenarios, per image provider, on the official SDKs against
 * the fake image server and a real images store: one image; four with the
 * second refused; the budget running out during the third; cancel; a count
 * above the maximum; letAiDecideQuality off and on; no model configured.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { createDatabaseImageStore } from '../../../../../src/services/images/database-image-store';
import type { ImageStore } from '../../../../../src/services/images/image-store';
import {
  createImageModelRegistry,
  type ImageModelRegistry,
} from '../../../../../src/services/providers/image-model-registry';
import {
  createGenerateImageTool,
  createToolRegistry,
  executeTool,
  NO_IMAGE_MODEL_REASON,
  type ToolAttachment,
  type ToolRegistry,
} from '../../../../../src/services/tools';
import {
  type FakeImageProvider,
  type FakeImageServer,
  startFakeImageServer,
} from '../../../../support/fake-images/fake-image-server';
import { createTestDatabase, type TestDatabase } from '../../../../support/test-databases';
import { insertTestChat, insertTestUser } from '../../../../support/test-rows';
import { createTestCallContext } from '../../../../support/tool-context';
import { waitUntil } from '../../../../support/wait-until';

let fake: FakeImageServer;
let testDatabase: TestDatabase;
beforeAll(async () => {
  fake = await startFakeImageServer();
  testDatabase = await createTestDatabase('sqlite');
}, 30_000);
beforeEach(() => fake.reset());
afterAll(async () => {
  await fake.close();
  await testDatabase.dispose();
});

const MODELS: Record<FakeImageProvider, string> = {
  openai: 'openai:gpt-image-1',
  gemini: 'gemini:gemini-3-pro-image-preview',
};

interface Scenario {
  registry: ToolRegistry;
  images: ImageStore;
  userId: string;
  chatId: string;
  attachments: ToolAttachment[];
  run(
    args: unknown,
    options?: { parameters?: Record<string, unknown>; signal?: AbortSignal },
  ): Promise<unknown>;
}

function imageModels(provider: FakeImageProvider, names = [MODELS[provider]]): ImageModelRegistry {
  return createImageModelRegistry(
    names.map((name) => {
      const [prefix, modelId] = name.split(':') as [FakeImageProvider, string];
      return { name, provider: prefix, modelId };
    }),
    {
      openai: { apiKey: 'sk-test', baseURL: fake.baseUrl('openai') },
      gemini: { apiKey: 'gm-test', baseURL: fake.baseUrl('gemini') },
    },
  );
}

async function scenario(provider: FakeImageProvider): Promise<Scenario> {
  const { database } = testDatabase;
  const images = createDatabaseImageStore(database);
  const registry = createToolRegistry();
  registry.register(createGenerateImageTool({ models: imageModels(provider), images }));
  const userId = await insertTestUser(database);
  const chatId = await insertTestChat(database, userId);
  const attachments: ToolAttachment[] = [];
  return {
    registry,
    images,
    userId,
    chatId,
    attachments,
    run: (args, options = {}) =>
      executeTool(
        'generate_image',
        args,
        createTestCallContext({
          userId,
          chatId,
          toolCallId: 'call_img',
          attach: (attachment) => attachments.push(attachment),
          ...(options.signal ? { signal: options.signal } : {}),
        }),
        { enabled: true, parameters: options.parameters ?? {} },
        { registry },
      ),
  };
}

interface Summary {
  images: { index: number; imageId: string; url: string; model: string; generationMs: number }[];
  errors?: { index: number; code: string }[];
  count: number;
  quality: string;
  warnings?: { feature?: string }[];
}

const sameBytes = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
  Buffer.from(a ?? []).equals(Buffer.from(b ?? []));

for (const provider of ['openai', 'gemini'] as const) {
  describe(`generate_image [${provider}]`, () => {
    test('one image: stored with its metadata, attached, and referred to (no bytes) in the result', async () => {
      const s = await scenario(provider);
      const result = (await s.run({ prompt: 'a lighthouse at dusk' })) as Summary;
      expect(result).toMatchObject({ count: 1, images: [{ index: 0, model: MODELS[provider] }] });
      const [image] = result.images;
      expect(image?.url).toBe(`/api/images/${image?.imageId}`);
      expect(image?.generationMs).toBeGreaterThanOrEqual(0);
      const stored = await s.images.read(s.userId, image?.imageId ?? '');
      expect(stored).toMatchObject({
        chatId: s.chatId,
        toolCallId: 'call_img',
        prompt: 'a lighthouse at dusk',
        model: MODELS[provider],
        mimeType: 'image/png',
      });
      expect(sameBytes(stored?.bytes, fake.served()[0])).toBe(true);
      expect(s.attachments).toEqual([
        expect.objectContaining({
          type: 'image',
          index: 0,
          imageId: image?.imageId,
          mediaType: 'image/png',
        }),
      ]);
      const text = JSON.stringify(result);
      expect(text).not.toContain(Buffer.from(fake.served()[0] ?? []).toString('base64'));
      expect(text.length).toBeLessThan(2000);
    });

    test('four images, the second refused: three stored, one error, the order kept', async () => {
      const s = await scenario(provider);
      fake.enqueue(
        provider,
        { kind: 'image' },
        { kind: 'moderation' },
        { kind: 'image' },
        { kind: 'image' },
      );
      const result = (await s.run({ prompt: 'four foxes', count: 4 })) as Summary;
      expect(result.images.map((image) => image.index)).toEqual([0, 2, 3]);
      expect(result.errors).toEqual([
        expect.objectContaining({ index: 1, code: 'content_policy_violation' }),
      ]);
      expect(result.count).toBe(3);
      expect(fake.requests(provider)).toHaveLength(4);
      const stored = await s.images.listForChat(s.userId, s.chatId);
      expect(stored.map((image) => image.id).sort()).toEqual(
        result.images.map((image) => image.imageId).sort(),
      );
      expect(s.attachments.map((attachment) => `${attachment.type}:${attachment.index}`)).toEqual([
        'image:0',
        'image_failed:1',
        'image:2',
        'image:3',
      ]);
    });

    test('the budget runs out during the third image: its request is aborted, two stored, timeout for the rest', async () => {
      const s = await scenario(provider);
      fake.enqueue(
        provider,
        { kind: 'image' },
        { kind: 'image' },
        { kind: 'hang' },
        { kind: 'image' },
      );
      const result = (await s.run(
        { prompt: 'slow paintings', count: 4 },
        { parameters: { timeoutSeconds: 5 } },
      )) as Summary;
      expect(result.images.map((image) => image.index)).toEqual([0, 1]);
      expect(result.errors?.map((error) => [error.index, error.code])).toEqual([
        [2, 'timeout'],
        [3, 'timeout'],
      ]);
      const requests = fake.requests(provider);
      expect(requests).toHaveLength(3);
      await requests[2]?.abortedSignal;
      expect(requests[2]?.aborted).toBe(true);
      expect(await s.images.listForChat(s.userId, s.chatId)).toHaveLength(2);
    }, 20_000);

    test('cancel: the request in flight is aborted, the finished image is kept', async () => {
      const s = await scenario(provider);
      fake.enqueue(provider, { kind: 'image' }, { kind: 'hang' });
      const controller = new AbortController();
      const pending = s.run(
        { prompt: 'a stopped series', count: 3 },
        { signal: controller.signal },
      );
      expect(await waitUntil(() => fake.requests(provider).length === 2)).toBe(true);
      controller.abort();
      const result = (await pending) as Summary;
      expect(result.images.map((image) => image.index)).toEqual([0]);
      expect(result.errors?.map((error) => [error.index, error.code])).toEqual([
        [1, 'aborted'],
        [2, 'aborted'],
      ]);
      await fake.requests(provider)[1]?.abortedSignal;
      expect(fake.requests(provider)[1]?.aborted).toBe(true);
      expect(await s.images.listForChat(s.userId, s.chatId)).toHaveLength(1);
    });

    test('every image failing is an error result with the reasons; a count above the maximum is validation_failed', async () => {
      const s = await scenario(provider);
      fake.enqueue(provider, { kind: 'moderation' });
      const refused = await s.run({ prompt: 'refused' }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'execution_failed' });
      expect((refused as Error).message).toContain('content_policy_violation');
      const tooMany = await s
        .run({ prompt: 'many', count: 3 }, { parameters: { maxImagesPerCall: 2 } })
        .catch((error: unknown) => error);
      expect(tooMany).toMatchObject({ code: 'validation_failed', details: { argument: 'count' } });
      expect((tooMany as Error).message).toContain('at most 2');
      const blank = await s.run({ prompt: '   ' }).catch((error: unknown) => error);
      expect(blank).toMatchObject({ code: 'validation_failed', details: { argument: 'prompt' } });
      expect(fake.requests(provider)).toHaveLength(1);
    });

    test("letAiDecideQuality off: the user's quality applies; on: the model's", async () => {
      const s = await scenario(provider);
      const sentQuality = (index: number) => {
        const body = fake.requests(provider)[index]?.body;
        return provider === 'openai' ? body.quality : body.generationConfig.imageConfig?.imageSize;
      };
      const off = (await s.run(
        { prompt: 'q', quality: 'high' },
        { parameters: { defaultQuality: 'low', letAiDecideQuality: false } },
      )) as Summary;
      expect(off.quality).toBe('low');
      expect(off.warnings).toEqual([expect.objectContaining({ feature: 'quality' })]);
      const on = (await s.run(
        { prompt: 'q', quality: 'high' },
        { parameters: { defaultQuality: 'low', letAiDecideQuality: true } },
      )) as Summary;
      expect(on.quality).toBe('high');
      expect([sentQuality(0), sentQuality(1)]).toEqual(
        provider === 'openai' ? ['low', 'high'] : ['1K', '2K'],
      );
      // What the model is shown follows the setting.
      const tool = s.registry.get('generate_image');
      const shown = (letAiDecideQuality: boolean) =>
        Object.keys(
          tool?.buildDefinition?.({
            enabled: true,
            parameters: { letAiDecideQuality, maxImagesPerCall: 3 },
          }).parameters.properties ?? {},
        );
      expect(shown(false)).toEqual(['prompt', 'count']);
      expect(shown(true)).toEqual(['prompt', 'count', 'quality']);
      expect(
        tool?.buildDefinition?.({ enabled: true, parameters: { maxImagesPerCall: 3 } }).parameters
          .properties?.count?.maximum,
      ).toBe(3);
    });
  });
}

test('no image model configured (or none whose provider has a key): unavailable with that reason', async () => {
  const images = createDatabaseImageStore(testDatabase.database);
  const names = [
    { name: 'openai:gpt-image-1', provider: 'openai' as const, modelId: 'gpt-image-1' },
  ];
  for (const models of [createImageModelRegistry([], {}), createImageModelRegistry(names, {})]) {
    const tool = createGenerateImageTool({ models, images });
    expect(await tool.unavailableReason?.({ userId: 'u' })).toBe(NO_IMAGE_MODEL_REASON);
  }
  const offered = createGenerateImageTool({ models: imageModels('openai'), images });
  expect(await offered.unavailableReason?.({ userId: 'u' })).toBeUndefined();
});
