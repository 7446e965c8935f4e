/**
 * A signal that aborts, with the source's reason, as soon as any of its
 * sources does, until it is released. `AbortSignal.any` makes the same
 * signal, but keeps it reachable from its sources for as long as anything
 * listens to it, and the provider SDKs listen to every request's signal:
 * each model step's signal then lived, with the SDK's listener and that
 * request's controller, until the turn's own signal went away
 * (docs/chat-turns.md#memory-and-the-collector). Releasing unhooks it from
 * its sources, so what hangs off it can go when its step ends.
 */
export interface LinkedAbortSignal {
  readonly signal: AbortSignal;
  /** Stops following the sources (safe to call more than once). The signal keeps its state. */
  release(): void;
}

export function linkAbortSignal(sources: readonly (AbortSignal | undefined)[]): LinkedAbortSignal {
  const controller = new AbortController();
  const hooks: { source: AbortSignal; listener: () => void }[] = [];
  const release = () => {
    for (const { source, listener } of hooks) source.removeEventListener('abort', listener);
    hooks.length = 0;
  };
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      release();
      break;
    }
    const listener = () => {
      controller.abort(source.reason);
      release();
    };
    source.addEventListener('abort', listener, { once: true });
    hooks.push({ source, listener });
  }
  return { signal: controller.signal, release };
}
