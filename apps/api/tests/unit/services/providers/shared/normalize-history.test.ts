import { describe, expect, test } from 'bun:test';
import type { ConversationMessage } from '@mango/shared';
import { normalizeHistory } from '../../../../../src/services/providers/shared/normalize-history';

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
