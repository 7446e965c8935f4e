/**
 * One grep search: the main thread walks (streaming, in walk order) and hands
 * batches of files to the worker pool; results are taken back in the same
 * order, so the answer is deterministic whatever worker finished first, and
 * the search stops as soon as one match more than `maxResults` is known.
 */
import type { CompiledGlob } from '../../fs/glob-pattern';
import {
  comparePaths,
  type WalkEntry,
  type WalkFilter,
  type WalkLimits,
  walkTree,
} from '../../fs/walk-tree';
import {
  FileStatus,
  type GrepTaskResult,
  TaskPathPacker,
  type TaskPaths,
  taskPathsOf,
  unpackTaskPaths,
} from './grep-protocol';
import type { GrepWorkerPool } from './grep-worker-pool';
import type { LineMatch } from './match-lines';
import { requiredLiteralsOf } from './required-literal';

export interface GrepMatch {
  file: string;
  line: number;
  text: string;
  textTruncated?: true;
}

export interface GrepSearchRequest {
  source: string;
  caseInsensitive: boolean;
  /** The search root; `kind` says whether it is one file or a directory to walk. */
  root: { kind: 'file' | 'directory'; realPath: string };
  fileFilter?: CompiledGlob;
  includeDotfiles: boolean;
  isAllowed: WalkFilter;
  /**
   * The path the result reports for a file, given its "/"-separated path
   * below a directory root as the walk found it ("" for a file root).
   */
  reportPath: (relativePath: string) => string;
  maxResults: number;
  maxMatchesPerFile: number;
  maxFileSizeBytes: number;
  limits: WalkLimits;
  signal?: AbortSignal;
  pool: GrepWorkerPool;
}

export interface GrepSearchOutcome {
  matches: GrepMatch[];
  filesScanned: number;
  truncated: boolean;
  truncatedReason?: string;
  skipped: { binary: number; tooLarge: number; unreadable: number };
  notes: string[];
}

/**
 * Files per task: the first tasks are small so a capped search answers from
 * the first files quickly; later ones grow so a full scan sends few messages.
 */
const FIRST_TASK_FILES = 16;
const MAX_TASK_FILES = 256;
/** Finished tasks held while an older one still runs (their results wait to be folded in order). */
const MAX_PENDING_TASKS = 64;
/**
 * Once the result cap is in sight, files searched ahead of the answer are
 * wasted, and a big task holding the last files the answer needs keeps one
 * worker busy while the other idles. So from the match rate of the files
 * folded so far the search estimates how many more files the answer needs:
 * tasks shrink to share them among the workers, and the walk keeps at most
 * this many times that estimate in flight (never fewer than the floor).
 */
const RUN_AHEAD_FACTOR = 1.5;
const MIN_RUN_AHEAD_FILES = 64;

/**
 * The files a capped search still needs, at the match rate of the files
 * folded so far: unknown (infinite) before the first match.
 */
export function filesStillNeeded(maxResults: number, found: number, foldedFiles: number): number {
  if (found === 0) return Number.POSITIVE_INFINITY;
  return (Math.max(0, maxResults + 1 - found) * foldedFiles) / found;
}

/** Files the walk may have in flight (submitted, not yet folded) while `stillNeeded` remain. */
export function maxFilesInFlight(stillNeeded: number): number {
  return Math.max(MIN_RUN_AHEAD_FILES, RUN_AHEAD_FACTOR * stillNeeded);
}

/** The next task's size: double the last up to the largest, but no more than a worker's share of what is still needed. */
export function nextTaskFiles(current: number, stillNeeded: number, workers: number): number {
  const grown = Math.min(MAX_TASK_FILES, current * 2);
  return Math.min(grown, Math.max(FIRST_TASK_FILES, Math.ceil(stillNeeded / workers)));
}

interface PendingTask {
  /** Each file's path below the root, as `reportPath` takes it. */
  relativePaths: string[];
  /** The same files' real paths, packed for the worker. */
  paths: TaskPaths;
  result: Promise<GrepTaskResult>;
  settled: boolean;
}

/**
 * Puts the matches in path order, each file's lines staying in line order:
 * the walk visits directories in the file system's order, and the answer
 * reads as if names had been sorted. A file's matches are contiguous, so they
 * are cut into one run per file and the runs sorted (no set or map of paths:
 * hashing each freshly joined path cost more than the sort).
 */
function sortByPath(matches: GrepMatch[]): GrepMatch[] {
  const runs: GrepMatch[][] = [];
  for (const match of matches) {
    const last = runs[runs.length - 1];
    if (last && (last[0] as GrepMatch).file === match.file) last.push(match);
    else runs.push([match]);
  }
  if (runs.length < 2) return matches;
  runs.sort((left, right) =>
    comparePaths((left[0] as GrepMatch).file, (right[0] as GrepMatch).file),
  );
  return runs.flat();
}

export async function runGrepSearch(request: GrepSearchRequest): Promise<GrepSearchOutcome> {
  const { pool, limits, signal } = request;
  const outcome: GrepSearchOutcome = {
    matches: [],
    filesScanned: 0,
    truncated: false,
    skipped: { binary: 0, tooLarge: 0, unreadable: 0 },
    notes: [],
  };
  const cut = (reason: string): void => {
    outcome.truncated = true;
    outcome.truncatedReason ??= reason;
  };
  const job = pool.createJob({
    source: request.source,
    caseInsensitive: request.caseInsensitive,
    requiredLiterals: requiredLiteralsOf(request.source, request.caseInsensitive),
    perFileLimit: request.maxMatchesPerFile,
    maxFileSizeBytes: request.maxFileSizeBytes,
    deadline: limits.deadline,
  });
  const pending: PendingTask[] = [];
  // Tasks leave `pending` only once settled, so the running ones are all in it.
  const runningTasks = () => pending.filter((task) => !task.settled);
  let done = false;
  let submittedFiles = 0;
  let foldedFiles = 0;
  let perFileCut = false;
  let slowExample: string | undefined;

  const submit = (relativePaths: string[], paths: TaskPaths): void => {
    submittedFiles += paths.count;
    const task: PendingTask = { relativePaths, paths, settled: false, result: job.run(paths) };
    task.result.then(() => {
      task.settled = true;
    });
    pending.push(task);
  };

  /** Folds one finished task into the outcome, in order; true once the search has enough. */
  const consume = (task: PendingTask, result: GrepTaskResult): boolean => {
    const byIndex = new Map(result.found.map((entry) => [entry.index, entry]));
    for (let index = 0; index < task.paths.count; index++) {
      const status = result.statuses[index];
      if (status === FileStatus.notScanned) break;
      if (status === FileStatus.binary) outcome.skipped.binary++;
      else if (status === FileStatus.tooLarge) outcome.skipped.tooLarge++;
      else if (status === FileStatus.unreadable) outcome.skipped.unreadable++;
      else outcome.filesScanned++;
      const found = byIndex.get(index);
      if (!found) continue;
      const file = request.reportPath(task.relativePaths[index] as string);
      if (found.slowLines.length > 0) slowExample ??= `${file}:${found.slowLines[0]}`;
      let lines: LineMatch[] = found.matches;
      if (lines.length > request.maxMatchesPerFile) {
        perFileCut = true;
        lines = lines.slice(0, request.maxMatchesPerFile);
      }
      for (const match of lines) {
        outcome.matches.push({ file, ...match });
        if (outcome.matches.length > request.maxResults) {
          outcome.matches.length = request.maxResults;
          cut(
            `more than maxResults (${request.maxResults}) matches; narrow the pattern, the path or the glob, or ask the user to raise maxResults`,
          );
          return true;
        }
      }
    }
    if (result.interrupted) {
      interruption(result);
      return true;
    }
    return false;
  };

  const interruption = (result: GrepTaskResult): void => {
    if (signal?.aborted) {
      cut('the call was cancelled');
    } else if (Date.now() <= limits.deadline) {
      // Not the budget: a worker crashed (or was stopped for another reason) mid-task.
      cut(
        result.interrupted === 'worker_stopped'
          ? 'a search worker stopped unexpectedly, so some files were not searched; try again'
          : 'the search was stopped before it finished',
      );
    } else {
      const seconds = Math.round((limits.deadline - startedAt) / 100) / 10;
      const where = stuckFile ? ` while the pattern was still running on ${stuckFile}` : '';
      cut(
        `the search ran out of its ${seconds} s time budget${where}; patterns with nested quantifiers such as (a+)+ can take exponential time — simplify the pattern or narrow the path`,
      );
    }
  };

  const startedAt = Date.now();
  let stuckFile: string | undefined;
  const watchDeadline = setTimeout(
    () => {
      const real = job.fileInProgress();
      if (real === undefined) return;
      // Unpacked only now, once: the budget is spent and this names the file in the answer.
      for (const task of pending) {
        const index = unpackTaskPaths(task.paths.packed).indexOf(real);
        if (index === -1) continue;
        stuckFile = request.reportPath(task.relativePaths[index] as string);
        break;
      }
    },
    Math.max(0, limits.deadline - Date.now()),
  );
  watchDeadline.unref?.();

  const onAbort = () => job.finish();
  signal?.addEventListener('abort', onAbort, { once: true });

  const drain = async (block: boolean): Promise<void> => {
    while (!done && pending.length > 0 && (block || (pending[0] as PendingTask).settled)) {
      const task = pending[0] as PendingTask;
      const result = await task.result;
      pending.shift();
      foldedFiles += task.paths.count;
      if (consume(task, result)) done = true;
    }
  };

  const stillNeeded = (): number =>
    filesStillNeeded(request.maxResults, outcome.matches.length, foldedFiles);
  const mustWait = (): boolean =>
    runningTasks().length > pool.size * 3 ||
    pending.length > MAX_PENDING_TASKS ||
    submittedFiles - foldedFiles > maxFilesInFlight(stillNeeded());

  try {
    if (request.root.kind === 'file') {
      submit([''], taskPathsOf([request.root.realPath]));
    } else {
      const walk = walkTree({
        baseRealPath: request.root.realPath,
        isAllowed: request.isAllowed,
        include: request.includeDotfiles ? undefined : (name) => !name.startsWith('.'),
        limits,
        signal,
        // The file system's own order: no sort per directory, and a capped search stops where the
        // first matches lie in the order directories are stored, not after every file whose name
        // sorts first (the answer is sorted by path at the end).
        order: 'directory',
      });
      let relativePaths: string[] = [];
      const packer = new TaskPathPacker();
      let taskFiles = FIRST_TASK_FILES;
      const filter = request.fileFilter;
      // A plain function, not a loop in this async one, so the JIT optimises it on its own.
      const addFiles = (batch: readonly WalkEntry[]): void => {
        for (const entry of batch) {
          if (entry.kind !== 'file') continue;
          if (filter && !filter.matches(entry.relativePath)) continue;
          relativePaths.push(entry.relativePath);
          if (entry.realDirectory === undefined) packer.addPath(entry.realPath);
          else packer.add(entry.realDirectory, entry.name);
          if (packer.count >= taskFiles) {
            submit(relativePaths, packer.take());
            relativePaths = [];
            taskFiles = nextTaskFiles(taskFiles, stillNeeded(), pool.size);
          }
        }
      };
      for await (const batch of walk.batches) {
        addFiles(batch);
        await drain(false);
        // Keep a bounded number of tasks running ahead of the results, so stopping early stays
        // cheap. The bound counts tasks still running, not finished ones waiting for an older
        // one to be folded in order: a slow task must not leave the other workers without work.
        // With the result cap in sight, the files in flight are bounded too (maxFilesInFlight).
        while (!done && mustWait()) {
          const running = runningTasks();
          if (pending.length > MAX_PENDING_TASKS || running.length === 0) await drain(true);
          else {
            // Any task, not only the oldest: a slow one must not hold the others' results.
            await Promise.race(running.map((task) => task.result));
            await drain(false);
          }
        }
        if (done) break;
      }
      if (!done && packer.count > 0) submit(relativePaths, packer.take());
      if (walk.report.incompleteBecause) cut(walk.report.incompleteBecause);
      outcome.notes.push(...walk.report.notes());
    }
    await drain(true);
  } finally {
    clearTimeout(watchDeadline);
    signal?.removeEventListener('abort', onAbort);
    job.finish();
  }
  if (perFileCut && !outcome.truncated) {
    cut(
      `some files had more than maxMatchesPerFile (${request.maxMatchesPerFile}) matching lines; only the first ones are shown`,
    );
  } else if (perFileCut) {
    outcome.notes.push(
      `Some files had more than maxMatchesPerFile (${request.maxMatchesPerFile}) matching lines; only the first ones are shown.`,
    );
  }
  outcome.matches = sortByPath(outcome.matches);
  if (slowExample) {
    cut(
      `the regular expression needed too much backtracking on some lines (e.g. ${slowExample}), so matches there may be missing; simplify nested quantifiers such as (a+)+`,
    );
  }
  return outcome;
}
