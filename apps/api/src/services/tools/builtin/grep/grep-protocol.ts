/**
 * The messages between grep's worker pool and its workers, and the layout of
 * the shared memory both sides use to cancel work and see progress without a
 * message (a worker busy in a regex cannot read its inbox).
 */
import type { LineMatch } from './match-lines';
import type { RequiredLiteral } from './required-literal';

/** What every task of one search needs to know. */
export interface GrepJobSpec {
  jobId: number;
  source: string;
  caseInsensitive: boolean;
  /**
   * What every match contains (see required-literal.ts): for each entry, one
   * of its strings. Files without them are never decoded.
   */
  requiredLiterals: RequiredLiteral[];
  /** Matches wanted per file; a worker returns one more to say the cap cut the file. */
  perFileLimit: number;
  maxFileSizeBytes: number;
  /** `Date.now()` value after which workers stop. */
  deadline: number;
}

/**
 * A task is posted to every worker; the first to reach it claims it through
 * its cell (`claimOffset`), and the others pass it by. So the workers take
 * tasks in the order they were posted, each the oldest one still open when
 * it is free, and a task never waits behind a long one while another worker
 * idles.
 */
export interface GrepTaskMessage {
  type: 'task';
  taskId: number;
  /** The task's claim cell: holds `taskId` while the task is open. */
  claim: number;
  job: GrepJobSpec;
  /** Real paths of regular files, in walk order, as `packTaskPaths` packs them. */
  paths: string;
}

export interface GrepInitMessage {
  type: 'init';
  control: SharedArrayBuffer;
  slot: number;
}

/**
 * Packs real paths for a task message: a directory (ending in "/") once, then
 * the names of the files in it. Cloning a message costs per byte, and files
 * come in walk order, so most share their directory with the one before; this
 * cuts the bytes sent several times over. A file name never contains "/", so
 * the two never mix up. (Real paths are absolute; a bare name would be given
 * the directory "./", which names the same file.)
 */
export function encodeTaskPaths(files: readonly string[]): string[] {
  const packer = new TaskPathPacker();
  for (const file of files) packer.addPath(file);
  return packer.takeItems();
}

/** The inverse of `encodeTaskPaths`. */
export function decodeTaskPaths(packed: readonly string[]): string[] {
  const files: string[] = [];
  let directory = '';
  for (const item of packed) {
    if (item.endsWith('/')) directory = item;
    else files.push(directory + item);
  }
  return files;
}

/**
 * `encodeTaskPaths` as one string, its items joined by NUL (no path holds
 * one): a message clones one string several times faster than an array of
 * short ones.
 */
export function packTaskPaths(files: readonly string[]): string {
  return encodeTaskPaths(files).join('\0');
}

/** The inverse of `packTaskPaths`. */
export function unpackTaskPaths(packed: string): string[] {
  return packed === '' ? [] : decodeTaskPaths(packed.split('\0'));
}

/** A task's files, packed (`packTaskPaths`'s format) and counted. */
export interface TaskPaths {
  count: number;
  packed: string;
}

export function taskPathsOf(files: readonly string[]): TaskPaths {
  return { count: files.length, packed: packTaskPaths(files) };
}

/**
 * Builds `TaskPaths` from files as the walk finds them: a directory's real
 * path and a name. The walk hands one directory string to all the files in
 * it, so telling a new directory is mostly a pointer comparison, and no path
 * is cut apart again (cutting a just-joined path made the engine copy it
 * whole first: about 0.8 µs a file, the main thread's largest JavaScript cost
 * in a full scan).
 */
export class TaskPathPacker {
  private items: string[] = [];
  private directory: string | undefined;
  count = 0;

  /** The file `name` in the real directory `directory`. */
  add(directory: string, name: string): void {
    if (directory !== this.directory) {
      this.directory = directory;
      this.items.push(directory.endsWith('/') ? directory : `${directory}/`);
    }
    this.items.push(name);
    this.count++;
  }

  /** A file known only by its real path (where a link leads). */
  addPath(realPath: string): void {
    const cut = realPath.lastIndexOf('/');
    if (cut === -1) this.add('.', realPath);
    else this.add(realPath.slice(0, cut + 1), realPath.slice(cut + 1));
  }

  /** The files added so far, packed; the packer starts empty again. */
  take(): TaskPaths {
    const count = this.count;
    return { count, packed: this.takeItems().join('\0') };
  }

  /** The items added so far (`encodeTaskPaths`'s form); the packer starts empty again. */
  takeItems(): string[] {
    const items = this.items;
    this.items = [];
    this.directory = undefined;
    this.count = 0;
    return items;
  }
}

export type GrepWorkerInbound = GrepInitMessage | GrepTaskMessage;

/** Per-file outcome codes in `GrepTaskResult.statuses`. */
export const FileStatus = {
  notScanned: 0,
  scanned: 1,
  binary: 2,
  tooLarge: 3,
  unreadable: 4,
} as const;

export interface FileMatches {
  index: number;
  matches: LineMatch[];
  slowLines: number[];
}

export interface GrepTaskResult {
  type: 'result';
  taskId: number;
  /** One `FileStatus` per file of the task. */
  statuses: Uint8Array;
  /** Only files with matches or slow lines. */
  found: FileMatches[];
  /** Why the task ended before its last file, when it did. */
  interrupted?: 'cancelled' | 'deadline' | 'worker_stopped';
}

/*
 * Shared control memory (Int32Array):
 *   [0, CANCEL_SLOTS)                 cancelled job ids, slot = jobId % CANCEL_SLOTS
 *   CANCEL_SLOTS + 2 * slot           the job id a worker is working for (0 when idle)
 *   CANCEL_SLOTS + 2 * slot + 1       the index (within its task) of the file it is on
 *   claimOffset(cell)                 a posted task's claim: its task id while open,
 *                                     claimedBy(slot) once a worker took it, 0 if withdrawn
 */
export const CANCEL_SLOTS = 1024;
export const MAX_WORKER_SLOTS = 64;
/**
 * Tasks posted and not yet finished, per worker. The main thread posts more
 * only between its walk slices; with one per worker, a worker often finished
 * its task first and sat idle (full scans about 10 % slower).
 */
export const TASKS_PER_WORKER = 3;
export const CLAIM_CELLS = TASKS_PER_WORKER * MAX_WORKER_SLOTS;
const CLAIMS_START = CANCEL_SLOTS + 2 * MAX_WORKER_SLOTS;
export const CONTROL_LENGTH = CLAIMS_START + CLAIM_CELLS;
/** A withdrawn task's claim: no worker may take it. */
export const WITHDRAWN = 0;

export function progressOffset(slot: number): number {
  return CANCEL_SLOTS + 2 * slot;
}

export function claimOffset(cell: number): number {
  return CLAIMS_START + cell;
}

/** What a claim cell holds once the worker in `slot` took its task (task ids are positive). */
export function claimedBy(slot: number): number {
  return -(slot + 1);
}

/** The worker slot that took a task, from its claim cell's value; undefined while open or withdrawn. */
export function claimant(value: number): number | undefined {
  return value < 0 ? -value - 1 : undefined;
}
