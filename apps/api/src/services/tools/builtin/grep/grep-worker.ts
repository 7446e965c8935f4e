/**
 * A grep worker: searches the files of a task one after another
 * (search-file.ts: binary and over-size ones are skipped). It runs off the
 * main thread so a slow or catastrophic pattern never stalls the server; the
 * pool terminates a worker that overruns its deadline. Every task is posted
 * to every worker: one runs it, having claimed it first, and the others pass
 * it by (grep-protocol.ts).
 */
import {
  CANCEL_SLOTS,
  claimedBy,
  claimOffset,
  type FileMatches,
  FileStatus,
  type GrepJobSpec,
  type GrepTaskMessage,
  type GrepTaskResult,
  type GrepWorkerInbound,
  progressOffset,
  unpackTaskPaths,
} from './grep-protocol';
import { type CompiledFileSearch, compileFileSearch, searchFile } from './search-file';

declare const self: Worker;

let control: Int32Array | undefined;
let slot = 0;
let compiled: { jobId: number; search: CompiledFileSearch } | undefined;

function compile(job: GrepJobSpec): CompiledFileSearch {
  if (compiled?.jobId !== job.jobId)
    compiled = { jobId: job.jobId, search: compileFileSearch(job) };
  return compiled.search;
}

function isCancelled(job: GrepJobSpec): boolean {
  return control !== undefined && Atomics.load(control, job.jobId % CANCEL_SLOTS) === job.jobId;
}

/** Takes the task unless another worker did, or the pool withdrew it. */
function claim(message: GrepTaskMessage): boolean {
  if (!control) return false;
  const cell = claimOffset(message.claim);
  return Atomics.compareExchange(control, cell, message.taskId, claimedBy(slot)) === message.taskId;
}

function runTask(message: GrepTaskMessage): GrepTaskResult {
  const { job } = message;
  const files = unpackTaskPaths(message.paths);
  const statuses = new Uint8Array(files.length);
  const found: FileMatches[] = [];
  const result: GrepTaskResult = { type: 'result', taskId: message.taskId, statuses, found };
  const search = compile(job);
  const progress = progressOffset(slot);
  if (control) Atomics.store(control, progress, job.jobId);
  const shouldStop = () => isCancelled(job) || Date.now() > job.deadline;
  for (let index = 0; index < files.length; index++) {
    if (shouldStop()) {
      result.interrupted = isCancelled(job) ? 'cancelled' : 'deadline';
      break;
    }
    if (control) Atomics.store(control, progress + 1, index);
    const outcome = searchFile(files[index] as string, search, shouldStop);
    statuses[index] = outcome.status;
    if (outcome.status !== FileStatus.scanned) continue;
    if (outcome.matches.length > 0 || outcome.slowLines.length > 0) {
      found.push({ index, matches: outcome.matches, slowLines: outcome.slowLines });
    }
    if (outcome.stopped) {
      result.interrupted = isCancelled(job) ? 'cancelled' : 'deadline';
      break;
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
  if (claim(message)) postMessage(runTask(message));
};
