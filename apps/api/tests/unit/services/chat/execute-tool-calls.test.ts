/**
 * The attachment mechanism (docs/tool-system.md#attachments) in the loop's
 * tool-call execution: what a tool attaches while it runs and what it returns
 * with its result are streamed once each, kept as `image` parts right after
 * the call's part, and nothing attached after the call ended counts.
 */
import { describe, expect, test } from 'bun:test';
import type { AssistantMessagePart, ImagePart, ToolCallPart } from '@mango/shared';
import {
  executeToolCalls,
  type ToolCallEvent,
} from '../../../../src/services/chat/execute-tool-calls';
import { insertImagePart } from '../../../../src/services/chat/run-chat-turn';
import type { TurnToolset } from '../../../../src/services/chat/turn-toolset';
import { normalizeHistory } from '../../../../src/services/providers/shared/normalize-history';
import { type ToolAttachment, withAttachments } from '../../../../src/services/tools';

const call = (toolCallId: string, name = 'draw'): ToolCallPart => ({
  type: 'tool_call',
  toolCallId,
  name,
  arguments: '{}',
  status: 'running',
  durationMs: 0,
});

const image = (index: number, imageId: string): ToolAttachment => ({
  type: 'image',
  index,
  imageId,
  url: `/api/images/${imageId}`,
  mediaType: 'image/png',
  alt: 'a drawing',
});

function toolset(
  run: (attach: (attachment: ToolAttachment) => void) => Promise<unknown>,
): TurnToolset {
  return {
    definitions: [],
    execute: (_call, _signal, _progress, attach) => run(attach ?? (() => {})),
  };
}

async function execute(calls: ToolCallPart[], set: TurnToolset) {
  const events: ToolCallEvent[] = [];
  const parts: AssistantMessagePart[] = [{ type: 'text', text: 'Drawing.' }, ...calls];
  const results = await executeToolCalls(calls, {
    toolset: set,
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    onImagePart: (part, imagePart) => insertImagePart(parts, part, imagePart),
    now: () => 0,
  });
  return { events, parts, results };
}

describe('tool attachments', () => {
  test('attached while running and returned with the result: each streamed once, kept after the call, unwrapped for the model', async () => {
    let late: ((attachment: ToolAttachment) => void) | undefined;
    const { events, parts, results } = await execute(
      [call('call_1')],
      toolset(async (attach) => {
        attach(image(0, 'img_a'));
        attach({
          type: 'image_failed',
          index: 1,
          code: 'content_policy_violation',
          message: 'refused',
        });
        attach(image(0, 'img_a'));
        late = attach;
        return withAttachments({ made: 2 }, [image(0, 'img_a'), image(2, 'img_b')]);
      }),
    );
    late?.(image(3, 'img_late'));
    expect(events.map((event) => [event.type, 'index' in event ? event.index : null])).toEqual([
      ['image_generated', 0],
      ['image_failed', 1],
      ['image_generated', 2],
      ['tool_result', null],
    ]);
    expect(results[0]?.content).toBe('{"made":2}');
    expect(parts.map((part) => (part.type === 'image' ? part.imageId : part.type))).toEqual([
      'text',
      'tool_call',
      'img_a',
      'img_b',
    ]);
    expect(parts[2]).toEqual({
      type: 'image',
      url: '/api/images/img_a',
      mediaType: 'image/png',
      alt: 'a drawing',
      imageId: 'img_a',
      toolCallId: 'call_1',
    });
  });

  test('images of a call that then fails are kept; images of parallel calls follow their own call', async () => {
    const { parts, results } = await execute(
      [call('call_1'), call('call_2')],
      toolset(async (attach) => {
        attach(image(0, `img_${Math.random().toString(16).slice(2)}`));
        throw new Error('broke after one image');
      }),
    );
    expect(results.every((result) => result.isError)).toBe(true);
    expect(
      parts.map((part) => (part.type === 'image' ? `image:${part.toolCallId}` : part.type)),
    ).toEqual(['text', 'tool_call', 'image:call_1', 'tool_call', 'image:call_2']);
  });

  test('history replay leaves out tool-attached images (their references are in the result) and keeps the others', () => {
    const attached: ImagePart = {
      type: 'image',
      url: '/api/images/img_a',
      toolCallId: 'call_1',
      imageId: 'img_a',
    };
    const normalized = normalizeHistory([
      { role: 'user', parts: [{ type: 'image', url: 'data:image/png;base64,AAAA' }] },
      { role: 'assistant', parts: [call('call_1'), attached] },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            toolCallId: 'call_1',
            name: 'draw',
            content: '{}',
            isError: false,
          },
        ],
      },
      { role: 'assistant', parts: [{ type: 'image', url: '/api/images/img_b' }] },
    ]);
    expect(normalized.map((message) => message.parts.map((part) => part.type))).toEqual([
      ['image'],
      ['tool_call'],
      ['tool_result'],
      ['image'],
    ]);
  });
});
