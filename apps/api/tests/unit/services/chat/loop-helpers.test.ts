import { describe, expect, test } from 'bun:test';
import type { ConversationMessage } from '@mango/shared';
import {
  resolveMaxIterations,
  TurnOptionsError,
} from '../../../../src/services/chat/run-chat-turn';
import { buildSystemPrompt } from '../../../../src/services/chat/system-prompt';
import {
  parseToolCallArguments,
  serializeToolResult,
} from '../../../../src/services/chat/tool-call-results';
import { normalizeHistory } from '../../../../src/services/providers/shared/normalize-history';

describe('system prompt', () => {
  test('agent mode announces the directory and the restriction; chat mode does not', () => {
    const agent = buildSystemPrompt({
      mode: 'agent',
      workingDirectory: '/srv/app',
      restrictToWorkingDirectory: true,
    });
    expect(agent).toContain('/srv/app');
    expect(agent).toContain('restricted to this directory');
    const open = buildSystemPrompt({
      mode: 'agent',
      workingDirectory: '/srv/app',
      restrictToWorkingDirectory: false,
    });
    expect(open).toContain('not restricted');
    expect(
      buildSystemPrompt({
        mode: 'chat',
        workingDirectory: '/srv/app',
        restrictToWorkingDirectory: true,
      }),
    ).toBeUndefined();
    expect(buildSystemPrompt({ mode: 'agent', restrictToWorkingDirectory: true })).toContain(
      'No working directory',
    );
  });
});

describe('tool call arguments and results', () => {
  test('empty arguments are {}; invalid JSON is validation_failed with the parser message', () => {
    expect(parseToolCallArguments('')).toEqual({ ok: true, value: {} });
    expect(parseToolCallArguments(' {"a":1} ')).toEqual({ ok: true, value: { a: 1 } });
    const bad = parseToolCallArguments('{"a":');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('validation_failed');
      expect(bad.error.message).toMatch(/not valid JSON \(.+\)/);
    }
  });

  test('results are serialised; strings pass through; what JSON cannot hold is an error', () => {
    expect(serializeToolResult({ a: [1, 'b'] })).toEqual({ ok: true, content: '{"a":[1,"b"]}' });
    expect(serializeToolResult('plain')).toEqual({ ok: true, content: 'plain' });
    expect(serializeToolResult(undefined)).toEqual({ ok: true, content: 'null' });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (const value of [circular, { n: 1n }, () => 1]) {
      const result = serializeToolResult(value);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe('execution_failed');
    }
  });

  test('maxIterations is 1–1000, default 25', () => {
    expect(resolveMaxIterations(undefined)).toBe(25);
    expect(resolveMaxIterations(1000)).toBe(1000);
    for (const value of [0, 1001, 2.5, Number.NaN])
      expect(() => resolveMaxIterations(value)).toThrow(TurnOptionsError);
  });
});

describe('history normalisation', () => {
  const call = (toolCallId: string) => ({
    type: 'tool_call' as const,
    toolCallId,
    name: 'echo',
    arguments: '{}',
    status: 'succeeded' as const,
    durationMs: 1,
  });
  const result = (toolCallId: string) => ({
    type: 'tool_result' as const,
    toolCallId,
    name: 'echo',
    content: 'ok',
    isError: false,
  });

  test('every call is answered right after its message; stray results and empty messages go', () => {
    const history: ConversationMessage[] = [
      { role: 'user', parts: [{ type: 'text', text: 'go' }] },
      { role: 'tool', parts: [result('stray')] },
      { role: 'assistant', parts: [] },
      { role: 'assistant', parts: [call('a'), call('b')] },
      { role: 'tool', parts: [result('b')] },
      { role: 'tool', parts: [result('zzz')] },
      { role: 'user', parts: [{ type: 'text', text: 'next' }] },
    ];
    const normalized = normalizeHistory(history);
    expect(normalized.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
    ]);
    const answers = normalized[2]?.parts ?? [];
    expect(
      answers.map((part) => (part.type === 'tool_result' ? [part.toolCallId, part.isError] : [])),
    ).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });
});
