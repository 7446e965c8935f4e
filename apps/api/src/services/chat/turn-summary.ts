/**
 * What one turn amounted to, gathered from its events as they stream: the
 * tokens it used (summed over its model calls), its tool calls by outcome, and
 * the code of the error that ended it. The turn's `done` event carries the
 * usage; the server log gets one line per turn with all of it, and one line
 * per failed model call as it fails (docs/operations.md#logs).
 */
import type { ErrorCode, ErrorEvent, TurnStreamEvent, TurnUsage } from '@mango/shared';
import type { Logger } from '../../logger';
import { logProviderFailure } from '../providers/provider-failure-log';
import type { ProviderId } from '../providers/spec';

export interface TurnSummaryContext {
  /** Where a failed model call is logged. */
  logger?: Logger;
  provider: ProviderId;
  /** The model as the provider names it. */
  model: string;
  chatId: string;
  /** The turn's id, named in the turn's log line when it has one. */
  turnId?: string;
  /** The request that started the turn. */
  requestId?: string;
}

export interface TurnSummary {
  observe(event: TurnStreamEvent): void;
  usage(): TurnUsage;
  /** The fields of the turn's log line. */
  logFields(): {
    turnId?: string;
    usage: TurnUsage;
    toolCalls: { succeeded: number; failed: number; aborted: number };
    errorCode?: ErrorCode;
    /** The provider's HTTP status, when a provider's answer ended the turn. */
    providerStatus?: number;
  };
}

/** An `error` event that reports a failed model call (not a cancel, not this server failing). */
function isProviderFailure(event: ErrorEvent): boolean {
  return event.code !== 'aborted' && event.code !== 'internal_error';
}

export function createTurnSummary(context?: TurnSummaryContext): TurnSummary {
  const usage: TurnUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const toolCalls = { succeeded: 0, failed: 0, aborted: 0 };
  let errorCode: ErrorCode | undefined;
  let providerStatus: number | undefined;
  return {
    observe(event) {
      if (event.type === 'usage') {
        usage.inputTokens += event.inputTokens;
        usage.outputTokens += event.outputTokens;
        usage.totalTokens += event.totalTokens;
        if (event.reasoningTokens !== undefined)
          usage.reasoningTokens = (usage.reasoningTokens ?? 0) + event.reasoningTokens;
        if (event.cachedInputTokens !== undefined)
          usage.cachedInputTokens = (usage.cachedInputTokens ?? 0) + event.cachedInputTokens;
      } else if (event.type === 'tool_result') {
        if (!event.isError) toolCalls.succeeded += 1;
        else if (event.errorCode === 'aborted') toolCalls.aborted += 1;
        else toolCalls.failed += 1;
      } else if (event.type === 'error') {
        errorCode = event.code;
        if (event.status !== undefined) providerStatus = event.status;
        if (context && isProviderFailure(event))
          logProviderFailure(context.logger, {
            provider: context.provider,
            operation: 'model_call',
            model: context.model,
            ...(event.status !== undefined ? { status: event.status } : {}),
            errorCode: event.code,
            message: event.message,
            chatId: context.chatId,
            ...(context.requestId ? { requestId: context.requestId } : {}),
          });
      }
    },
    usage: () => ({ ...usage }),
    logFields: () => ({
      ...(context?.turnId ? { turnId: context.turnId } : {}),
      usage: { ...usage },
      toolCalls: { ...toolCalls },
      ...(errorCode ? { errorCode } : {}),
      ...(providerStatus !== undefined ? { providerStatus } : {}),
    }),
  };
}
