import { describe, expect, test } from 'bun:test';
import type { TurnStreamEvent } from '@mango/shared';
import { createLogger } from '../../../../src/logger';
import { createTurnSummary } from '../../../../src/services/chat/turn-summary';
import { PROVIDER_FAILURE_LOG_MESSAGE } from '../../../../src/services/providers/provider-failure-log';

function capture() {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: createLogger({ write: (line) => lines.push(JSON.parse(line)) }) };
}

const context = { provider: 'anthropic' as const, model: 'claude-sonnet-4-5', chatId: 'chat-1' };

const toolResult = (isError: boolean, errorCode?: 'aborted' | 'timeout'): TurnStreamEvent => ({
  type: 'tool_result',
  toolCallId: `call-${Math.random()}`,
  name: 'bash',
  content: '{}',
  isError,
  ...(errorCode ? { errorCode } : {}),
  durationMs: 1,
});

describe('the turn summary', () => {
  test('sums usage and counts tool calls by outcome; names the turn when it has an id', () => {
    const summary = createTurnSummary({ ...context, turnId: 'turn-7' });
    for (const event of [
      { type: 'usage', inputTokens: 10, outputTokens: 5, totalTokens: 15, reasoningTokens: 2 },
      toolResult(false),
      toolResult(true, 'timeout'),
      toolResult(true, 'aborted'),
      { type: 'usage', inputTokens: 20, outputTokens: 1, totalTokens: 21 },
    ] as TurnStreamEvent[])
      summary.observe(event);
    expect(summary.logFields()).toEqual({
      turnId: 'turn-7',
      usage: { inputTokens: 30, outputTokens: 6, totalTokens: 36, reasoningTokens: 2 },
      toolCalls: { succeeded: 1, failed: 1, aborted: 1 },
    });
  });

  test('a failed model call is logged once, with provider, model, status, code and request', () => {
    const { lines, logger } = capture();
    const summary = createTurnSummary({ ...context, logger, requestId: 'req-9' });
    summary.observe({
      type: 'error',
      code: 'rate_limited',
      message: 'Anthropic: the provider answered HTTP 429.',
      retryable: true,
      status: 429,
    });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: PROVIDER_FAILURE_LOG_MESSAGE,
        provider: 'anthropic',
        operation: 'model_call',
        model: 'claude-sonnet-4-5',
        status: 429,
        errorCode: 'rate_limited',
        chatId: 'chat-1',
        requestId: 'req-9',
      }),
    ]);
    expect(summary.logFields()).toMatchObject({ errorCode: 'rate_limited', providerStatus: 429 });
  });

  test('a cancel or a failure of this server is not a failed provider request', () => {
    const { lines, logger } = capture();
    const summary = createTurnSummary({ ...context, logger });
    summary.observe({ type: 'error', code: 'aborted', message: 'cancelled', retryable: false });
    summary.observe({
      type: 'error',
      code: 'internal_error',
      message: 'failed',
      retryable: true,
    });
    expect(lines).toEqual([]);
    expect(summary.logFields().errorCode).toBe('internal_error');
  });
});
