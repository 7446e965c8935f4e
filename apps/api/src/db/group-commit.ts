/**
 * Group commit on SQLite: transactions asked for together run one after
 * another inside a single SQLite transaction, committed once. A commit is most
 * of a small transaction's cost there (each one appends its pages to the
 * write-ahead log, with a system call per frame and a few for the locks), and
 * it runs on the server's one thread: under load many turns store their
 * messages at the same moment, and one commit for all of them leaves that
 * thread free sooner.
 *
 * "Together" has two widths. `run` is for a write something waits on (the
 * user's message before the first model call, a turn's last save before its
 * `done`): its group is what the current task asks for, committed as soon as
 * that task's microtasks have run. `runGathered` is for a write nothing waits
 * on yet (a step's save beside the next model call): its group waits for the
 * end of the event loop's turn (`setImmediate`) and takes in what every task
 * of that turn asked for. Under load that wait is itself milliseconds (tens at
 * the tail, with 200 turns running), which is why only writes off the
 * critical path take it.
 *
 * One transaction's failure does not fail the others: the whole group is
 * rolled back and each of its transactions is run again on its own, so the
 * failing one fails alone (with its own error) and the rest commit. A unit of
 * work must therefore keep its effects inside the transaction it is handed;
 * it may run twice. PostgreSQL gives each transaction a connection of its
 * own, so there every unit runs in its own transaction at once.
 */
import type { Transaction } from 'kysely';
import type { AppDatabase } from './database';
import type { DatabaseSchema } from './schema';

/** A unit of work: everything it writes goes through `transaction`; it may run more than once. */
export type TransactionWork<T> = (transaction: Transaction<DatabaseSchema>) => Promise<T>;

export interface GroupCommit {
  /** Runs `work` in a transaction, shared on SQLite with the others the current task asks for. */
  run<T>(work: TransactionWork<T>): Promise<T>;
  /**
   * Runs `work` in a transaction shared on SQLite with everything asked for
   * until the end of this turn of the event loop: fewer commits, for a write
   * nobody waits on yet.
   */
  runGathered<T>(work: TransactionWork<T>): Promise<T>;
}

interface Pending {
  work: TransactionWork<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function createGroupCommit(database: AppDatabase): GroupCommit {
  const { db } = database;
  const alone = <T>(work: TransactionWork<T>) => db.transaction().execute(work);
  if (database.kind !== 'sqlite') return { run: alone, runGathered: alone };

  let queue: Pending[] = [];
  let flushQueued = false;
  let gatheringQueued = false;

  const runAlone = (pending: Pending) => alone(pending.work).then(pending.resolve, pending.reject);

  const flush = async () => {
    const group = queue;
    queue = [];
    if (group.length === 0) return;
    if (group.length === 1) return runAlone(group[0] as Pending);
    let values: unknown[];
    try {
      values = await db.transaction().execute(async (transaction) => {
        const done: unknown[] = [];
        for (const pending of group) done.push(await pending.work(transaction));
        return done;
      });
    } catch {
      // Rolled back whole: each runs again on its own, so only a failing one fails.
      await Promise.all(group.map(runAlone));
      return;
    }
    group.forEach((pending, index) => {
      pending.resolve(values[index]);
    });
  };

  const enqueue = <T>(work: TransactionWork<T>, schedule: () => void) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      schedule();
    });

  // A group that is gathering when a `run` arrives goes with it, sooner.
  const flushSoon = () => {
    if (flushQueued) return;
    flushQueued = true;
    queueMicrotask(() => {
      flushQueued = false;
      void flush();
    });
  };
  const flushAtEndOfLoopTurn = () => {
    if (flushQueued || gatheringQueued) return;
    gatheringQueued = true;
    setImmediate(() => {
      gatheringQueued = false;
      void flush();
    });
  };

  return {
    run: (work) => enqueue(work, flushSoon),
    runGathered: (work) => enqueue(work, flushAtEndOfLoopTurn),
  };
}
