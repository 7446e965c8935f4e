/**
 * How long one rendering pass may go on drawing before it lets the page have
 * its turn (paint, input). The time counts from the first question of a pass
 * and starts again in the next one: a pass is the synchronous work up to the
 * next microtask checkpoint (Preact renders a batch of updates in one
 * microtask). Work done in pieces asks `hasTime()` after each piece and
 * leaves the rest to a later pass.
 */
export interface RenderBudget {
  /** Whether this pass has time left (the first call of a pass opens it). */
  hasTime(): boolean;
}

export function createRenderBudget(
  limitMs: number,
  now: () => number = () => performance.now(),
  /** Runs the callback once the current pass is over. */
  afterPass: (callback: () => void) => void = queueMicrotask,
): RenderBudget {
  let openedAt: number | undefined;
  return {
    hasTime() {
      const time = now();
      if (openedAt === undefined) {
        openedAt = time;
        afterPass(() => {
          openedAt = undefined;
        });
        return true;
      }
      return time - openedAt < limitMs;
    },
  };
}
