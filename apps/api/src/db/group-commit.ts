/**
 * Group commit on SQLite: the transactions asked for in one turn of the event
 * loop run one after another inside a single SQLite transaction, committed
 * once. A commit is most of a small transaction's cost there (each one
 * appends its pages to the write-ahead log, with a system call per frame and
 * a few for the locks), and it runs on the server's one thread: under load
 * many turns store their messages at the same moment, and one commit for all
 * of them leaves that thread free sooner. When few transactions arrive
 * together, each still gets its own (after a `setImmediate`, a few µs).
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
  /** Runs `work` in a transaction (shared with others asked for at the same moment, on SQLite). */
  run<T>(work: TransactionWork<T>): Promise<T>;
}

interface Pending {
  work: TransactionWork<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function createGroupCommit(
  database: AppDatabase,
  schedule: (flush: () => void) => void = setImmediate,
): GroupCommit {
  const { db } = database;
  const alone = <T>(work: TransactionWork<T>) => db.transaction().execute(work);
  if (database.kind !== 'sqlite') return { run: alone };

  let queue: Pending[] = [];

  const runAlone = (pending: Pending) => alone(pending.work).then(pending.resolve, pending.reject);

  const flush = async () => {
    const group = queue;
    queue = [];
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

  return {
    run<T>(work: TransactionWork<T>) {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (queue.length === 1) schedule(() => void flush());
      });
    },
  };
}
