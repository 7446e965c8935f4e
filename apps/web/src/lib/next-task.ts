/**
 * A task of its own as soon as the page is free: a message to itself. Unlike
 * a `setTimeout(…, 0)` set from within another, it is not held back 4 ms (the
 * browser's nesting clamp), so work done in slices does not wait between them
 * longer than the page needs to paint and take input.
 */
export function afterThisTask(callback: () => void): () => void {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    callback();
  };
  channel.port2.postMessage(undefined);
  return () => channel.port1.close();
}

/** Resolves in a task of its own (see `afterThisTask`). */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => afterThisTask(resolve));
}
