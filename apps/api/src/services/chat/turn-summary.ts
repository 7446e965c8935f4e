/**
 * What one turn amounted to, gathered from its events as they stream: the
 * tokens it used (summed over its model calls), its tool calls by outcome, and
 * the code of the error that ended it. The turn's `done` event carries the
 * usage; the server log gets one line per turn with all of it.
 */
import type { ErrorCode, TurnStreamEvent, TurnUsage, UsageEvent } from '@mango/shared';

/** Adds one model call's reported usage to a running total. */
export function addUsage(total: TurnUsage, usage: UsageEvent | TurnUsage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.totalTokens += usage.totalTokens;
  if (usage.reasoningTokens !== undefined)
    total.reasoningTokens = (total.reasoningTokens ?? 0) + usage.reasoningTokens;
  if (usage.cachedInputTokens !== undefined)
    total.cachedInputTokens = (total.cachedInputTokens ?? 0) + usage.cachedInputTokens;
}

export interface TurnSummary {
  observe(event: TurnStreamEvent): void;
  usage(): TurnUsage;
  /** The fields of the turn's log line. */
  logFields(): {
    usage: TurnUsage;
    toolCalls: { succeeded: number; failed: number; aborted: number };
    errorCode?: ErrorCode;
  };
}

export function createTurnSummary(): TurnSummary {
  const usage: TurnUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const toolCalls = { succeeded: 0, failed: 0, aborted: 0 };
  let errorCode: ErrorCode | undefined;
  return {
    observe(event) {
      if (event.type === 'usage') addUsage(usage, event);
      else if (event.type === 'tool_result') {
        if (!event.isError) toolCalls.succeeded += 1;
        else if (event.errorCode === 'aborted') toolCalls.aborted += 1;
        else toolCalls.failed += 1;
      } else if (event.type === 'error') {
        errorCode = event.code;
      }
    },
    usage: () => ({ ...usage }),
    logFields: () => ({
      usage: { ...usage },
      toolCalls: { ...toolCalls },
      ...(errorCode ? { errorCode } : {}),
    }),
  };
}
