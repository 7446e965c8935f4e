/**
 * The images store's contract (docs/images.md#the-images-store): what a tool
 * or an MCP result hands over to keep an image, and what the images route
 * reads back. Callers know nothing of where the bytes live; the database
 * implementation (`database-image-store.ts`) keeps them where every API
 * instance can serve them.
 */
import type { ImageMediaType } from './image-media-types';

export interface SaveImageInput {
  /** An id made beforehand with `createImageId` (a tool that plans its images); a new one otherwise. */
  id?: string;
  /** The owner: the only user the image is served to. */
  userId: string;
  /** The chat it belongs to; deleting the chat deletes the image. */
  chatId: string;
  /** The tool call that produced it. */
  toolCallId?: string;
  /** What the provider or server says the bytes are; checked against the bytes themselves. */
  mimeType: string;
  bytes: Uint8Array;
  prompt?: string;
  /** `provider:modelId` of the model that made it. */
  model?: string;
}

/** A stored image as a reference: what a tool result, an event or a message part carries. */
export interface SavedImage {
  id: string;
  /** `/api/images/:id`, relative to the API's origin. */
  url: string;
  mimeType: ImageMediaType;
  byteSize: number;
  sha256: string;
}

export interface StoredImage extends SavedImage {
  userId: string;
  chatId: string | null;
  toolCallId: string | null;
  prompt: string | null;
  model: string | null;
  createdAt: string;
}

export interface ImageStore {
  /**
   * Keeps the image and resolves to its reference. Rejects with a
   * `validation_failed` `ImageStoreError` when the bytes are empty, too large,
   * not an image the store keeps, or not the type claimed.
   */
  save(input: SaveImageInput): Promise<SavedImage>;
  /** The image's metadata, when it exists and belongs to `userId` (another user's reads as absent). */
  find(userId: string, imageId: string): Promise<StoredImage | undefined>;
  /** The image with its bytes, under the same rule as `find`. */
  read(userId: string, imageId: string): Promise<(StoredImage & { bytes: Uint8Array }) | undefined>;
  /** The images of one chat of the user's, oldest first (metadata only). */
  listForChat(userId: string, chatId: string): Promise<StoredImage[]>;
  /**
   * Removes what a deleted chat leaves outside the database (its files, when
   * bytes are kept in a directory); the rows went with the chat.
   */
  removeChat?(chatId: string): Promise<void>;
  /** Removes stored bytes whose image row is gone (after a crash); resolves to how many. */
  sweep?(): Promise<number>;
}

/** The path an image is served at. */
export function imageUrl(imageId: string): string {
  return `/api/images/${imageId}`;
}

/** A new image id (`img_` and 32 hex digits). */
export function createImageId(): string {
  return `img_${crypto.randomUUID().replaceAll('-', '')}`;
}
