/**
 * A turn's events as Server-Sent Events (docs/http-api.md#the-event-stream):
 * one frame per event — `id:` (`<turnId>:<seq>`, for `Last-Event-ID`),
 * `event:` (the event's type) and `data:` (its JSON) — a comment line every
 * `TURN_STREAM_HEARTBEAT_MS` so proxies on the way keep the connection, and
 * the stream closes after `done`. A client that closes the connection only
 * stops following: the turn goes on (cancel is `POST …/turns/cancel`).
 */
import type { TurnStreamEvent } from '@mango/shared';
import { markEventStream } from '../server';
import { turnEventId } from '../services/chat/chat-turn-service';
import type { TurnEventRecord } from '../services/chat/turn-events/turn-event-store';

export const TURN_STREAM_HEARTBEAT_MS = 15_000;

export function encodeTurnEvent(event: TurnStreamEvent, id?: string): string {
  return `${id ? `id: ${id}\n` : ''}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export interface TurnEventStreamOptions {
  turnId: string;
  events: AsyncGenerator<TurnEventRecord>;
  /** Stops the events when the client goes away. */
  follower: AbortController;
  heartbeatMs?: number;
}

export function createTurnEventStream(options: TurnEventStreamOptions): Response {
  const { events, follower, turnId } = options;
  const encoder = new TextEncoder();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    clearInterval(heartbeat);
    follower.abort();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          open = false;
          stop();
        }
      };
      heartbeat = setInterval(
        () => send(': keep-alive\n\n'),
        options.heartbeatMs ?? TURN_STREAM_HEARTBEAT_MS,
      );
      void (async () => {
        try {
          for await (const record of events) {
            send(encodeTurnEvent(record.event, turnEventId(turnId, record.seq)));
            if (!open) break;
          }
        } catch {
          // The events could not be read (the database went away); the client reconnects.
        } finally {
          stop();
          if (open) {
            open = false;
            try {
              controller.close();
            } catch {
              // Already closed by the client.
            }
          }
        }
      })();
    },
    cancel() {
      stop();
    },
  });
  return markEventStream(
    new Response(body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      },
    }),
  );
}
