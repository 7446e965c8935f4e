import { describe, expect, test } from 'bun:test';
import type { MessagePart, ToolCallPart, ToolResultPart } from '@mango/shared';
import type { StoredMessage } from '../../../../src/services/chat/chat-repository';
import {
  INTERRUPTED_CALL_MESSAGE,
  planUnansweredToolCallRepair,
} from '../../../../src/services/chat/unanswered-tool-calls';

let counter = 0;
const message = (role: StoredMessage['role'], parts: MessagePart[]): StoredMessage => {
  counter++;
  return { id: `msg_${counter}`, chatId: 'chat_1', role, parts, createdAt: '' };
};
const call = (id: string, status: ToolCallPart['status'] = 'running'): ToolCallPart => ({
  type: 'tool_call',
  toolCallId: id,
  name: 'slow',
  arguments: '{}',
  status,
  durationMs: 0,
});
const result = (id: string): ToolResultPart => ({
  type: 'tool_result',
  toolCallId: id,
  name: 'slow',
  content: '{"ok":true}',
  isError: false,
});
const aborted = (id: string): ToolResultPart => ({
  type: 'tool_result',
  toolCallId: id,
  name: 'slow',
  content: JSON.stringify({
    error: { code: 'aborted', message: INTERRUPTED_CALL_MESSAGE, retryable: false },
  }),
  isError: true,
});

describe('answering the calls an interrupted turn left open', () => {
  test('a consistent history needs nothing', () => {
    const history = [
      message('user', [{ type: 'text', text: 'go' }]),
      message('assistant', [call('a', 'succeeded')]),
      message('tool', [result('a')]),
      message('assistant', [{ type: 'text', text: 'done' }]),
    ];
    expect(planUnansweredToolCallRepair(history)).toEqual({ update: [], append: [], answered: [] });
  });

  test('calls of the last model message get a new tool message after it, and become aborted', () => {
    const last = message('assistant', [
      { type: 'text', text: 'Let me look.' },
      call('a'),
      call('b'),
    ]);
    const plan = planUnansweredToolCallRepair([
      message('user', [{ type: 'text', text: 'go' }]),
      last,
    ]);
    expect(plan.answered).toEqual(['a', 'b']);
    expect(plan.update).toEqual([
      {
        id: last.id,
        parts: [
          { type: 'text', text: 'Let me look.' },
          { ...call('a'), status: 'aborted', errorCode: 'aborted' },
          { ...call('b'), status: 'aborted', errorCode: 'aborted' },
        ],
      },
    ]);
    expect(plan.append).toEqual([{ role: 'tool', parts: [aborted('a'), aborted('b')] }]);
  });

  test('a call missing from its step’s tool message is added there; answered calls are kept', () => {
    const step = message('assistant', [call('a', 'succeeded'), call('b')]);
    const answers = message('tool', [result('a')]);
    const plan = planUnansweredToolCallRepair([step, answers, message('user', [])]);
    expect(plan.answered).toEqual(['b']);
    expect(plan.update).toEqual([
      {
        id: step.id,
        parts: [call('a', 'succeeded'), { ...call('b'), status: 'aborted', errorCode: 'aborted' }],
      },
      { id: answers.id, parts: [result('a'), aborted('b')] },
    ]);
    expect(plan.append).toEqual([]);
  });

  test('a call followed by another message and no tool message is marked, with nothing appended out of place', () => {
    const step = message('assistant', [call('a')]);
    const plan = planUnansweredToolCallRepair([
      step,
      message('user', [{ type: 'text', text: 'hi' }]),
    ]);
    expect(plan.update).toEqual([
      { id: step.id, parts: [{ ...call('a'), status: 'aborted', errorCode: 'aborted' }] },
    ]);
    expect(plan.append).toEqual([]);
  });
});
