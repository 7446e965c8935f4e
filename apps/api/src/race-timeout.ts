/**
 * `promise`'s value, or `timedOut` when `ms` pass first. The timer is cleared
 * either way, so it never keeps the process up. A rejection of `promise`
 * before the time is up rejects the race; one after it is the caller's to
 * handle.
 */
export async function raceTimeout<T, M>(
  promise: Promise<T>,
  ms: number,
  timedOut: M,
): Promise<T | M> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<M>((resolve) => {
        timer = setTimeout(() => resolve(timedOut), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
