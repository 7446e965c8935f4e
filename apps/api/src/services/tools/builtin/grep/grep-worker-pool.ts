/**
 * The pool of grep workers: one per core, started on first use and kept warm
 * (unreferenced, so they never keep the process alive). Searches submit
 * batches of files as tasks. Up to three tasks per worker are posted at a
 * time, each to every worker: the first worker free claims it in shared
 * memory (grep-protocol.ts), so tasks run in the order they were submitted
 * and none waits behind a long one on a busy worker while another idles;
 * the ones posted ahead mean a worker rarely waits for the main thread.
 * Cancelling a search flips a flag in shared memory that workers poll
 * between files and between regex calls, and withdraws its tasks no worker
 * has claimed; a worker that does not stop within a grace period (a regex
 * that will not return) is terminated and replaced, and the task of another
 * search it held is queued again.
 */
import { availableParallelism } from 'node:os';
import {
  CANCEL_SLOTS,
  CLAIM_CELLS,
  CONTROL_LENGTH,
  claimant,
  claimOffset,
  type GrepJobSpec,
  type GrepTaskMessage,
  type GrepTaskResult,
  MAX_WORKER_SLOTS,
  progressOffset,
  TASKS_PER_WORKER,
  type TaskPaths,
  unpackTaskPaths,
  WITHDRAWN,
} from './grep-protocol';

/** How long a cancelled or overdue worker may take to notice before it is terminated. */
export const WORKER_STOP_GRACE_MS = 250;

interface Task {
  id: number;
  job: JobState;
  paths: TaskPaths;
  resolve: (result: GrepTaskResult) => void;
  /** The task's claim cell while it is posted. */
  cell?: number;
}

interface Slot {
  index: number;
  worker?: Worker;
}

interface JobState {
  spec: GrepJobSpec;
  finished: boolean;
  deadlineTimer?: ReturnType<typeof setTimeout>;
}

export interface GrepJob {
  readonly spec: GrepJobSpec;
  /** Searches the files (real paths); resolves when a worker has finished or dropped them. */
  run(paths: TaskPaths): Promise<GrepTaskResult>;
  /** The file a worker is searching for this job right now (to name it when time runs out). */
  fileInProgress(): string | undefined;
  /** Ends the job: queued tasks are dropped and workers still on it are stopped. Idempotent. */
  finish(): void;
}

export interface GrepWorkerPool {
  readonly size: number;
  createJob(spec: Omit<GrepJobSpec, 'jobId'>): GrepJob;
  /** Terminates every worker (tests, shutdown). The pool starts new ones if used again. */
  close(): void;
}

function interruptedResult(
  task: Task,
  reason: NonNullable<GrepTaskResult['interrupted']>,
): GrepTaskResult {
  return {
    type: 'result',
    taskId: task.id,
    statuses: new Uint8Array(task.paths.count),
    found: [],
    interrupted: reason,
  };
}

export function createGrepWorkerPool(size: number): GrepWorkerPool {
  const workerCount = Math.max(1, Math.min(size, MAX_WORKER_SLOTS));
  const control = new Int32Array(new SharedArrayBuffer(CONTROL_LENGTH * 4));
  const slots: Slot[] = Array.from({ length: workerCount }, (_, index) => ({ index }));
  /** Submitted, not yet posted. */
  const queue: Task[] = [];
  /** Posted to the workers and not yet finished, by task id, in the order posted. */
  const posted = new Map<number, Task>();
  const freeCells = Array.from({ length: CLAIM_CELLS }, (_, cell) => CLAIM_CELLS - 1 - cell);
  const maxPosted = TASKS_PER_WORKER * workerCount;
  let nextTaskId = 1;
  let nextJobId = 1;

  /** The slot of the worker that claimed a posted task; undefined while no worker has. */
  const claimantOf = (task: Task): number | undefined =>
    task.cell === undefined ? undefined : claimant(Atomics.load(control, claimOffset(task.cell)));

  /**
   * The posted tasks the slot's worker has claimed: the one it runs, and for a
   * moment the one it finished, whose result is on its way.
   */
  const tasksClaimedBy = (slot: Slot): Task[] =>
    [...posted.values()].filter((task) => claimantOf(task) === slot.index);

  const messageOf = (task: Task): GrepTaskMessage => ({
    type: 'task',
    taskId: task.id,
    claim: task.cell as number,
    job: task.job.spec,
    paths: task.paths.packed,
  });

  /** Takes a task off the posted list, freeing its cell (a stale copy in an inbox no longer matches it). */
  const unpost = (task: Task): void => {
    posted.delete(task.id);
    if (task.cell !== undefined) freeCells.push(task.cell);
    task.cell = undefined;
  };

  /** Withdraws a posted task no worker has claimed; false if one has. */
  const withdraw = (task: Task): boolean => {
    const cell = claimOffset(task.cell as number);
    if (Atomics.compareExchange(control, cell, task.id, WITHDRAWN) !== task.id) return false;
    unpost(task);
    return true;
  };

  const spawn = (slot: Slot): void => {
    const worker = new Worker(new URL('./grep-worker.ts', import.meta.url).href);
    // Bun's Worker can be unreferenced; the DOM typing does not know it.
    (worker as Worker & { unref?: () => void }).unref?.();
    worker.postMessage({ type: 'init', control: control.buffer, slot: slot.index });
    worker.onmessage = (event: MessageEvent<GrepTaskResult>) => {
      if (slot.worker !== worker) return;
      const task = posted.get(event.data.taskId);
      if (!task) return;
      unpost(task);
      task.resolve(event.data);
      pump();
    };
    worker.onerror = () => {
      if (slot.worker === worker) stopWorker(slot, undefined);
    };
    slot.worker = worker;
    // Tasks posted while this slot had no worker: open ones are its to claim too.
    for (const task of posted.values()) {
      if (claimantOf(task) === undefined) worker.postMessage(messageOf(task));
    }
  };

  /**
   * Terminates a slot's worker. The task it was running ends as stopped if it
   * belongs to `job` (or any job, without one); another search's is queued
   * again. Open tasks stay posted to the other workers and to its successor.
   */
  const stopWorker = (slot: Slot, job: JobState | undefined): void => {
    const worker = slot.worker;
    slot.worker = undefined;
    worker?.terminate();
    const requeue: Task[] = [];
    for (const task of tasksClaimedBy(slot)) {
      unpost(task);
      if (job === undefined || task.job === job || task.job.finished) {
        task.resolve(interruptedResult(task, 'worker_stopped'));
      } else {
        requeue.push(task);
      }
    }
    queue.unshift(...requeue);
    pump();
  };

  /** Posts queued tasks, oldest first, while fewer than `maxPosted` are unfinished. */
  const pump = (): void => {
    if (queue.length === 0 && posted.size === 0) return;
    // Every slot has a worker while there is work: a replacement takes the open tasks too.
    for (const slot of slots) if (!slot.worker) spawn(slot);
    while (queue.length > 0 && posted.size < maxPosted) {
      const task = queue.shift() as Task;
      if (task.job.finished) {
        task.resolve(interruptedResult(task, 'cancelled'));
        continue;
      }
      task.cell = freeCells.pop() as number;
      Atomics.store(control, claimOffset(task.cell), task.id);
      posted.set(task.id, task);
      const message = messageOf(task);
      for (const slot of slots) slot.worker?.postMessage(message);
    }
  };

  /** Stops the job everywhere: flag for cooperative workers, withdrawal of its open tasks, termination for stuck ones. */
  const stopJob = (job: JobState): void => {
    Atomics.store(control, job.spec.jobId % CANCEL_SLOTS, job.spec.jobId);
    for (let index = queue.length - 1; index >= 0; index--) {
      const task = queue[index] as Task;
      if (task.job === job) {
        queue.splice(index, 1);
        task.resolve(interruptedResult(task, 'cancelled'));
      }
    }
    const busy = new Set<Slot>();
    for (const task of [...posted.values()]) {
      if (task.job !== job) continue;
      if (withdraw(task)) task.resolve(interruptedResult(task, 'cancelled'));
      else busy.add(slots[claimantOf(task) as number] as Slot);
    }
    pump();
    if (busy.size === 0) return;
    const timer = setTimeout(() => {
      for (const slot of busy) {
        if (tasksClaimedBy(slot).some((task) => task.job === job)) stopWorker(slot, job);
      }
    }, WORKER_STOP_GRACE_MS);
    timer.unref?.();
  };

  return {
    size: workerCount,
    createJob(options) {
      const spec: GrepJobSpec = { ...options, jobId: nextJobId++ };
      if (nextJobId > 0x7fffffff) nextJobId = 1;
      Atomics.store(control, spec.jobId % CANCEL_SLOTS, 0);
      const job: JobState = { spec, finished: false };
      // Workers stop themselves at the deadline; the timer catches one stuck in a regex.
      job.deadlineTimer = setTimeout(
        () => stopJob(job),
        Math.max(0, spec.deadline - Date.now()) + 10,
      );
      job.deadlineTimer.unref?.();
      return {
        spec,
        run(paths) {
          if (job.finished) {
            return Promise.resolve(
              interruptedResult({ id: 0, job, paths, resolve: () => {} }, 'cancelled'),
            );
          }
          return new Promise((resolve) => {
            queue.push({ id: nextTaskId++, job, paths, resolve });
            // Task ids stay positive: a claim cell holds a claimed task as a negative number.
            if (nextTaskId > 0x7fffffff) nextTaskId = 1;
            pump();
          });
        },
        fileInProgress() {
          for (const task of posted.values()) {
            if (task.job !== job) continue;
            const slot = claimantOf(task);
            if (slot === undefined) continue;
            const offset = progressOffset(slot);
            if (Atomics.load(control, offset) !== spec.jobId) continue;
            // Unpacked only here: asked once, when a search runs out of time.
            return unpackTaskPaths(task.paths.packed)[Atomics.load(control, offset + 1)];
          }
          return undefined;
        },
        finish() {
          if (job.finished) return;
          job.finished = true;
          clearTimeout(job.deadlineTimer);
          stopJob(job);
        },
      };
    },
    close() {
      for (const slot of slots) {
        slot.worker?.terminate();
        slot.worker = undefined;
      }
      const tasks = [...posted.values(), ...queue.splice(0)];
      for (const task of tasks) {
        unpost(task);
        task.resolve(interruptedResult(task, 'worker_stopped'));
      }
    },
  };
}

let sharedPool: GrepWorkerPool | undefined;

/** The process-wide pool, one worker per available core. */
export function getGrepWorkerPool(): GrepWorkerPool {
  sharedPool ??= createGrepWorkerPool(availableParallelism());
  return sharedPool;
}
