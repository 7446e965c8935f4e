/**
 * The one shape every adapter's `streamTurn` has: open the SDK's stream, turn a
 * failure to open it into the stream's last (error) event, else parse it.
 */
import type { ProviderStreamEvent } from '../spec';
import { toProviderErrorEvent } from './provider-stream-error';

export type ProviderStreamParser = (
  events: AsyncIterable<unknown>,
  providerLabel: string,
  signal?: AbortSignal,
) => AsyncIterable<ProviderStreamEvent>;

export async function* streamProviderCall(
  providerLabel: string,
  signal: AbortSignal | undefined,
  open: () => Promise<AsyncIterable<unknown>>,
  parse: ProviderStreamParser,
): AsyncGenerator<ProviderStreamEvent> {
  let stream: AsyncIterable<unknown>;
  try {
    stream = await open();
  } catch (error) {
    yield toProviderErrorEvent(providerLabel, error, signal);
    return;
  }
  yield* parse(stream, providerLabel, signal);
}
