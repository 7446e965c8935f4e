/**
 * The streaming directory walk behind glob and grep. Entries come out in a
 * stable order (depth first; within a directory, names sorted, or the order
 * the file system lists them in) in small batches as they are found,
 * so a caller that has enough stops the walk without reading the rest of the
 * tree. Every entry passes the path policy's filter on its real path; symbolic
 * links are followed only to targets the filter allows, each real directory is
 * walked once (so link loops and mutually recursive links end), and limits on
 * entries, depth and time end a walk of a huge tree — and the report says so.
 */
import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isPathInside } from '../path-policy';

export type WalkEntryKind = 'file' | 'directory' | 'other';

export interface WalkEntry {
  /** "/"-separated, relative to the walk's base directory. */
  relativePath: string;
  /** Where the entry really is (symbolic links resolved). */
  realPath: string;
  kind: WalkEntryKind;
  /** The entry itself is a symbolic link (to `realPath`). */
  viaSymlink: boolean;
  /** The entry's name in its directory. */
  name: string;
  /**
   * For an entry that is not a link, the real path of its directory:
   * `realPath` is this joined with `name`. Every entry of a directory shares
   * the one string, so a caller can group by it without cutting paths apart.
   */
  realDirectory?: string;
}

export interface WalkLimits {
  /** Entries examined before the walk gives up on a huge tree. */
  maxEntries: number;
  /** Directory levels below the base before the walk stops descending. */
  maxDepth: number;
  /** `Date.now()` value after which the walk stops. */
  deadline: number;
}

export const DEFAULT_WALK_LIMITS: Readonly<Omit<WalkLimits, 'deadline'>> = {
  maxEntries: 1_000_000,
  maxDepth: 256,
};

export type WalkFilter = ((realPath: string) => boolean) & {
  allowsEverythingBelow?: (realDirectory: string) => boolean;
};

export interface WalkOptions {
  /** The base directory's real path (already checked by the path policy). */
  baseRealPath: string;
  /** Literal directories below the base to start from (relative paths still count from the base). */
  startSegments?: readonly string[];
  /**
   * The path policy's filter for real paths. When it also says which
   * directories no rule reaches into (`allowsEverythingBelow`, as
   * createPathFilter's does), the walk skips the per-entry check there and in
   * their real subdirectories.
   */
  isAllowed: WalkFilter;
  /** False drops an entry by name: it is neither reported nor descended into (dot files). */
  include?: (name: string, relativePath: string) => boolean;
  /** Entries deeper than this many segments cannot be wanted (a pattern's bound); not a truncation. */
  wantedDepth?: number;
  limits: WalkLimits;
  signal?: AbortSignal;
  /**
   * Within a directory: `name` (the default) sorts entries by name; `directory`
   * keeps the order the file system lists them in, which is the same from walk
   * to walk while the directory is unchanged (see docs/tools/filesystem.md#walks-and-limits).
   */
  order?: 'name' | 'directory';
}

export interface WalkReport {
  entriesVisited: number;
  /** Why the walk did not see the whole tree (a limit, the time budget, a cancel). */
  incompleteBecause?: string;
  /** Things the caller should tell the model: loops, links not followed, unreadable directories. */
  notes(): string[];
}

export interface TreeWalk {
  /** Batches of entries in walk order. Breaking out of the loop ends the walk. */
  batches: AsyncGenerator<WalkEntry[], void, undefined>;
  report: WalkReport;
}

interface Frame {
  realPath: string;
  relativePath: string;
  depth: number;
  entries: Dirent[];
  index: number;
  /** Every path below `realPath` passes the filter, so its plain entries need no check. */
  trusted: boolean;
}

interface DeferredLink {
  relativePath: string;
  realPath: string;
  /** The real directory the link sits in. */
  parentRealPath: string;
  depth: number;
}

const BATCH_SIZE = 256;
/** The walk is synchronous in slices of this many milliseconds, then lets the event loop run. */
const SLICE_MS = 4;
const EXAMPLES = 3;
const SLASH = 0x2f;

/** Code-unit order of two names: the order `name` walks a directory in. */
function compareNames(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function byName(left: Dirent, right: Dirent): number {
  return compareNames(left.name, right.name);
}

/**
 * The order a walk with names sorted visits two "/"-separated paths: name by
 * name, segment by segment (so `a/b` comes before `a-c`, though `-` sorts
 * before `/` as a character). What a walk in `directory` order finds can be
 * put back in this order. That is code-unit order with "/" below every other
 * unit: where the paths first differ, a "/" ends the shorter name. Compared
 * in place, without splitting (a sort of a thousand paths makes 10,000 calls).
 */
export function comparePaths(left: string, right: string): number {
  const shared = Math.min(left.length, right.length);
  for (let index = 0; index < shared; index++) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a === b) continue;
    if (a === SLASH) return -1;
    if (b === SLASH) return 1;
    return a - b;
  }
  return left.length - right.length;
}

function joinRelative(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

class WalkNotes {
  loops: string[] = [];
  loopCount = 0;
  duplicates = 0;
  outside = 0;
  broken = 0;
  unreadable: string[] = [];
  unreadableCount = 0;

  list(): string[] {
    const notes: string[] = [];
    if (this.loopCount > 0) {
      notes.push(
        `${this.loopCount} symbolic link loop(s) were not followed again (${this.loops.join(', ')}${this.loopCount > this.loops.length ? ', …' : ''}); their contents are reported once, under the path first seen.`,
      );
    }
    if (this.duplicates > 0) {
      notes.push(
        `${this.duplicates} symbolic link(s) lead to directories already walked and were not walked twice.`,
      );
    }
    if (this.outside > 0) {
      notes.push(
        `${this.outside} symbolic link(s) lead outside the paths this chat may access and were skipped.`,
      );
    }
    if (this.broken > 0) notes.push(`${this.broken} broken symbolic link(s) were skipped.`);
    if (this.unreadableCount > 0) {
      notes.push(
        `${this.unreadableCount} director${this.unreadableCount === 1 ? 'y' : 'ies'} could not be read (${this.unreadable.join(', ')}${this.unreadableCount > this.unreadable.length ? ', …' : ''}).`,
      );
    }
    return notes;
  }
}

function readEntries(realPath: string, order: 'name' | 'directory'): Dirent[] {
  const entries = readdirSync(realPath, { withFileTypes: true });
  return order === 'name' ? entries.sort(byName) : entries;
}

function describeError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'error';
}

/** Walks the tree below `options.baseRealPath`; see the module comment. */
export function walkTree(options: WalkOptions): TreeWalk {
  const notes = new WalkNotes();
  const report: WalkReport = { entriesVisited: 0, notes: () => notes.list() };
  const { isAllowed, include, limits, signal } = options;
  const allowsEverythingBelow = (realDirectory: string): boolean =>
    isAllowed.allowsEverythingBelow?.(realDirectory) ?? false;
  const wantedDepth = options.wantedDepth ?? Number.POSITIVE_INFINITY;
  const order = options.order ?? 'name';
  // Every real directory walked, for the links read after the real tree: listed as walked and
  // put in a set only when a link to a directory needs the check (hashing each directory's
  // freshly joined path cost more than the walk's own JavaScript on a tree without such links).
  const walked: string[] = [];
  let walkedSet: Set<string> | undefined;
  const markWalked = (realPath: string): void => {
    if (walkedSet) walkedSet.add(realPath);
    else walked.push(realPath);
  };
  const wasWalked = (realPath: string): boolean => {
    walkedSet ??= new Set(walked);
    return walkedSet.has(realPath);
  };
  const deferred: DeferredLink[] = [];
  const stack: Frame[] = [];

  const stop = (reason: string): void => {
    report.incompleteBecause ??= reason;
  };

  /** `trusted`: the parent is trusted and this is its real (not linked) subdirectory. */
  const open = (realPath: string, relativePath: string, depth: number, trusted = false): void => {
    markWalked(realPath);
    try {
      stack.push({
        realPath,
        relativePath,
        depth,
        entries: readEntries(realPath, order),
        index: 0,
        trusted: trusted || allowsEverythingBelow(realPath),
      });
    } catch (error) {
      notes.unreadableCount++;
      if (notes.unreadable.length < EXAMPLES) {
        notes.unreadable.push(`${relativePath || '.'}: ${describeError(error)}`);
      }
    }
  };

  /** Resolves the literal start directories; undefined when they do not lead to a directory. */
  const locateStart = (): { realPath: string; relativePath: string } | undefined => {
    let realPath = options.baseRealPath;
    let relativePath = '';
    for (const segment of options.startSegments ?? []) {
      try {
        realPath = realpathSync(path.join(realPath, segment));
        if (!statSync(realPath).isDirectory() || !isAllowed(realPath)) return undefined;
      } catch {
        return undefined;
      }
      relativePath = joinRelative(relativePath, segment);
    }
    return { realPath, relativePath };
  };

  /** A link to a directory is walked after the real tree, so real paths win over link paths. */
  const openDeferred = (): boolean => {
    while (deferred.length > 0) {
      const link = deferred.shift() as DeferredLink;
      if (wasWalked(link.realPath)) {
        if (isPathInside(link.realPath, link.parentRealPath)) {
          notes.loopCount++;
          if (notes.loops.length < EXAMPLES) notes.loops.push(link.relativePath);
        } else {
          notes.duplicates++;
        }
        continue;
      }
      open(link.realPath, link.relativePath, link.depth);
      if (stack.length > 0) return true;
    }
    return false;
  };

  /** Classifies one directory entry; undefined when it is skipped. */
  const visit = (frame: Frame, entry: Dirent): WalkEntry | undefined => {
    const relativePath = joinRelative(frame.relativePath, entry.name);
    if (include && !include(entry.name, relativePath)) return undefined;
    const lexicalReal = `${frame.realPath === '/' ? '' : frame.realPath}/${entry.name}`;
    const depth = frame.depth + 1;
    if (!entry.isSymbolicLink()) {
      // Below a real directory, an entry that is not a link is where it says it is.
      if (!frame.trusted && !isAllowed(lexicalReal)) return undefined;
      if (entry.isDirectory()) {
        if (depth < wantedDepth) {
          if (depth >= limits.maxDepth) {
            stop(
              `directories more than ${limits.maxDepth} levels deep were not walked (e.g. ${relativePath})`,
            );
          } else {
            open(lexicalReal, relativePath, depth, frame.trusted);
          }
        }
        return {
          relativePath,
          realPath: lexicalReal,
          kind: 'directory',
          viaSymlink: false,
          name: entry.name,
          realDirectory: frame.realPath,
        };
      }
      return {
        relativePath,
        realPath: lexicalReal,
        kind: entry.isFile() ? 'file' : 'other',
        viaSymlink: false,
        name: entry.name,
        realDirectory: frame.realPath,
      };
    }
    let target: string;
    let isDirectory: boolean;
    let isFile: boolean;
    try {
      target = realpathSync(lexicalReal);
      const stats = statSync(target);
      isDirectory = stats.isDirectory();
      isFile = stats.isFile();
    } catch (error) {
      if (describeError(error) === 'ELOOP') {
        notes.loopCount++;
        if (notes.loops.length < EXAMPLES) notes.loops.push(relativePath);
      } else {
        notes.broken++;
      }
      return undefined;
    }
    if (!isAllowed(target)) {
      notes.outside++;
      return undefined;
    }
    if (isDirectory && depth < wantedDepth) {
      if (depth >= limits.maxDepth) {
        stop(
          `directories more than ${limits.maxDepth} levels deep were not walked (e.g. ${relativePath})`,
        );
      } else {
        deferred.push({ relativePath, realPath: target, parentRealPath: frame.realPath, depth });
      }
    }
    return {
      relativePath,
      realPath: target,
      kind: isDirectory ? 'directory' : isFile ? 'file' : 'other',
      viaSymlink: true,
      name: entry.name,
    };
  };

  /**
   * Walks on until a batch is full or the slice's time is up (`done` once the
   * walk has ended). The loop over entries is a plain function rather than
   * the generator's own loop, so the JIT optimises it as a whole: grep's
   * search, an async function with its loop over walked entries inside,
   * was seen compiled again and again as the JIT kept entering its
   * optimised code mid-loop (docs/tools/filesystem.md#benchmark).
   */
  const walkSlice = (): { batch: WalkEntry[]; done: boolean } => {
    const batch: WalkEntry[] = [];
    const sliceStart = performance.now();
    while (stack.length > 0 || openDeferred()) {
      const frame = stack[stack.length - 1] as Frame;
      if (frame.index >= frame.entries.length) {
        stack.pop();
        continue;
      }
      const entry = frame.entries[frame.index++] as Dirent;
      report.entriesVisited++;
      if ((report.entriesVisited & 255) === 1) {
        if (signal?.aborted) {
          stop('the call was cancelled');
          return { batch, done: true };
        }
        if (Date.now() > limits.deadline) {
          stop(
            `the walk ran out of its time budget after ${report.entriesVisited} entries; narrow the directory or the pattern`,
          );
          return { batch, done: true };
        }
        if (report.entriesVisited > limits.maxEntries) {
          stop(
            `the walk stopped after ${limits.maxEntries} entries (a very large tree); narrow the directory or the pattern`,
          );
          return { batch, done: true };
        }
      }
      const found = visit(frame, entry);
      if (found) batch.push(found);
      if (
        batch.length >= BATCH_SIZE ||
        ((report.entriesVisited & 31) === 0 && performance.now() - sliceStart > SLICE_MS)
      ) {
        return { batch, done: false };
      }
    }
    return { batch, done: true };
  };

  async function* generate(): AsyncGenerator<WalkEntry[], void, undefined> {
    const start = locateStart();
    if (!start) return;
    markWalked(options.baseRealPath);
    open(start.realPath, start.relativePath, options.startSegments?.length ?? 0);
    for (;;) {
      const { batch, done } = walkSlice();
      if (batch.length > 0) yield batch;
      if (done) return;
      await yieldToEventLoop();
    }
  }

  return { batches: generate(), report };
}
