/** Builds tool contexts for tests: a fresh freshness ledger and chat-mode defaults. */
import { createMemoryFreshnessLedger } from '../../src/services/tools/freshness/memory-freshness-ledger';
import type { ToolCallContext, ToolContext } from '../../src/services/tools/types';

export function createTestCallContext(overrides: Partial<ToolCallContext> = {}): ToolCallContext {
  return {
    userId: 'user-test',
    chatId: 'chat-test',
    mode: 'chat',
    restrictToWorkingDirectory: false,
    freshness: createMemoryFreshnessLedger(),
    ...overrides,
  };
}

export function createTestToolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    ...createTestCallContext(),
    parameters: {},
    signal: new AbortController().signal,
    ...overrides,
  };
}
