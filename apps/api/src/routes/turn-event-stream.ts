/**
 * A running turn as Server-Sent Events: one frame per event (`event:` is the
 * event's type, `data:` its JSON), a comment line every few seconds so idle
 * proxies keep the connection, and the stream closes after `done`. A client
 * that closes the connection cancels the turn.
 */
import type { TurnStreamEvent } from '@mango/shared';
import type { PreparedTurn } from '../services/chat/chat-turn-service';

export const TURN_STREAM_HEARTBEAT_MS = 15_000;

export function encodeTurnEvent(event: TurnStreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function createTurnEventStream(
  turn: PreparedTurn,
  request: Request,
  heartbeatMs = TURN_STREAM_HEARTBEAT_MS,
): Response {
  const encoder = new TextEncoder();
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          open = false;
        }
      };
      const heartbeat = setInterval(() => send(': keep-alive\n\n'), heartbeatMs);
      const onClientGone = () => turn.cancel();
      request.signal.addEventListener('abort', onClientGone, { once: true });
      void turn
        .run((event) => send(encodeTurnEvent(event)))
        .finally(() => {
          clearInterval(heartbeat);
          request.signal.removeEventListener('abort', onClientGone);
          if (!open) return;
          open = false;
          controller.close();
        });
    },
    cancel() {
      open = false;
      turn.cancel();
    },
  });
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
}
