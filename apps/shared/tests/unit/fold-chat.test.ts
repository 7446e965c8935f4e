import { describe, expect, test } from 'bun:test';
import {
  applyTurnEvent,
  type ChatMessage,
  type ChatView,
  foldChat,
  type TurnStreamEvent,
} from '../../src';

const at = '2026-01-01T00:00:00.000Z';
const msg = (id: string, role: ChatMessage['role'], parts: ChatMessage['parts']): ChatMessage => ({
  id,
  chatId: 'chat_1',
  role,
  parts,
  createdAt: at,
});

const earlier: ChatMessage[] = [
  msg('m0', 'user', [{ type: 'text', text: 'Hello' }]),
  msg('m1', 'assistant', [{ type: 'text', text: 'Hi.' }]),
];

/** A turn of two model calls: reasoning, text and a call (with an image), then text. */
const events: TurnStreamEvent[] = [
  {
    type: 'turn_started',
    turnId: 't1',
    chatId: 'chat_1',
    userMessageId: 'u1',
    assistantMessageId: 'a1',
    model: 'openai:gpt-5',
  },
  { type: 'reasoning_delta', delta: 'Think' },
  { type: 'reasoning_delta', delta: 'ing' },
  { type: 'text_delta', delta: 'Let me ' },
  { type: 'text_delta', delta: 'look.' },
  { type: 'tool_call_started', toolCallId: 'c1', name: 'read_file' },
  { type: 'tool_call_arguments_delta', toolCallId: 'c1', delta: '{"path":' },
  { type: 'tool_call_arguments_delta', toolCallId: 'c1', delta: '"a.md"}' },
  {
    type: 'tool_call_completed',
    toolCallId: 'c1',
    name: 'read_file',
    arguments: '{"path":"a.md"}',
  },
  { type: 'turn_completed', finishReason: 'tool_calls' },
  {
    type: 'tool_call_progress',
    toolCallId: 'c1',
    name: 'read_file',
    progress: { type: 'reading', message: 'half way' },
  },
  {
    type: 'image_generated',
    toolCallId: 'c1',
    name: 'read_file',
    index: 0,
    imageId: 'img1',
    url: '/api/images/img1',
    mediaType: 'image/png',
  },
  {
    type: 'tool_result',
    toolCallId: 'c1',
    name: 'read_file',
    content: '{"text":"# A"}',
    isError: false,
    durationMs: 12,
  },
  { type: 'text_delta', delta: 'It says A.' },
  { type: 'turn_completed', finishReason: 'stop' },
  {
    type: 'done',
    status: 'completed',
    iterations: 2,
    usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
  },
];

/** What the server stores for that turn. */
const storedTurn: ChatMessage[] = [
  msg('u1', 'user', [{ type: 'text', text: 'What does a.md say?' }]),
  msg('a1', 'assistant', [
    { type: 'reasoning', text: 'Thinking' },
    { type: 'text', text: 'Let me look.' },
    {
      type: 'tool_call',
      toolCallId: 'c1',
      name: 'read_file',
      arguments: '{"path":"a.md"}',
      status: 'succeeded',
      durationMs: 12,
    },
    {
      type: 'image',
      url: '/api/images/img1',
      imageId: 'img1',
      mediaType: 'image/png',
      toolCallId: 'c1',
    },
  ]),
  msg('r1', 'tool', [
    {
      type: 'tool_result',
      toolCallId: 'c1',
      name: 'read_file',
      content: '{"text":"# A"}',
      isError: false,
    },
  ]),
  msg('a2', 'assistant', [{ type: 'text', text: 'It says A.' }]),
];

const withoutTurn = (view: ChatView) => view.messages;

describe('foldChat', () => {
  test('a finished turn folds to the same view from its events as from what is stored', () => {
    const stored = [...earlier, ...storedTurn];
    const fromStore = foldChat(stored);
    const fromEvents = foldChat(stored, { events });
    expect(withoutTurn(fromEvents)).toEqual(withoutTurn(fromStore));
    expect(fromEvents.turn).toMatchObject({ state: 'done', status: 'completed', turnId: 't1' });
    const assistant = fromStore.messages[3];
    expect(assistant?.id).toBe('a1');
    expect(assistant?.parts.map((part) => part.type)).toEqual([
      'reasoning',
      'text',
      'tool_call',
      'text',
    ]);
    const card = assistant?.parts[2];
    expect(card?.type === 'tool_call' && card.call).toMatchObject({
      status: 'succeeded',
      durationMs: 12,
      result: { content: '{"text":"# A"}', isError: false },
      images: [{ url: '/api/images/img1', imageId: 'img1', mediaType: 'image/png' }],
    });
  });

  test('a turn this client started shows its user text before the message is read back', () => {
    const view = foldChat(earlier, { events: events.slice(0, 1), userText: 'What does a.md say?' });
    expect(view.messages.map((message) => [message.id, message.role])).toEqual([
      ['m0', 'user'],
      ['m1', 'assistant'],
      ['u1', 'user'],
      ['a1', 'assistant'],
    ]);
    expect(view.messages[2]?.parts).toEqual([{ type: 'text', text: 'What does a.md say?' }]);
    expect(view.turn?.state).toBe('running');
  });

  test('re-attached mid-turn, the stored part of the turn is replaced by its replayed events', () => {
    // Stored so far: the user message and the first model call (its call still running).
    const storedSoFar = [
      ...earlier,
      storedTurn[0] as ChatMessage,
      msg('a1', 'assistant', [
        { type: 'reasoning', text: 'Thinking' },
        { type: 'text', text: 'Let me look.' },
        {
          type: 'tool_call',
          toolCallId: 'c1',
          name: 'read_file',
          arguments: '{"path":"a.md"}',
          status: 'running',
          durationMs: 0,
        },
      ]),
    ];
    const replayed = events.slice(0, 11);
    const reattached = foldChat(storedSoFar, { events: replayed });
    const live = foldChat(earlier, { events: replayed, userText: 'What does a.md say?' });
    expect(reattached).toEqual(live);
    const card = reattached.messages[3]?.parts[2];
    expect(card?.type === 'tool_call' && card.call).toMatchObject({
      status: 'running',
      streamingArguments: false,
      progress: { type: 'reading', message: 'half way' },
    });
  });

  test('applying events one by one equals folding them at once, and leaves earlier views untouched', () => {
    let view = foldChat(earlier, { events: events.slice(0, 1), userText: 'What does a.md say?' });
    const first = structuredClone(view);
    const snapshot = view;
    for (const event of events.slice(1)) view = applyTurnEvent(view, event);
    expect(view).toEqual(foldChat(earlier, { events, userText: 'What does a.md say?' }));
    expect(snapshot).toEqual(first);
  });

  test('arguments stream into the card; progress goes once the result is in', () => {
    const partial = foldChat(earlier, { events: events.slice(0, 7), userText: 'x' });
    const streaming = partial.messages[3]?.parts[2];
    expect(streaming?.type === 'tool_call' && streaming.call).toMatchObject({
      arguments: '{"path":',
      streamingArguments: true,
      status: 'running',
    });
    const finished = foldChat(earlier, { events: events.slice(0, 13), userText: 'x' });
    const card = finished.messages[3]?.parts[2];
    expect(card?.type === 'tool_call' && card.call.progress).toBeUndefined();
  });

  test('failed and aborted calls, and the turn endings', () => {
    const start = events[0] as TurnStreamEvent;
    const failing: TurnStreamEvent[] = [
      start,
      { type: 'tool_call_completed', toolCallId: 'c2', name: 'bash', arguments: '{}' },
      { type: 'tool_call_completed', toolCallId: 'c3', name: 'slow', arguments: '{}' },
      { type: 'turn_completed', finishReason: 'tool_calls' },
      {
        type: 'tool_result',
        toolCallId: 'c2',
        name: 'bash',
        content: '{"error":{"code":"timeout","message":"Too slow."}}',
        isError: true,
        errorCode: 'timeout',
        durationMs: 30000,
      },
      {
        type: 'tool_result',
        toolCallId: 'c3',
        name: 'slow',
        content: '{"error":{"code":"aborted","message":"Cancelled."}}',
        isError: true,
        errorCode: 'aborted',
        durationMs: 5,
      },
      {
        type: 'iteration_limit',
        maxIterations: 1,
        message: 'The limit of 1 model call was reached.',
      },
      {
        type: 'error',
        code: 'rate_limited',
        message: 'Slow down.',
        retryable: true,
      },
      { type: 'done', status: 'error', iterations: 1 },
    ];
    const view = foldChat(earlier, { events: failing, userText: 'go' });
    const cards = view.messages[3]?.parts.map((part) => part.type === 'tool_call' && part.call);
    expect(cards?.map((card) => card && [card.status, card.errorCode])).toEqual([
      ['failed', 'timeout'],
      ['aborted', 'aborted'],
    ]);
    expect(view.turn).toMatchObject({
      state: 'done',
      status: 'error',
      error: { code: 'rate_limited', retryable: true },
      iterationLimit: { maxIterations: 1 },
    });
  });

  test('without the latest turn’s events, the stored messages alone', () => {
    const view = foldChat([...earlier, ...storedTurn]);
    expect(view.turn).toBeUndefined();
    expect(view.messages.map((message) => message.id)).toEqual(['m0', 'm1', 'u1', 'a1']);
  });
});
