/**
 * Image bytes as files, for a single instance (docs/images.md#keeping-the-bytes-in-a-directory):
 * `<directory>/<chatId>/<imageId>`, written to a temporary name and renamed, so
 * a file is either whole or absent. The metadata stays in the database. A
 * chat's directory goes when the chat is deleted (`removeChat`), and `sweep`
 * removes what a crash between the two may have left: files whose row is gone.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ImageBytesStore {
  put(chatId: string, imageId: string, bytes: Uint8Array): Promise<void>;
  /** The bytes, or undefined when the file is missing. */
  get(chatId: string, imageId: string): Promise<Uint8Array | undefined>;
  remove(chatId: string, imageId: string): Promise<void>;
  removeChat(chatId: string): Promise<void>;
  /** Removes every file whose image is not among `keep(chatId)`; resolves to how many went. */
  sweep(keep: (chatId: string) => Promise<ReadonlySet<string>>): Promise<number>;
}

/** Ids are generated here (`chat_…`, `img_…`); anything else never names a path. */
const SAFE_NAME = /^[A-Za-z0-9_-]{1,200}$/;

function checked(name: string): string {
  if (!SAFE_NAME.test(name)) throw new Error(`"${name}" cannot name an image file.`);
  return name;
}

export function createDirectoryImageBytes(directory: string): ImageBytesStore {
  const chatDirectory = (chatId: string) => join(directory, checked(chatId));
  const file = (chatId: string, imageId: string) => join(chatDirectory(chatId), checked(imageId));
  return {
    async put(chatId, imageId, bytes) {
      await mkdir(chatDirectory(chatId), { recursive: true, mode: 0o700 });
      const target = file(chatId, imageId);
      const temporary = `${target}.${process.pid}.tmp`;
      await writeFile(temporary, bytes, { mode: 0o600 });
      await rename(temporary, target);
    },
    async get(chatId, imageId) {
      try {
        return new Uint8Array(await readFile(file(chatId, imageId)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    remove: (chatId, imageId) => rm(file(chatId, imageId), { force: true }),
    removeChat: (chatId) => rm(chatDirectory(chatId), { recursive: true, force: true }),
    async sweep(keep) {
      let removed = 0;
      const chats = await readdir(directory).catch(() => [] as string[]);
      for (const chatId of chats) {
        if (!SAFE_NAME.test(chatId)) continue;
        const kept = await keep(chatId);
        const files = await readdir(chatDirectory(chatId)).catch(() => [] as string[]);
        for (const name of files) {
          if (kept.has(name)) continue;
          await rm(join(chatDirectory(chatId), name), { force: true });
          removed += 1;
        }
        if (kept.size === 0) await rm(chatDirectory(chatId), { recursive: true, force: true });
      }
      return removed;
    },
  };
}
