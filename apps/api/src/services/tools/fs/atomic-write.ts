/**
 * Writing file contents so nobody ever sees half a file (docs/tools/filesystem.md#the-freshness-ledger): a temp
 * file in the same directory, flushed, then renamed over the target (keeping
 * its permission bits and, where allowed, its owner) or hard-linked into place
 * for an exclusive create.
 *
 * A temp file is named after the process writing it
 * (`.mango-write-<pid>-<random>.tmp`). A process that dies mid-write leaves
 * its temp file behind; the first write of a later process into that
 * directory removes every temp file whose process is gone.
 */

import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { link, mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../errors';
import { errorCode } from './file-errors';

/** The target appeared between the check and the create. */
export class FileAlreadyExistsError extends AppError {
  constructor(readonly targetPath: string) {
    super('conflict', `${targetPath} already exists`, { retryable: false });
  }
}

function tempPathBeside(target: string): string {
  // Short: the target's own name may already be 255 bytes long.
  return path.join(
    path.dirname(target),
    `.mango-write-${process.pid}-${randomBytes(6).toString('hex')}.tmp`,
  );
}

const TEMP_NAME = /^\.mango-write-(\d+)-[0-9a-f]{12}\.tmp$/;

function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return errorCode(error) === 'EPERM';
  }
}

/** Directories this process has cleaned; a process that is running leaves no temp file of its own behind. */
const cleanedDirectories = new Set<string>();
const MAX_CLEANED_DIRECTORIES = 10_000;

/** Removes the temp files that writers which died mid-write left in `directory` (once per process). */
export async function removeAbandonedTempFiles(directory: string): Promise<string[]> {
  if (cleanedDirectories.has(directory)) return [];
  if (cleanedDirectories.size >= MAX_CLEANED_DIRECTORIES) cleanedDirectories.clear();
  cleanedDirectories.add(directory);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const owner = TEMP_NAME.exec(name)?.[1];
    if (owner === undefined) continue;
    const pid = Number(owner);
    // This process's own temp files belong to writes in flight.
    if (pid === process.pid || isProcessRunning(pid)) continue;
    try {
      await unlink(path.join(directory, name));
      removed.push(name);
    } catch {
      // removed by someone else meanwhile
    }
  }
  return removed;
}

async function writeTemp(
  target: string,
  bytes: Uint8Array,
  mode?: number,
  owner?: Stats,
): Promise<string> {
  await removeAbandonedTempFiles(path.dirname(target));
  const temp = tempPathBeside(target);
  const handle = await open(temp, 'wx', mode ?? 0o666);
  try {
    await handle.writeFile(bytes);
    // open() applies the umask; an overwrite keeps exactly the original bits.
    if (mode !== undefined) await handle.chmod(mode);
    if (owner !== undefined) await handle.chown(owner.uid, owner.gid).catch(() => {});
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  }
  await handle.close();
  return temp;
}

/** Replaces an existing regular file atomically, keeping its mode bits; returns the new stats. */
export async function replaceFileAtomically(
  target: string,
  bytes: Uint8Array,
  original: Stats,
): Promise<Stats> {
  const temp = await writeTemp(target, bytes, original.mode & 0o7777, original);
  try {
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  return stat(target);
}

/**
 * Creates a new file with its parents. The create is exclusive: a hard link of
 * the finished temp file either takes the name or fails because it exists, so
 * a concurrent creator is never overwritten and never sees partial content.
 * Filesystems without hard links fall back to an exclusive open.
 */
export async function createFileExclusively(target: string, bytes: Uint8Array): Promise<Stats> {
  await mkdir(path.dirname(target), { recursive: true });
  const temp = await writeTemp(target, bytes);
  try {
    await link(temp, target);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') throw new FileAlreadyExistsError(target);
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV')
      throw error;
    await createByExclusiveOpen(target, bytes);
  } finally {
    await unlink(temp).catch(() => {});
  }
  return stat(target);
}

async function createByExclusiveOpen(target: string, bytes: Uint8Array): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(target, 'wx');
  } catch (error) {
    if (errorCode(error) === 'EEXIST') throw new FileAlreadyExistsError(target);
    throw error;
  }
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
