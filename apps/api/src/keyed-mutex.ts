/** A lock per key, for the database handles (one writer per SQLite file) and the freshness ledgers (one writer per path). */

/** Serialises tasks per key; a failed task does not block the next one. */
export function createKeyedMutex() {
  const tails = new Map<string, Promise<unknown>>();
  return async function withLock<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => {});
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

export type KeyedMutex = ReturnType<typeof createKeyedMutex>;
