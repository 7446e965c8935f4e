/** Drains an adapter's event stream into an array (test support). */
import type { ProviderStreamEvent } from '@mango/shared';

export async function collectEvents(
  stream: AsyncIterable<ProviderStreamEvent>,
): Promise<ProviderStreamEvent[]> {
  const events: ProviderStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export function completedCalls(events: ProviderStreamEvent[]) {
  return events.flatMap((event) =>
    event.type === 'tool_call_completed'
      ? [{ toolCallId: event.toolCallId, name: event.name, arguments: event.arguments }]
      : [],
  );
}

export function textOf(events: ProviderStreamEvent[]): string {
  return events.map((event) => (event.type === 'text_delta' ? event.delta : '')).join('');
}
