import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestPng } from '../../support/images/test-png';
import { createTempTree, type TempTree } from '../../support/temp-tree';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase, type TestDatabase } from '../../support/test-databases';

describeEachDatabase('GET /api/images/:id', (_kind, current) => {
  for (const bytesIn of ['database', 'directory'] as const)
    describe(`bytes in the ${bytesIn}`, () => {
      routeTests(current, bytesIn);
    });
});

function routeTests(current: () => TestDatabase, bytesIn: 'database' | 'directory') {
  let app: TestApp;
  let owner: TestUser;
  let stranger: TestUser;
  let tree: TempTree | undefined;
  beforeAll(async () => {
    if (bytesIn === 'directory') tree = createTempTree('mango-images');
    app = startTestApp(
      current().database,
      tree ? { imageDirectory: join(tree.root, 'images') } : {},
    );
    owner = await app.signUp();
    stranger = await app.signUp();
  }, 30_000);
  afterAll(async () => {
    await app.stop();
    tree?.remove();
  });

  const createChat = async (user: TestUser) => {
    const response = await app.fetch('/api/chats', {
      method: 'POST',
      user,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'images' }),
    });
    return ((await response.json()) as { id: string }).id;
  };

  test('serves the bytes to their owner with type, nosniff, ETag and long private caching', async () => {
    const chatId = await createChat(owner);
    const bytes = createTestPng('served');
    const saved = await app.services.images.save({
      userId: owner.id,
      chatId,
      mimeType: 'image/png',
      bytes,
    });
    const response = await app.fetch(saved.url, { user: owner });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('etag')).toBe(`"${saved.sha256}"`);
    expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);

    const again = await app.fetch(saved.url, {
      user: owner,
      headers: { 'if-none-match': `"${saved.sha256}"` },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const changed = await app.fetch(saved.url, {
      user: owner,
      headers: { 'if-none-match': '"something-else"' },
    });
    expect(changed.status).toBe(200);
  });

  test("another user's image, a missing one and an anonymous request are refused", async () => {
    const chatId = await createChat(owner);
    const saved = await app.services.images.save({
      userId: owner.id,
      chatId,
      mimeType: 'image/png',
      bytes: createTestPng('private'),
    });
    const foreign = await app.fetch(saved.url, { user: stranger });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await app.fetch('/api/images/img_nothing', { user: owner })).status).toBe(404);
    expect((await app.fetch(saved.url)).status).toBe(401);
  });

  test('deleting the chat deletes its images', async () => {
    const chatId = await createChat(owner);
    const saved = await app.services.images.save({
      userId: owner.id,
      chatId,
      mimeType: 'image/png',
      bytes: createTestPng('doomed'),
    });
    expect((await app.fetch(saved.url, { user: owner })).status).toBe(200);
    const chatFiles = tree ? join(tree.root, 'images', chatId) : undefined;
    if (chatFiles) expect(readdirSync(chatFiles)).toEqual([saved.id]);
    const deleted = await app.fetch(`/api/chats/${chatId}`, { method: 'DELETE', user: owner });
    expect(deleted.status).toBe(204);
    expect((await app.fetch(saved.url, { user: owner })).status).toBe(404);
    if (chatFiles) expect(existsSync(chatFiles)).toBe(false);
  });
}
