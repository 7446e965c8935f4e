/**
 * A grep worker: reads the files of a task one after another, skips binary
 * and over-size ones, and searches the rest with the pattern. It runs off the
 * main thread so a slow or catastrophic pattern never stalls the server; the
 * pool terminates a worker that overruns its deadline.
 */
import { isAscii } from 'node:buffer';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { looksBinary } from '../../fs/binary';
import {
  CANCEL_SLOTS,
  decodeTaskPaths,
  type FileMatches,
  FileStatus,
  type GrepJobSpec,
  type GrepTaskMessage,
  type GrepTaskResult,
  type GrepWorkerInbound,
  progressOffset,
} from './grep-protocol';
import {
  caseFoldedLiterals,
  compileLinePatterns,
  containsAny,
  exactLiterals,
  type LinePatterns,
  type LiteralFinder,
  searchLines,
  searchLinesContaining,
} from './match-lines';

declare const self: Worker;

let control: Int32Array | undefined;
let slot = 0;
let buffer = Buffer.allocUnsafe(0);

interface CompiledJob {
  jobId: number;
  patterns: LinePatterns;
  /** Each requirement's strings: as bytes, or (case-insensitive) as lower-case ASCII text. */
  literals: Buffer[][];
  foldedLiterals: string[][];
  caseInsensitive: boolean;
}
let compiled: CompiledJob | undefined;

// O_NONBLOCK: a path swapped for a FIFO after the walk must not block open();
// O_NOFOLLOW: the walk hands over real paths, so a link there now is a swap.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

function compile(job: GrepJobSpec): CompiledJob {
  if (compiled?.jobId === job.jobId) return compiled;
  compiled = {
    jobId: job.jobId,
    patterns: compileLinePatterns(job.source, job.caseInsensitive),
    literals: job.requiredLiterals.map((requirement) =>
      requirement.map((literal) => Buffer.from(literal, 'utf8')),
    ),
    foldedLiterals: job.requiredLiterals.map((requirement) => [...requirement]),
    caseInsensitive: job.caseInsensitive,
  };
  return compiled;
}

/** How the job's required strings are found in this file; undefined when they cannot be. */
function literalFinders(job: CompiledJob, bytes: Buffer): LiteralFinder[] | undefined {
  if (job.literals.length === 0 || isUtf16(bytes)) return undefined;
  if (!job.caseInsensitive) return job.literals.map((strings) => exactLiterals(bytes, strings));
  return job.foldedLiterals.map((strings) => caseFoldedLiterals(bytes, strings));
}

function isCancelled(job: GrepJobSpec): boolean {
  return control !== undefined && Atomics.load(control, job.jobId % CANCEL_SLOTS) === job.jobId;
}

/**
 * Reads at most maxBytes + 1 bytes: the cap counts what the descriptor
 * delivers, not what stat says, and needs no fstat — a short read of a
 * regular file is its end, so a file that does not grow takes one read call.
 * (The walk only hands over regular files; a FIFO or device swapped in since
 * reads as empty, over-size or unreadable, never blocks: O_NONBLOCK.)
 */
function readCapped(fd: number, maxBytes: number): number | 'tooLarge' {
  if (buffer.length < maxBytes + 1) buffer = Buffer.allocUnsafe(maxBytes + 1);
  let total = 0;
  for (;;) {
    const requested = maxBytes + 1 - total;
    const read = readSync(fd, buffer, total, requested, null);
    total += read;
    if (total > maxBytes) return 'tooLarge';
    if (read < requested) return total;
  }
}

function isUtf16(bytes: Buffer): boolean {
  return (
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
  );
}

const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Decodes a file's bytes as read_file would. Pure ASCII (checked with SIMD)
 * skips the UTF-8 decoder: every decoding reads it the same. Bun's 'ascii'
 * slice is the fast copy here ('latin1' measured ~8× slower on megabyte
 * buffers, 4× on short lines).
 */
function decode(bytes: Buffer): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  }
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  }
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return decodeUtf8(bom ? bytes.subarray(3) : bytes);
}

function decodeUtf8(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('ascii') : utf8Decoder.decode(bytes);
}

function runTask(message: GrepTaskMessage): GrepTaskResult {
  const { job } = message;
  const files = decodeTaskPaths(message.paths);
  const statuses = new Uint8Array(files.length);
  const found: FileMatches[] = [];
  const result: GrepTaskResult = { type: 'result', taskId: message.taskId, statuses, found };
  const compiledJob = compile(job);
  const progress = progressOffset(slot);
  if (control) Atomics.store(control, progress, job.jobId);
  const shouldStop = () => isCancelled(job) || Date.now() > job.deadline;
  for (let index = 0; index < files.length; index++) {
    if (shouldStop()) {
      result.interrupted = isCancelled(job) ? 'cancelled' : 'deadline';
      break;
    }
    if (control) Atomics.store(control, progress + 1, index);
    let fd: number | undefined;
    try {
      fd = openSync(files[index] as string, OPEN_FLAGS);
      const size = readCapped(fd, job.maxFileSizeBytes);
      if (size === 'tooLarge') {
        statuses[index] = FileStatus.tooLarge;
        continue;
      }
      const bytes = buffer.subarray(0, size);
      if (looksBinary(bytes)) {
        statuses[index] = FileStatus.binary;
        continue;
      }
      statuses[index] = FileStatus.scanned;
      const options = { limit: job.perFileLimit, shouldStop };
      const { patterns } = compiledJob;
      const finders = literalFinders(compiledJob, bytes);
      // A file without every required string cannot match: it is never decoded.
      if (finders && !finders.every(containsAny)) continue;
      const searched = finders
        ? searchLinesContaining(bytes, finders, patterns, decodeUtf8, options)
        : searchLines(decode(bytes), patterns, options);
      if (searched.matches.length > 0 || searched.slowLines.length > 0) {
        found.push({ index, matches: searched.matches, slowLines: searched.slowLines });
      }
      if (searched.stopped) {
        result.interrupted = isCancelled(job) ? 'cancelled' : 'deadline';
        break;
      }
    } catch {
      statuses[index] = FileStatus.unreadable;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  if (control) Atomics.store(control, progress, 0);
  return result;
}

self.onmessage = (event: MessageEvent<GrepWorkerInbound>) => {
  const message = event.data;
  if (message.type === 'init') {
    control = new Int32Array(message.control);
    slot = message.slot;
    return;
  }
  postMessage(runTask(message));
};
