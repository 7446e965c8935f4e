/**
 * Reading a file through one descriptor with a cap on the bytes it delivers
 * (docs/tools/filesystem.md#read_file). Non-regular files (FIFOs, sockets, devices) are refused without
 * ever blocking on them, and the cap is measured on what the descriptor
 * delivers, so a file that grows or under-declares its size (`/proc`) is
 * refused at the cap instead of being read past it.
 */

import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { AppError } from '../../../errors';

export type FileKind =
  | 'file'
  | 'directory'
  | 'symlink'
  | 'fifo'
  | 'socket'
  | 'character device'
  | 'block device'
  | 'other';

export function describeFileKind(stats: Stats): FileKind {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isFIFO()) return 'fifo';
  if (stats.isSocket()) return 'socket';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  return 'other';
}

/** Why a file could not be opened as a regular file. */
export class NotRegularFileError extends AppError {
  constructor(readonly kind: FileKind) {
    super('validation_failed', `not a regular file (${kind})`);
  }
}

/** The descriptor delivered more than the cap allows. */
export class FileOverCapError extends AppError {
  constructor(
    readonly cap: number,
    /** What stat claimed when the file was opened. */
    readonly declaredSize: number,
  ) {
    super('validation_failed', `file delivers more than ${cap} bytes`);
  }
}

/**
 * Opens `realPath` read-only without following a final symlink and without
 * blocking (O_NONBLOCK makes opening a FIFO return at once), then checks with
 * fstat that the descriptor is a regular file. The caller must close it.
 */
export async function openRegularFile(
  realPath: string,
): Promise<{ handle: FileHandle; stats: Stats }> {
  const handle = await open(
    realPath,
    constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW,
  );
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(describeFileKind(stats));
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads from the current position to EOF, at most `cap` bytes. Throws
 * `FileOverCapError` as soon as the descriptor delivers byte `cap + 1`.
 */
export async function readAllCapped(
  handle: FileHandle,
  cap: number,
  declaredSize: number,
): Promise<Buffer> {
  // Sized to the declared size (+1 to see EOF in one go); grown when the file under-declares.
  let buffer = Buffer.allocUnsafe(Math.min(cap, declaredSize) + 1);
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      if (buffer.length > cap) throw new FileOverCapError(cap, declaredSize);
      const grown = Buffer.allocUnsafe(Math.min(cap + 1, Math.max(buffer.length * 2, 64 * 1024)));
      buffer.copy(grown, 0, 0, filled);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
    if (bytesRead === 0) break;
    filled += bytesRead;
    if (filled > cap) throw new FileOverCapError(cap, declaredSize);
  }
  return buffer.subarray(0, filled);
}

/**
 * Large read buffers are reused between calls. On virtual machines the first
 * touch of fresh memory is what costs: reading and hashing a cached 10 MiB file
 * into a fresh buffer measured ~35 ms here, into a reused one ~7 ms. Buffers
 * are allocated at the cap (untouched pages cost nothing), and at most
 * `POOLED_BUFFERS` are kept, so the pool holds at most that many caps of memory.
 */
const POOL_MIN_BYTES = 1024 * 1024;
const POOLED_BUFFERS = 2;
const pool: Buffer[] = [];

function takeBuffer(size: number, cap: number): Buffer {
  if (size < POOL_MIN_BYTES) return Buffer.allocUnsafe(size);
  // Most recently returned first: its pages are the likeliest to be resident.
  const index = pool.findLastIndex((buffer) => buffer.length >= size);
  if (index !== -1) return pool.splice(index, 1)[0] as Buffer;
  return Buffer.allocUnsafe(Math.max(size, cap + 1));
}

function giveBack(buffer: Buffer): void {
  if (buffer.length >= POOL_MIN_BYTES && pool.length < POOLED_BUFFERS) pool.push(buffer);
}

/** Bytes read into a pooled buffer: valid until `release()`, which the caller must call once. */
export interface LeasedBytes {
  bytes: Buffer;
  release(): void;
}

/** `readAllCapped` into a pooled buffer, for callers that are done with the bytes before they return. */
export async function readAllCappedLeased(
  handle: FileHandle,
  cap: number,
  declaredSize: number,
): Promise<LeasedBytes> {
  let buffer = takeBuffer(Math.min(cap, declaredSize) + 1, cap);
  let filled = 0;
  try {
    for (;;) {
      if (filled === buffer.length) {
        if (buffer.length > cap) throw new FileOverCapError(cap, declaredSize);
        const grown = takeBuffer(Math.min(cap + 1, Math.max(buffer.length * 2, 64 * 1024)), cap);
        buffer.copy(grown, 0, 0, filled);
        giveBack(buffer);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > cap) throw new FileOverCapError(cap, declaredSize);
    }
  } catch (error) {
    giveBack(buffer);
    throw error;
  }
  let released = false;
  const leased = buffer;
  return {
    bytes: leased.subarray(0, filled),
    release: () => {
      if (released) return;
      released = true;
      giveBack(leased);
    },
  };
}
