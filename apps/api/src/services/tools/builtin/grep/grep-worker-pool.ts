/**
 * The pool of grep workers: one per core, started on first use and kept warm
 * (unreferenced, so they never keep the process alive). Searches submit
 * batches of files as tasks; each worker holds up to three, so it rarely
 * waits for the main thread. Cancelling a search flips a flag in shared memory
 * that workers poll between files and between regex calls; a worker that does
 * not stop within a grace period (a regex that will not return) is terminated
 * and replaced, and the tasks of other searches it held are queued again.
 */
import { availableParallelism } from 'node:os';
import {
  CANCEL_SLOTS,
  CONTROL_LENGTH,
  type GrepJobSpec,
  type GrepTaskMessage,
  type GrepTaskResult,
  MAX_WORKER_SLOTS,
  progressOffset,
  type TaskPaths,
  unpackTaskPaths,
} from './grep-protocol';

/** How long a cancelled or overdue worker may take to notice before it is terminated. */
export const WORKER_STOP_GRACE_MS = 250;
/**
 * Tasks handed to one worker at a time: one running, two waiting in its inbox.
 * The main thread refills only between its walk slices, and with one task
 * waiting a worker often finished it first and sat idle (full scans ~10% slower).
 */
const TASKS_PER_WORKER = 3;

interface Task {
  id: number;
  job: JobState;
  paths: TaskPaths;
  resolve: (result: GrepTaskResult) => void;
}

interface Slot {
  index: number;
  worker?: Worker;
  inFlight: Task[];
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
  const slots: Slot[] = Array.from({ length: workerCount }, (_, index) => ({
    index,
    inFlight: [],
  }));
  const queue: Task[] = [];
  let nextTaskId = 1;
  let nextJobId = 1;

  const spawn = (slot: Slot): Worker => {
    const worker = new Worker(new URL('./grep-worker.ts', import.meta.url).href);
    // Bun's Worker can be unreferenced; the DOM typing does not know it.
    (worker as Worker & { unref?: () => void }).unref?.();
    worker.postMessage({ type: 'init', control: control.buffer, slot: slot.index });
    worker.onmessage = (event: MessageEvent<GrepTaskResult>) => {
      if (slot.worker !== worker) return;
      const position = slot.inFlight.findIndex((task) => task.id === event.data.taskId);
      if (position === -1) return;
      const [task] = slot.inFlight.splice(position, 1);
      task?.resolve(event.data);
      pump();
    };
    worker.onerror = () => {
      if (slot.worker === worker) stopWorker(slot, undefined);
    };
    slot.worker = worker;
    return worker;
  };

  /** Terminates a slot's worker; its tasks of `job` end as stopped, other searches' tasks are queued again. */
  const stopWorker = (slot: Slot, job: JobState | undefined): void => {
    const worker = slot.worker;
    slot.worker = undefined;
    worker?.terminate();
    const tasks = slot.inFlight.splice(0);
    const requeue: Task[] = [];
    for (const task of tasks) {
      if (task.job === job || task.job.finished || job === undefined) {
        task.resolve(interruptedResult(task, 'worker_stopped'));
      } else {
        requeue.push(task);
      }
    }
    queue.unshift(...requeue);
    pump();
  };

  /** The worker with room for another task and the fewest in flight, or undefined. */
  const leastLoaded = (): Slot | undefined => {
    let chosen: Slot | undefined;
    for (const slot of slots) {
      if (slot.inFlight.length >= TASKS_PER_WORKER) continue;
      if (!chosen || slot.inFlight.length < chosen.inFlight.length) chosen = slot;
    }
    return chosen;
  };

  /** Hands queued tasks out one at a time to the least loaded worker, so work spreads evenly. */
  const pump = (): void => {
    for (let slot = leastLoaded(); slot && queue.length > 0; slot = leastLoaded()) {
      const task = queue.shift() as Task;
      if (task.job.finished) {
        task.resolve(interruptedResult(task, 'cancelled'));
        continue;
      }
      const worker = slot.worker ?? spawn(slot);
      slot.inFlight.push(task);
      const message: GrepTaskMessage = {
        type: 'task',
        taskId: task.id,
        job: task.job.spec,
        paths: task.paths.packed,
      };
      worker.postMessage(message);
    }
  };

  /** Stops the job everywhere: flag for cooperative workers, termination for stuck ones. */
  const stopJob = (job: JobState): void => {
    Atomics.store(control, job.spec.jobId % CANCEL_SLOTS, job.spec.jobId);
    for (let index = queue.length - 1; index >= 0; index--) {
      const task = queue[index] as Task;
      if (task.job === job) {
        queue.splice(index, 1);
        task.resolve(interruptedResult(task, 'cancelled'));
      }
    }
    const busy = slots.filter((slot) => slot.inFlight.some((task) => task.job === job));
    if (busy.length === 0) return;
    const timer = setTimeout(() => {
      for (const slot of busy) {
        if (slot.inFlight.some((task) => task.job === job)) stopWorker(slot, job);
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
            pump();
          });
        },
        fileInProgress() {
          for (const slot of slots) {
            const running = slot.inFlight[0];
            if (running?.job !== job) continue;
            const offset = progressOffset(slot.index);
            if (Atomics.load(control, offset) !== spec.jobId) continue;
            // Unpacked only here: asked once, when a search runs out of time.
            return unpackTaskPaths(running.paths.packed)[Atomics.load(control, offset + 1)];
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
      for (const slot of slots) stopWorker(slot, undefined);
    },
  };
}

let sharedPool: GrepWorkerPool | undefined;

/** The process-wide pool, one worker per available core. */
export function getGrepWorkerPool(): GrepWorkerPool {
  sharedPool ??= createGrepWorkerPool(availableParallelism());
  return sharedPool;
}
