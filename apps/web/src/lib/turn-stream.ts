/**
 * Reading a turn's Server-Sent Events from `fetch` (a POST cannot use
 * `EventSource`): each frame's `id:` (`<turnId>:<seq>`) and its event.
 */
import type { TurnStreamEvent } from '@mango/shared';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { errorFrom, request } from './api';
import { nextTask } from './next-task';

/** The longest stretch of event handling before the page gets a turn. */
const SLICE_MS = 8;

export type OnTurnEvent = (event: TurnStreamEvent, id: string | undefined) => void;

/** Reads events until the stream ends; resolves whether `done` was seen. */
export async function readTurnEvents(response: Response, onEvent: OnTurnEvent): Promise<boolean> {
  if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
    throw await errorFrom(response);
  if (!response.body) return false;
  const frames = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream({ maxBufferSize: 16 * 1024 * 1024 }));
  let done = false;
  let sliceStarted = performance.now();
  for await (const frame of frames as unknown as AsyncIterable<{ id?: string; data: string }>) {
    // A burst of thousands of events (a backlog replayed on re-attach) is handled in slices, so
    // the page can draw and answer input in between.
    if (performance.now() - sliceStarted > SLICE_MS) {
      await nextTask();
      sliceStarted = performance.now();
    }
    let event: TurnStreamEvent;
    try {
      event = JSON.parse(frame.data) as TurnStreamEvent;
    } catch {
      continue;
    }
    onEvent(event, frame.id);
    if (event.type === 'done') done = true;
  }
  return done;
}

export interface StartTurnBody {
  content: string;
  model?: string;
  maxIterations?: number;
}

export function startTurn(chatId: string, body: StartTurnBody, signal: AbortSignal) {
  return request(`/api/chats/${encodeURIComponent(chatId)}/turns`, {
    body,
    signal,
    headers: { accept: 'text/event-stream' },
  });
}

/**
 * Follows the chat's latest turn (replayed, then live); with `lastEventId`, after that
 * event. Resolves null when the chat has no turn yet.
 */
export async function followTurn(
  chatId: string,
  lastEventId: string | undefined,
  signal: AbortSignal,
): Promise<Response | null> {
  try {
    return await request(`/api/chats/${encodeURIComponent(chatId)}/turns/current/events`, {
      signal,
      headers: {
        accept: 'text/event-stream',
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
    });
  } catch (error) {
    if ((error as { status?: number }).status === 404) return null;
    throw error;
  }
}
