/**
 * One file of a grep search, as a worker does it: open, read (capped, with
 * the binary check), look for the required literals in the raw bytes, and
 * match the lines that can match. Synchronous and free of worker state, so
 * it runs the same in a worker, in a test and under a profiler.
 */
import { isAscii } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { BINARY_SNIFF_BYTES, looksBinary } from '../../fs/binary';
import { type CaseFoldedStrings, compileCaseFoldedLiterals } from './case-folded-literals';
import { FileStatus } from './grep-protocol';
import {
  compileLinePatterns,
  containsAny,
  exactLiterals,
  type LinePatterns,
  type LineSearchResult,
  type LiteralFinder,
  searchLines,
  searchLinesContaining,
} from './match-lines';
import type { RequiredLiteral } from './required-literal';

export interface FileSearchJob {
  source: string;
  caseInsensitive: boolean;
  requiredLiterals: readonly RequiredLiteral[];
  perFileLimit: number;
  maxFileSizeBytes: number;
}

/** A job compiled once for all its files. */
export interface CompiledFileSearch {
  patterns: LinePatterns;
  /** Each requirement's strings as bytes (case-sensitive searches). */
  literals: Buffer[][];
  /** Each requirement compiled for any letter case (case-insensitive searches). */
  foldedLiterals: CaseFoldedStrings[];
  caseInsensitive: boolean;
  perFileLimit: number;
  maxFileSizeBytes: number;
}

export function compileFileSearch(job: FileSearchJob): CompiledFileSearch {
  return {
    patterns: compileLinePatterns(job.source, job.caseInsensitive),
    literals: job.caseInsensitive
      ? []
      : job.requiredLiterals.map((requirement) =>
          requirement.map((literal) => Buffer.from(literal, 'utf8')),
        ),
    foldedLiterals: job.caseInsensitive
      ? job.requiredLiterals.map((requirement) => compileCaseFoldedLiterals(requirement))
      : [],
    caseInsensitive: job.caseInsensitive,
    perFileLimit: job.perFileLimit,
    maxFileSizeBytes: job.maxFileSizeBytes,
  };
}

type FileStatusCode = (typeof FileStatus)[keyof typeof FileStatus];

/** A file skipped (binary, over-size, unreadable), or scanned with what its lines gave. */
export type FileSearchOutcome =
  | { status: Exclude<FileStatusCode, typeof FileStatus.scanned> }
  | ({ status: typeof FileStatus.scanned } & LineSearchResult);

// O_NONBLOCK: a path swapped for a FIFO after the walk must not block open();
// O_NOFOLLOW: the walk hands over real paths, so a link there now is a swap.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * The first read: most source files fit, and a short read of a regular file
 * is its end, so they take one read call and no fstat. It is at least the
 * binary-detection window.
 */
const FIRST_READ_BYTES = 64 * 1024;

/** One read buffer per thread, grown to the largest cap asked for and reused for every file. */
let buffer = Buffer.allocUnsafe(0);

/**
 * Reads the file into `buffer`, at most maxBytes + 1 bytes. A file that
 * fills the first read is sized with fstat before anything more is read, so
 * an over-size file (a 100 MB binary) costs one 64 KiB read, and a binary
 * one (a NUL in the first 8 KiB) is not read further either; the cap still
 * counts what the descriptor delivers, so a file that grows past the limit
 * while it is read is over-size too. (The walk only hands over regular
 * files; a FIFO or device swapped in since reads as empty, over-size or
 * unreadable, never blocks: O_NONBLOCK.)
 */
function readCapped(fd: number, maxBytes: number): number | 'tooLarge' | 'binary' {
  if (buffer.length < maxBytes + 1) buffer = Buffer.allocUnsafe(maxBytes + 1);
  const first = Math.min(maxBytes + 1, Math.max(FIRST_READ_BYTES, BINARY_SNIFF_BYTES));
  let total = readSync(fd, buffer, 0, first, null);
  if (total < first) return total;
  if (total > maxBytes || fstatSync(fd).size > maxBytes) return 'tooLarge';
  if (looksBinary(buffer.subarray(0, total))) return 'binary';
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

/** How the job's required strings are found in this file; undefined when they cannot be. */
function literalFinders(job: CompiledFileSearch, bytes: Buffer): LiteralFinder[] | undefined {
  if (job.caseInsensitive) {
    if (job.foldedLiterals.length === 0 || isUtf16(bytes)) return undefined;
    return job.foldedLiterals.map((strings) => strings.in(bytes));
  }
  if (job.literals.length === 0 || isUtf16(bytes)) return undefined;
  return job.literals.map((strings) => exactLiterals(bytes, strings));
}

/**
 * Searches one file (a real path from the walk). A file that cannot be
 * opened or read is `unreadable`; the search itself never throws.
 */
export function searchFile(
  path: string,
  job: CompiledFileSearch,
  shouldStop: () => boolean,
): FileSearchOutcome {
  let fd: number | undefined;
  try {
    fd = openSync(path, OPEN_FLAGS);
    const size = readCapped(fd, job.maxFileSizeBytes);
    if (size === 'tooLarge') return { status: FileStatus.tooLarge };
    if (size === 'binary') return { status: FileStatus.binary };
    const bytes = buffer.subarray(0, size);
    if (looksBinary(bytes)) return { status: FileStatus.binary };
    const options = { limit: job.perFileLimit, shouldStop };
    const finders = literalFinders(job, bytes);
    // A file without every required string cannot match: it is never decoded.
    if (finders && !finders.every(containsAny)) {
      return { status: FileStatus.scanned, matches: [], slowLines: [], stopped: false };
    }
    const searched = finders
      ? searchLinesContaining(bytes, finders, job.patterns, decodeUtf8, options)
      : searchLines(decode(bytes), job.patterns, options);
    return { status: FileStatus.scanned, ...searched };
  } catch {
    return { status: FileStatus.unreadable };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
