/**
 * The images store on the application's database (docs/images.md#the-images-store):
 * bytes and metadata in one `generated_images` row, so every API instance
 * sharing the database serves every image. Rows are scoped by their owner on
 * every read; a chat's rows go with the chat (a cascading foreign key).
 */
import { createHash } from 'node:crypto';
import type { AppDatabase } from '../../db/database';
import { createFeedBackedCache } from '../../db/feed-backed-cache';
import { readTimestamp, writeTimestamp } from '../../db/values';
import type { ImageBytesStore } from './directory-image-bytes';
import {
  type ImageMediaType,
  normalizeClaimedMediaType,
  sniffImageMediaType,
} from './image-media-types';
import {
  createImageId,
  type ImageStore,
  imageUrl,
  type SavedImage,
  type StoredImage,
} from './image-store';
import { ImageStoreError } from './image-store-errors';

/** The change-feed channel that says "a chat's images were deleted" (its key is the chat's id). */
export const IMAGES_CHANNEL = 'generated_images';
/** Images whose metadata one instance keeps in memory. */
const METADATA_CACHE_ENTRIES = 10_000;
/** Bounds how long a deletion nobody signalled (an instance that died between deleting and signalling) can go unseen. */
const METADATA_CACHE_TTL_MS = 60_000;

/** The largest image kept (a 4K PNG is well below it). */
export const MAX_IMAGE_BYTES = 32 * 1024 * 1024;
/** Bytes of recently served images kept in memory (per instance) by default. */
export const DEFAULT_IMAGE_CACHE_BYTES = 64 * 1024 * 1024;

export interface DatabaseImageStoreOptions {
  /** Bytes of images kept in memory; 0 turns the cache off. */
  cacheBytes?: number;
  /**
   * Where the bytes live when not in the row (a directory, for a single
   * instance); the metadata is in the database either way.
   */
  bytes?: ImageBytesStore;
}

/**
 * Image bytes by id, least recently used out first. An image never changes
 * under its id, so cached bytes cannot be stale. Whether the image still
 * exists and whose it is comes from its metadata row, which is cached too
 * while the change feed vouches for it: deleting a chat signals every
 * instance to forget (`IMAGES_CHANNEL`), so a deleted chat's images are gone
 * at once everywhere; without a live feed the row is read on every request.
 */
function createBytesCache(capacity: number) {
  const entries = new Map<string, Uint8Array>();
  let size = 0;
  return {
    get(id: string): Uint8Array | undefined {
      const bytes = entries.get(id);
      if (bytes) {
        entries.delete(id);
        entries.set(id, bytes);
      }
      return bytes;
    },
    set(id: string, bytes: Uint8Array): void {
      if (bytes.byteLength > capacity || entries.has(id)) return;
      entries.set(id, bytes);
      size += bytes.byteLength;
      for (const [oldest, old] of entries) {
        if (size <= capacity) break;
        entries.delete(oldest);
        size -= old.byteLength;
      }
    },
  };
}

interface ImageRow {
  id: string;
  user_id: string;
  chat_id: string | null;
  tool_call_id: string | null;
  prompt: string | null;
  model: string | null;
  mime_type: string;
  byte_size: number;
  sha256: string;
  created_at: Date | string;
}

const METADATA = [
  'id',
  'user_id',
  'chat_id',
  'tool_call_id',
  'prompt',
  'model',
  'mime_type',
  'byte_size',
  'sha256',
  'created_at',
] as const;

function toStoredImage(row: ImageRow): StoredImage {
  return {
    id: row.id,
    url: imageUrl(row.id),
    mimeType: row.mime_type as ImageMediaType,
    byteSize: Number(row.byte_size),
    sha256: row.sha256,
    userId: row.user_id,
    chatId: row.chat_id,
    toolCallId: row.tool_call_id,
    prompt: row.prompt,
    model: row.model,
    createdAt: readTimestamp(row.created_at),
  };
}

/** The bytes' real type, when they are an image the store keeps and what was claimed. */
export function checkImageBytes(bytes: Uint8Array, claimed: string): ImageMediaType {
  if (bytes.byteLength === 0) throw new ImageStoreError('The image is empty (0 bytes).');
  if (bytes.byteLength > MAX_IMAGE_BYTES)
    throw new ImageStoreError(
      `The image is ${bytes.byteLength} bytes; the store keeps images up to ${MAX_IMAGE_BYTES} bytes.`,
      { byteSize: bytes.byteLength, maxBytes: MAX_IMAGE_BYTES },
    );
  const sniffed = sniffImageMediaType(bytes);
  if (!sniffed)
    throw new ImageStoreError(
      `The bytes claimed as "${claimed}" are not a PNG, JPEG, WebP or GIF image; only those are kept.`,
      { mimeType: claimed },
    );
  const normalized = normalizeClaimedMediaType(claimed);
  // A provider that says "application/octet-stream" (or nothing useful) is trusted to the bytes.
  if (normalized.startsWith('image/') && normalized !== sniffed)
    throw new ImageStoreError(
      `The image was claimed as "${claimed}" but its bytes are ${sniffed}.`,
      { mimeType: claimed, actual: sniffed },
    );
  return sniffed;
}

export function createDatabaseImageStore(
  database: AppDatabase,
  now: () => number = Date.now,
  options: DatabaseImageStoreOptions = {},
): ImageStore {
  const { db } = database;
  const cache = createBytesCache(options.cacheBytes ?? DEFAULT_IMAGE_CACHE_BYTES);
  const files = options.bytes;
  const selectOwned = (userId: string, imageId: string) =>
    db.selectFrom('generated_images').where('id', '=', imageId).where('user_id', '=', userId);
  const metadataCache = createFeedBackedCache<StoredImage>({
    feed: database.changes,
    channel: IMAGES_CHANNEL,
    // Keyed by image, signalled by chat: a deletion forgets every entry (chats are deleted rarely).
    invalidates: 'all',
    maxEntries: METADATA_CACHE_ENTRIES,
    ttlMs: METADATA_CACHE_TTL_MS,
  });
  /** The caller's image's metadata, from memory while the feed vouches for it. */
  const findOwned = async (userId: string, imageId: string) => {
    const known = metadataCache.fresh(imageId);
    if (known) return known.userId === userId ? { ...known } : undefined;
    const read = metadataCache.startRead(imageId);
    const row = await selectOwned(userId, imageId).select(METADATA).executeTakeFirst();
    if (!row) return undefined;
    const image = toStoredImage(row);
    read.store(image);
    return image;
  };

  return {
    async save(input) {
      const mimeType = checkImageBytes(input.bytes, input.mimeType);
      const id = input.id ?? createImageId();
      const sha256 = createHash('sha256').update(input.bytes).digest('hex');
      // The file first: a row is never without its bytes (a file without a row is swept).
      await files?.put(input.chatId, id, input.bytes);
      await db
        .insertInto('generated_images')
        .values({
          id,
          user_id: input.userId,
          chat_id: input.chatId,
          tool_call_id: input.toolCallId ?? null,
          prompt: input.prompt ?? null,
          model: input.model ?? null,
          mime_type: mimeType,
          byte_size: input.bytes.byteLength,
          sha256,
          data: files ? new Uint8Array() : input.bytes,
          created_at: writeTimestamp(now()),
        })
        .execute()
        .catch(async (error: unknown) => {
          await files?.remove(input.chatId, id);
          throw error;
        });
      const saved: SavedImage = {
        id,
        url: imageUrl(id),
        mimeType,
        byteSize: input.bytes.byteLength,
        sha256,
      };
      return saved;
    },

    find: findOwned,

    async read(userId, imageId) {
      const cached = cache.get(imageId);
      if (cached) {
        const image = await findOwned(userId, imageId);
        return image ? { ...image, bytes: cached } : undefined;
      }
      if (files) {
        const image = await findOwned(userId, imageId);
        const data = image?.chatId ? await files.get(image.chatId, imageId) : undefined;
        if (!image || !data) return undefined;
        cache.set(imageId, data);
        return { ...image, bytes: data };
      }
      const metadata = metadataCache.startRead(imageId);
      const row = await selectOwned(userId, imageId)
        .select([...METADATA, 'data'])
        .executeTakeFirst();
      if (!row) return undefined;
      const data = row.data as Uint8Array;
      cache.set(imageId, data);
      const image = toStoredImage(row);
      metadata.store(image);
      return { ...image, bytes: data };
    },

    async removeChat(chatId) {
      // The rows are gone (the chat's deletion cascaded); this instance forgets at once,
      // the others when the signal reaches them.
      metadataCache.forgetAll();
      await database.changes.notify(IMAGES_CHANNEL, chatId).catch(() => {
        // The deletion stands; other instances stop serving the images when their entries expire.
      });
      await files?.removeChat(chatId);
    },

    async sweep() {
      if (!files) return 0;
      return files.sweep(async (chatId) => {
        const rows = await db
          .selectFrom('generated_images')
          .select('id')
          .where('chat_id', '=', chatId)
          .execute();
        return new Set(rows.map((row) => row.id));
      });
    },

    async listForChat(userId, chatId) {
      const rows = await db
        .selectFrom('generated_images')
        .select(METADATA)
        .where('chat_id', '=', chatId)
        .where('user_id', '=', userId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
      return rows.map(toStoredImage);
    },
  };
}
