/** Reads a turn's Server-Sent Events from a fetch response (test support). */
import type { TurnStreamEvent, TurnUsage } from '@mango/shared';

export interface SseFrame {
  /** The frame's `id:` (absent when it has none). */
  id?: string;
  event: string;
  data: string;
}

/** Yields frames as they arrive; comment lines (heartbeats) are skipped. */
export async function* readSseFrames(response: Response): AsyncGenerator<SseFrame> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length > 0)
        yield { ...(id === undefined ? {} : { id }), event, data: data.join('\n') };
      end = buffer.indexOf('\n\n');
    }
  }
}

/** A frame's event with its id; checks that the frame's `event:` matches the event's `type`. */
export interface IdentifiedEvent {
  id: string;
  event: TurnStreamEvent;
}

export function eventOf(frame: SseFrame): IdentifiedEvent {
  const event = JSON.parse(frame.data) as TurnStreamEvent;
  if (event.type !== frame.event)
    throw new Error(`frame "${frame.event}" carries a "${event.type}" event`);
  if (frame.id === undefined) throw new Error(`frame "${frame.event}" has no id`);
  return { id: frame.id, event };
}

/** Every event of a finished stream with its id. */
export async function readIdentifiedEvents(response: Response): Promise<IdentifiedEvent[]> {
  const events: IdentifiedEvent[] = [];
  for await (const frame of readSseFrames(response)) events.push(eventOf(frame));
  return events;
}

/** Every event of a finished stream; checks each frame's `event:` matches its `type`. */
export async function readTurnEvents(response: Response): Promise<TurnStreamEvent[]> {
  const events: TurnStreamEvent[] = [];
  for await (const frame of readSseFrames(response)) {
    const event = JSON.parse(frame.data) as TurnStreamEvent;
    if (event.type !== frame.event)
      throw new Error(`frame "${frame.event}" carries a "${event.type}" event`);
    events.push(event);
  }
  return events;
}

/** What a turn's `done` must report as its usage: every `usage` event of the stream, summed. */
export function summedUsage(events: readonly TurnStreamEvent[]): TurnUsage {
  const total: Record<string, number> = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (const event of events) {
    if (event.type !== 'usage') continue;
    for (const [key, value] of Object.entries(event))
      if (typeof value === 'number') total[key] = (total[key] ?? 0) + value;
  }
  return total as TurnUsage;
}
