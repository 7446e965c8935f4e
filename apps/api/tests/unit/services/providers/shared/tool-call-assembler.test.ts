import { describe, expect, test } from 'bun:test';
import {
  type AssemblerEvent,
  createToolCallAssembler,
  type ToolCallFragment,
} from '../../../../../src/services/providers/shared/tool-call-assembler';

function run(fragments: ToolCallFragment[], finishEarly = false): AssemblerEvent[] {
  let next = 0;
  const assembler = createToolCallAssembler(() => `synthetic_${++next}`);
  const events = fragments.flatMap((fragment) => assembler.push(fragment));
  if (finishEarly) return events;
  return [...events, ...assembler.finish()];
}

function completed(events: AssemblerEvent[]) {
  return events
    .filter((event) => event.type === 'tool_call_completed')
    .map((event) => ({ id: event.toolCallId, name: event.name, args: event.arguments }));
}

describe('tool call assembler', () => {
  test('assembles index-keyed fragments into whole calls closed only at finish', () => {
    const fragments: ToolCallFragment[] = [
      { index: 0, id: 'call_a', name: 'read_file', arguments: '' },
      { index: 0, arguments: '{"path":' },
      { index: 0, arguments: '"a.txt"}' },
    ];
    const before = run(fragments, true);
    expect(before.map((event) => event.type)).toEqual([
      'tool_call_started',
      'tool_call_arguments_delta',
      'tool_call_arguments_delta',
    ]);
    expect(completed(run(fragments))).toEqual([
      { id: 'call_a', name: 'read_file', args: '{"path":"a.txt"}' },
    ]);
  });

  test('does not close a call because its arguments already parse as JSON', () => {
    const events = run(
      [
        { index: 0, id: 'call_a', name: 'count', arguments: '{"n":1' },
        { index: 0, arguments: '}' },
        { index: 0, arguments: '' },
      ],
      true,
    );
    expect(events.some((event) => event.type === 'tool_call_completed')).toBe(false);
  });

  test('keeps parallel calls on different indexes apart, even interleaved', () => {
    const events = run([
      { index: 0, id: 'call_a', name: 'one', arguments: '' },
      { index: 1, id: 'call_b', name: 'two', arguments: '' },
      { index: 0, arguments: '{"x":' },
      { index: 1, arguments: '{"y":' },
      { index: 1, arguments: '2}' },
      { index: 0, arguments: '1}' },
    ]);
    expect(completed(events)).toEqual([
      { id: 'call_a', name: 'one', args: '{"x":1}' },
      { id: 'call_b', name: 'two', args: '{"y":2}' },
    ]);
  });

  test('a missing index continues the latest call, and a new id starts a new one', () => {
    const events = run([
      { id: 'call_a', name: 'one', arguments: '{"x"' },
      { arguments: ':1}' },
      { id: 'call_b', name: 'two', arguments: '{}' },
    ]);
    expect(completed(events)).toEqual([
      { id: 'call_a', name: 'one', args: '{"x":1}' },
      { id: 'call_b', name: 'two', args: '{}' },
    ]);
  });

  test('an index reused for a different id starts a new call', () => {
    const events = run([
      { index: 0, id: 'call_a', name: 'one', arguments: '{"x":1}' },
      { index: 0, id: 'call_b', name: 'one', arguments: '{"x":2}' },
    ]);
    expect(completed(events)).toEqual([
      { id: 'call_a', name: 'one', args: '{"x":1}' },
      { id: 'call_b', name: 'one', args: '{"x":2}' },
    ]);
  });

  test('empty id and name on continuation deltas are continuation, not new calls', () => {
    const events = run([
      { index: 0, id: 'call_a', name: 'one', arguments: '' },
      { index: 0, id: '', name: '', arguments: '{"x":' },
      { index: 0, id: '', name: '', arguments: '1}' },
    ]);
    expect(completed(events)).toEqual([{ id: 'call_a', name: 'one', args: '{"x":1}' }]);
  });

  test('synthesises unique ids when the server sends none', () => {
    const events = run([
      { index: 0, name: 'one', arguments: '{}' },
      { index: 1, name: 'one', arguments: '{}' },
    ]);
    expect(completed(events).map((call) => call.id)).toEqual(['synthetic_1', 'synthetic_2']);
  });

  test('buffers arguments that arrive before the name and releases them when it comes', () => {
    const events = run([
      { index: 0, id: 'call_a', arguments: '{"x":' },
      { index: 0, name: 'late', arguments: '1}' },
    ]);
    expect(events.map((event) => event.type)).toEqual([
      'tool_call_started',
      'tool_call_arguments_delta',
      'tool_call_completed',
    ]);
    expect(events[1]).toEqual({
      type: 'tool_call_arguments_delta',
      toolCallId: 'call_a',
      delta: '{"x":1}',
    });
  });

  test('a call whose name never arrives is still completed (answered later as an unknown tool)', () => {
    expect(completed(run([{ index: 0, id: 'call_a', arguments: '{}' }]))).toEqual([
      { id: 'call_a', name: '', args: '{}' },
    ]);
  });

  test('reports the calls still open (what a cut stream leaves behind)', () => {
    const assembler = createToolCallAssembler(() => 'unused');
    assembler.push({ index: 0, id: 'call_a', name: 'one', arguments: '{"x":' });
    expect(assembler.openCalls()).toEqual([
      { toolCallId: 'call_a', name: 'one', arguments: '{"x":' },
    ]);
    assembler.finish();
    expect(assembler.openCalls()).toEqual([]);
  });
});
