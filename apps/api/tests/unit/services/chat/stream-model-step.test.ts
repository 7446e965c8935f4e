import { describe, expect, test } from 'bun:test';
import type { ProviderStreamEvent, TurnStreamEvent } from '@mango/shared';
import { streamModelStep } from '../../../../src/services/chat/stream-model-step';
import type {
  LanguageModelProvider,
  ProviderRequest,
} from '../../../../src/services/providers/spec';

/** A provider whose one call is the given async generator. */
function providerOf(
  stream: (request: ProviderRequest) => AsyncGenerator<ProviderStreamEvent>,
): LanguageModelProvider {
  return {
    id: 'openai-compatible',
    streamTurn: stream,
    toolRequestFields: () => ({}),
  };
}

const request = { model: 'm', messages: [], tools: [] } as unknown as ProviderRequest;

describe('streamModelStep', () => {
  test('a long step does not keep the events it has handled alive until it ends', async () => {
    const count = 200;
    const handled: WeakRef<object>[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let paused: () => void = () => {};
    const reachedGate = new Promise<void>((resolve) => {
      paused = resolve;
    });
    const provider = providerOf(async function* () {
      for (let index = 0; index < count; index++) {
        const event: ProviderStreamEvent = { type: 'text_delta', delta: `${index} ` };
        handled.push(new WeakRef(event));
        yield event;
      }
      paused();
      await gate;
      yield { type: 'turn_completed' } as ProviderStreamEvent;
    });
    const emitted: TurnStreamEvent['type'][] = [];
    const step = streamModelStep(provider, request, (event) => emitted.push(event.type));
    await reachedGate;
    // WeakRefs are cleared only after the job that read them ends.
    await Bun.sleep(0);
    Bun.gc(true);
    await Bun.sleep(0);
    const alive = handled.filter((ref) => ref.deref() !== undefined).length;
    release();
    const result = await step;
    expect(emitted).toHaveLength(count + 1);
    expect(result.parts).toHaveLength(1);
    expect(result.error).toBeUndefined();
    // The collector may keep a few through stale stack slots; all 200 would mean a leak.
    expect(alive).toBeLessThan(count / 10);
  });

  test('a provider that goes quiet ends the step with a retryable provider_timeout', async () => {
    const provider = providerOf(async function* (call) {
      yield { type: 'text_delta', delta: 'partial' } as ProviderStreamEvent;
      // Silent until the step gives up and aborts the request.
      await new Promise((resolve) => call.signal?.addEventListener('abort', resolve));
    });
    const emitted: TurnStreamEvent[] = [];
    const result = await streamModelStep(provider, request, (event) => emitted.push(event), {
      idleTimeoutMs: 50,
    });
    expect(result.error).toMatchObject({ code: 'provider_timeout', retryable: true });
    expect(result.parts).toEqual([expect.objectContaining({ type: 'text', text: 'partial' })]);
    expect(emitted.map((event) => event.type)).toEqual(['text_delta', 'error']);
  });

  test('events keep the step alive past the idle time, as long as each comes within it', async () => {
    const provider = providerOf(async function* () {
      for (let index = 0; index < 6; index++) {
        await Bun.sleep(20);
        yield { type: 'text_delta', delta: `${index}` } as ProviderStreamEvent;
      }
      yield { type: 'turn_completed' } as ProviderStreamEvent;
    });
    const result = await streamModelStep(provider, request, () => {}, { idleTimeoutMs: 60 });
    expect(result.error).toBeUndefined();
    expect(result.parts).toEqual([expect.objectContaining({ type: 'text', text: '012345' })]);
  });
});
