import { expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../../../src/db/database';
import { createChatRepository } from '../../../../src/services/chat/chat-repository';
import {
  createDatabaseImageStore,
  createDirectoryImageBytes,
  ImageStoreError,
} from '../../../../src/services/images';
import { createTestPng, JPEG_MAGIC } from '../../../support/images/test-png';
import { createTempTree } from '../../../support/temp-tree';
import { describeEachDatabase } from '../../../support/test-databases';
import { insertTestChat, insertTestUser } from '../../../support/test-rows';
import { waitUntil } from '../../../support/wait-until';

describeEachDatabase('database image store', (_kind, current) => {
  test('keeps bytes and metadata, read back by the owner only', async () => {
    const { database } = current();
    const images = createDatabaseImageStore(database, () => Date.parse('2026-01-02T03:04:05Z'));
    const owner = await insertTestUser(database, 'owner');
    const stranger = await insertTestUser(database, 'stranger');
    const chatId = await insertTestChat(database, owner);
    const bytes = createTestPng('a red fox');
    const saved = await images.save({
      userId: owner,
      chatId,
      toolCallId: 'call_1',
      mimeType: 'image/png',
      bytes,
      prompt: 'a red fox',
      model: 'openai:gpt-image-1',
    });
    expect(saved).toEqual({
      id: expect.stringMatching(/^img_[0-9a-f]{32}$/),
      url: `/api/images/${saved.id}`,
      mimeType: 'image/png',
      byteSize: bytes.byteLength,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    const read = await images.read(owner, saved.id);
    expect(read).toMatchObject({
      ...saved,
      userId: owner,
      chatId,
      toolCallId: 'call_1',
      prompt: 'a red fox',
      model: 'openai:gpt-image-1',
      createdAt: '2026-01-02T03:04:05.000Z',
    });
    expect(Buffer.from(read?.bytes ?? []).equals(Buffer.from(bytes))).toBe(true);
    expect(await images.find(owner, saved.id)).toMatchObject({
      id: saved.id,
      byteSize: bytes.byteLength,
    });
    expect(await images.find(stranger, saved.id)).toBeUndefined();
    expect(await images.read(stranger, saved.id)).toBeUndefined();
    expect(await images.find(owner, 'img_missing')).toBeUndefined();
    expect((await images.listForChat(owner, chatId)).map((image) => image.id)).toEqual([saved.id]);
    expect(await images.listForChat(stranger, chatId)).toEqual([]);
  });

  test('refuses what is not an image it keeps, or not the type claimed, and stores nothing', async () => {
    const { database } = current();
    const images = createDatabaseImageStore(database);
    const owner = await insertTestUser(database);
    const chatId = await insertTestChat(database, owner);
    const attempt = (bytes: Uint8Array, mimeType: string) =>
      images.save({ userId: owner, chatId, mimeType, bytes });
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>');
    for (const [bytes, mimeType, message] of [
      [new Uint8Array(), 'image/png', 'empty'],
      [svg, 'image/svg+xml', 'not a PNG, JPEG, WebP or GIF'],
      [JPEG_MAGIC, 'image/png', 'its bytes are image/jpeg'],
    ] as const) {
      const error = await attempt(bytes, mimeType).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ImageStoreError);
      expect((error as ImageStoreError).code).toBe('validation_failed');
      expect((error as Error).message).toContain(message);
    }
    // A vague claim is settled by the bytes; `image/jpg` is read as image/jpeg.
    expect((await attempt(createTestPng('x'), 'application/octet-stream')).mimeType).toBe(
      'image/png',
    );
    expect((await attempt(JPEG_MAGIC, 'image/jpg')).mimeType).toBe('image/jpeg');
    expect(await images.listForChat(owner, chatId)).toHaveLength(2);
  });

  test("deleting a chat deletes its images, not the user's others", async () => {
    const { database } = current();
    const images = createDatabaseImageStore(database);
    const chats = createChatRepository(database);
    const owner = await insertTestUser(database);
    const doomed = await insertTestChat(database, owner);
    const kept = await insertTestChat(database, owner);
    const gone = await images.save({
      userId: owner,
      chatId: doomed,
      mimeType: 'image/png',
      bytes: createTestPng('1'),
    });
    const stays = await images.save({
      userId: owner,
      chatId: kept,
      mimeType: 'image/png',
      bytes: createTestPng('2'),
    });
    expect(await chats.delete(owner, doomed)).toBe(true);
    expect(await images.find(owner, gone.id)).toBeUndefined();
    expect(await images.find(owner, stays.id)).toMatchObject({ id: stays.id });
  });

  test('an image read before its chat was deleted is gone at once here and soon on another instance', async () => {
    const { database, config } = current();
    const other = openDatabase(config);
    try {
      const here = createDatabaseImageStore(database);
      const there = createDatabaseImageStore(other);
      const chats = createChatRepository(database);
      const owner = await insertTestUser(database);
      const stranger = await insertTestUser(database);
      const doomed = await insertTestChat(database, owner);
      const kept = await insertTestChat(database, owner);
      const gone = await here.save({
        userId: owner,
        chatId: doomed,
        mimeType: 'image/png',
        bytes: createTestPng('doomed'),
      });
      const stays = await here.save({
        userId: owner,
        chatId: kept,
        mimeType: 'image/png',
        bytes: createTestPng('kept'),
      });
      // Both instances have served the images (their metadata and bytes are in memory).
      for (const store of [here, there]) {
        expect((await store.read(owner, gone.id))?.id).toBe(gone.id);
        expect((await store.read(owner, stays.id))?.id).toBe(stays.id);
        // A remembered image is still nobody else's.
        expect(await store.read(stranger, gone.id)).toBeUndefined();
        expect(await store.find(stranger, gone.id)).toBeUndefined();
      }
      // As the chat service deletes a chat: the rows, then the store's removeChat.
      expect(await chats.delete(owner, doomed)).toBe(true);
      await here.removeChat?.(doomed);
      expect(await here.read(owner, gone.id)).toBeUndefined();
      expect(await here.find(owner, gone.id)).toBeUndefined();
      expect(
        await waitUntil(async () => (await there.read(owner, gone.id)) === undefined, 5_000),
      ).toBe(true);
      expect(await there.find(owner, gone.id)).toBeUndefined();
      expect((await there.read(owner, stays.id))?.id).toBe(stays.id);
      expect((await here.read(owner, stays.id))?.id).toBe(stays.id);
    } finally {
      await other.close();
    }
  });
});

describeEachDatabase('image store with the bytes in a directory', (_kind, current) => {
  test('bytes go to <dir>/<chatId>/<imageId>, the row keeps the metadata; removeChat and sweep clean up', async () => {
    const { database } = current();
    const tree = createTempTree('mango-image-files');
    try {
      const directory = join(tree.root, 'images');
      const images = createDatabaseImageStore(database, Date.now, {
        bytes: createDirectoryImageBytes(directory),
        cacheBytes: 0,
      });
      const owner = await insertTestUser(database);
      const chatId = await insertTestChat(database, owner);
      const bytes = createTestPng('on disk');
      const saved = await images.save({ userId: owner, chatId, mimeType: 'image/png', bytes });
      expect(readFileSync(join(directory, chatId, saved.id)).equals(Buffer.from(bytes))).toBe(true);
      const row = await database.db
        .selectFrom('generated_images')
        .select(['data', 'byte_size'])
        .where('id', '=', saved.id)
        .executeTakeFirstOrThrow();
      expect({ stored: row.data.byteLength, size: Number(row.byte_size) }).toEqual({
        stored: 0,
        size: bytes.byteLength,
      });
      expect(
        Buffer.from((await images.read(owner, saved.id))?.bytes ?? []).equals(Buffer.from(bytes)),
      ).toBe(true);

      // A file whose row is gone (a crash between the two) is swept; the others stay.
      writeFileSync(join(directory, chatId, 'img_orphan'), 'x');
      mkdirSync(join(directory, 'chat_gone'));
      writeFileSync(join(directory, 'chat_gone', 'img_lost'), 'x');
      expect(await images.sweep?.()).toBe(2);
      expect(readdirSync(directory)).toEqual([chatId]);
      expect(readdirSync(join(directory, chatId))).toEqual([saved.id]);

      await images.removeChat?.(chatId);
      expect(existsSync(join(directory, chatId))).toBe(false);
      // The row without its file reads as absent, never as empty bytes.
      expect(await images.read(owner, saved.id)).toBeUndefined();
    } finally {
      tree.remove();
    }
  });
});
