/**
 * The read-before-write rules on top of the freshness ledger (docs/tools/filesystem.md#the-freshness-ledger): what
 * a read records, when a write may overwrite, and what a successful write
 * leaves behind. The ledger itself is a small async store (memory now, the
 * database later); everything here works through its interface.
 */
import { createHash } from 'node:crypto';
import { countLines } from '../fs/text-window';
import type { FileFreshnessLedger, FileReadRecord, LineWindow } from '../types';

export function sha256Hex(bytes: Uint8Array): string {
  // Bun's native hasher is several times faster than node:crypto's on large buffers.
  if (typeof Bun !== 'undefined') return new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
  return createHash('sha256').update(bytes).digest('hex');
}

/** What one read saw: the whole file's identity plus the part that was shown. */
export interface ReadObservation {
  sha256: string;
  size: number;
  mtimeMs: number;
  totalLines: number;
  /** A byte view shows the whole file. */
  wholeFile: boolean;
  /** Text windows: the lines shown (1-based, inclusive); an empty window has endLine < startLine. */
  startLine?: number;
  endLine?: number;
}

/** At most this many disjoint windows are remembered beyond the covered prefix. */
const MAX_LATER_WINDOWS = 64;

/** Sorted, merged (overlapping or adjacent) windows. */
function mergeWindows(windows: LineWindow[]): LineWindow[] {
  const sorted = windows
    .filter((window) => window.endLine >= window.startLine)
    .sort((left, right) => left.startLine - right.startLine);
  const merged: LineWindow[] = [];
  for (const window of sorted) {
    const last = merged[merged.length - 1];
    if (last && window.startLine <= last.endLine + 1)
      last.endLine = Math.max(last.endLine, window.endLine);
    else merged.push({ ...window });
  }
  return merged;
}

/**
 * Records a read. Windows of the same content add up, in any order, and the
 * file counts as read completely once they cover line 1 to the last line. A
 * different hash starts over, since what was read before no longer exists.
 */
export async function recordFileRead(
  ledger: FileFreshnessLedger,
  realPath: string,
  observation: ReadObservation,
): Promise<FileReadRecord> {
  const previous = await ledger.get(realPath);
  const same = previous !== undefined && previous.sha256 === observation.sha256;
  const windows: LineWindow[] = [];
  if (same && previous.linesCovered > 0)
    windows.push({ startLine: 1, endLine: previous.linesCovered });
  if (same) windows.push(...(previous.laterWindows ?? []));
  if (observation.startLine !== undefined && observation.endLine !== undefined) {
    windows.push({ startLine: observation.startLine, endLine: observation.endLine });
  }
  const merged = mergeWindows(windows);
  const prefix = merged[0]?.startLine === 1 ? (merged.shift() as LineWindow) : undefined;
  const linesCovered = Math.min(prefix?.endLine ?? 0, observation.totalLines);
  const complete =
    (same && previous.complete) || observation.wholeFile || linesCovered >= observation.totalLines;
  const record: FileReadRecord = {
    sha256: observation.sha256,
    size: observation.size,
    mtimeMs: observation.mtimeMs,
    complete,
    linesCovered: complete ? observation.totalLines : linesCovered,
    totalLines: observation.totalLines,
  };
  if (!complete && merged.length > 0) record.laterWindows = merged.slice(0, MAX_LATER_WINDOWS);
  await ledger.set(realPath, record);
  return record;
}

/**
 * After this server wrote the file: the new content counts as read completely.
 * Resolves to the content's sha256.
 */
export async function recordFileWrite(
  ledger: FileFreshnessLedger,
  realPath: string,
  written: { bytes: Uint8Array; text: string; stats: { size: number; mtimeMs: number } },
): Promise<string> {
  const sha256 = sha256Hex(written.bytes);
  const totalLines = countLines(written.text);
  await ledger.set(realPath, {
    sha256,
    size: written.stats.size,
    mtimeMs: written.stats.mtimeMs,
    totalLines,
    complete: true,
    linesCovered: totalLines,
  });
  return sha256;
}

export type FreshnessVerdict =
  | { status: 'fresh'; record: FileReadRecord }
  | { status: 'not_read' }
  | { status: 'partial'; record: FileReadRecord }
  | { status: 'stale'; record: FileReadRecord; currentSha256: string };

/**
 * Whether an existing file may be overwritten. Unchanged size and mtime are
 * trusted (the fast path); otherwise the current bytes are hashed, and the
 * same content with a new mtime (a `touch`, a formatter that changed nothing)
 * still counts as fresh.
 */
export async function checkFreshness(
  ledger: FileFreshnessLedger,
  realPath: string,
  current: { size: number; mtimeMs: number; bytes: () => Promise<Uint8Array> },
): Promise<FreshnessVerdict> {
  const record = await ledger.get(realPath);
  if (!record) return { status: 'not_read' };
  if (!record.complete) return { status: 'partial', record };
  if (record.size === current.size && record.mtimeMs === current.mtimeMs)
    return { status: 'fresh', record };
  const currentSha256 = sha256Hex(await current.bytes());
  if (currentSha256 !== record.sha256) return { status: 'stale', record, currentSha256 };
  const refreshed = { ...record, size: current.size, mtimeMs: current.mtimeMs };
  await ledger.set(realPath, refreshed);
  return { status: 'fresh', record: refreshed };
}
