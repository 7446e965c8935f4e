/**
 * The turns running on this instance, one per chat at most, each with the
 * controller that cancels it. A turn runs on the instance that received it
 * (SPEC §13); a cancel must reach that instance (see the README on scale-out).
 */
export interface RunningTurns {
  /** Claims the chat's slot; undefined when a turn is already running there. */
  begin(chatId: string): AbortController | undefined;
  /** Frees the slot if `controller` still holds it. */
  end(chatId: string, controller: AbortController): void;
  /** Cancels the chat's running turn; false when none is running. */
  cancel(chatId: string): boolean;
  isRunning(chatId: string): boolean;
}

export function createRunningTurns(): RunningTurns {
  const running = new Map<string, AbortController>();
  return {
    begin(chatId) {
      if (running.has(chatId)) return undefined;
      const controller = new AbortController();
      running.set(chatId, controller);
      return controller;
    },
    end(chatId, controller) {
      if (running.get(chatId) === controller) running.delete(chatId);
    },
    cancel(chatId) {
      const controller = running.get(chatId);
      if (!controller) return false;
      controller.abort();
      return true;
    },
    isRunning: (chatId) => running.has(chatId),
  };
}
