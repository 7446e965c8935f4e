import { describe, expect, test } from 'bun:test';
import type { ToolCallProgressEvent } from '@mango/shared';
import {
  createToolProgressForwarder,
  MAX_PROGRESS_REPORT_BYTES,
} from '../../../../src/services/chat/tool-call-progress';
import { waitUntil } from '../../../support/wait-until';

const call = { toolCallId: 'call_1', name: 'busy' };

function collector() {
  const events: ToolCallProgressEvent[] = [];
  return { events, emit: (event: ToolCallProgressEvent) => events.push(event) };
}

describe('tool progress pacing', () => {
  test('a tight loop of reports sends the first at once and only the latest of the rest, before the result', () => {
    const { events, emit } = collector();
    const forwarder = createToolProgressForwarder(call, emit, { minIntervalMs: 60_000 });
    for (let index = 0; index < 100; index++) forwarder.report({ type: 'step', data: { index } });
    expect(events.map((event) => event.progress.data?.index)).toEqual([0]);
    forwarder.close();
    expect(events.map((event) => event.progress.data?.index)).toEqual([0, 99]);
    forwarder.report({ type: 'step', data: { index: 100 } });
    expect(events).toHaveLength(2);
    expect(events[1]).toEqual({
      type: 'tool_call_progress',
      toolCallId: 'call_1',
      name: 'busy',
      progress: { type: 'step', data: { index: 99 } },
    });
  });

  test('a waiting report goes out when its interval has passed, without waiting for the end', async () => {
    const { events, emit } = collector();
    const forwarder = createToolProgressForwarder(call, emit, { minIntervalMs: 20 });
    forwarder.report({ type: 'step', message: 'one' });
    forwarder.report({ type: 'step', message: 'two' });
    forwarder.report({ type: 'step', message: 'three' });
    expect(events.map((event) => event.progress.message)).toEqual(['one']);
    expect(await waitUntil(() => events.length >= 2)).toBe(true);
    expect(events.map((event) => event.progress.message)).toEqual(['one', 'three']);
    forwarder.close();
    expect(events).toHaveLength(2);
  });

  test('without pacing every report goes out, in order', () => {
    const { events, emit } = collector();
    const forwarder = createToolProgressForwarder(call, emit, { minIntervalMs: 0 });
    for (let index = 0; index < 5; index++) forwarder.report({ type: 'step', data: { index } });
    expect(events.map((event) => event.progress.data?.index)).toEqual([0, 1, 2, 3, 4]);
  });

  test('a report over the size cap is dropped; one at the cap goes out', () => {
    const { events, emit } = collector();
    const forwarder = createToolProgressForwarder(call, emit, { minIntervalMs: 0 });
    const overhead = JSON.stringify({ type: 'big', message: '' }).length;
    forwarder.report({
      type: 'big',
      message: 'x'.repeat(MAX_PROGRESS_REPORT_BYTES - overhead + 1),
    });
    forwarder.report({ type: 'big', message: 'x'.repeat(MAX_PROGRESS_REPORT_BYTES - overhead) });
    expect(events).toHaveLength(1);
    expect(events[0]?.progress.message?.length).toBe(MAX_PROGRESS_REPORT_BYTES - overhead);
  });
});
