/**
 * The read-before-write rules on top of the freshness ledger (SPEC §7.4): what
 * a read records, when a write may overwrite, and what a successful write
 * leaves behind. The ledger itself is a small async store (memory now, the
 * database later); everything here works through its interface.
 */
import { createHash } from 'node:crypto';
import type { FileFreshnessLedger, FileReadRecord } from '../types';

export function sha256Hex(bytes: Uint8Array): string {
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

/**
 * Records a read. Windows of the same content accumulate coverage from line 1:
 * a window extends it when it starts at or before the first uncovered line.
 * A different hash starts over, since what was read before no longer exists.
 */
export async function recordFileRead(
  ledger: FileFreshnessLedger,
  realPath: string,
  observation: ReadObservation,
): Promise<FileReadRecord> {
  const previous = await ledger.get(realPath);
  const same = previous !== undefined && previous.sha256 === observation.sha256;
  let linesCovered = same ? previous.linesCovered : 0;
  const start = observation.startLine ?? 1;
  const end = observation.endLine ?? 0;
  if (start <= linesCovered + 1 && end > linesCovered) linesCovered = end;
  const complete =
    (same && previous.complete) || observation.wholeFile || linesCovered >= observation.totalLines;
  const record: FileReadRecord = {
    sha256: observation.sha256,
    size: observation.size,
    mtimeMs: observation.mtimeMs,
    complete,
    linesCovered: Math.min(linesCovered, observation.totalLines),
    totalLines: observation.totalLines,
  };
  await ledger.set(realPath, record);
  return record;
}

/** After this server wrote the file: the new content counts as read completely. */
export async function recordFileWrite(
  ledger: FileFreshnessLedger,
  realPath: string,
  written: { sha256: string; size: number; mtimeMs: number; totalLines: number },
): Promise<void> {
  await ledger.set(realPath, {
    ...written,
    complete: true,
    linesCovered: written.totalLines,
  });
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
