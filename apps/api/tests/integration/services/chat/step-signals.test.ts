/**
 * Each model step hands its provider a signal of its own (stream-model-step.ts,
 * run-chat-turn.ts). The SDKs listen to it; once the step has ended, nothing
 * of it may stay reachable from the turn's signal, or a long turn would keep
 * every step's listeners and request controllers until it ended
 * (docs/chat-turns.md#memory-and-the-collector).
 */
import { expect, test } from 'bun:test';
import { runChatTurn } from '../../../../src/services/chat';
import { PROVIDER_IDS } from '../../../../src/services/providers/provider-registry';
import type { LanguageModelProvider } from '../../../../src/services/providers/spec';
import { callTool, say, useFakeProviderServer } from '../../../support/fake-provider';
import { createProviderForFake, MODEL_FOR } from '../../../support/provider-factories';
import { createScenarioRegistry, createScenarioToolset } from '../../../support/scenario-tools';

const fake = useFakeProviderServer();
const STEPS = 12;

/** The provider, remembering (weakly) the signal of every request it was given. */
function watchingSignals(provider: LanguageModelProvider, seen: WeakRef<AbortSignal>[]) {
  return {
    ...provider,
    streamTurn(request: Parameters<LanguageModelProvider['streamTurn']>[0]) {
      if (request.signal) seen.push(new WeakRef(request.signal));
      return provider.streamTurn(request);
    },
  } satisfies LanguageModelProvider;
}

async function runSteps(id: (typeof PROVIDER_IDS)[number], turn: AbortSignal) {
  const seen: WeakRef<AbortSignal>[] = [];
  const { registry } = createScenarioRegistry();
  fake.enqueue(
    id,
    ...Array.from({ length: STEPS - 1 }, (_, index) => callTool('echo', { text: `step ${index}` })),
    say('Done.'),
  );
  const result = await runChatTurn({
    provider: watchingSignals(createProviderForFake(id, fake), seen),
    model: MODEL_FOR[id],
    history: [{ role: 'user', parts: [{ type: 'text', text: 'Echo, please.' }] }],
    toolset: await createScenarioToolset(registry),
    onEvent: () => {},
    signal: turn,
    // Each step's results are stored while the next call runs, so that call's signal is linked twice.
    checkpoint: async () => {},
  });
  return { result, seen };
}

/**
 * Not Gemini: `@google/genai` arms a timer for its whole `timeout` (600 s) on
 * every request and leaves it armed once the body is read, and the timer's
 * scope holds the signal it was given. That keeps each step's signal for ten
 * minutes, whatever the turn does (docs/chat-turns.md#memory-and-the-collector).
 */
const RELEASING_SDKS = PROVIDER_IDS.filter((id) => id !== 'gemini');

for (const id of RELEASING_SDKS)
  test(`${id}: the turn's signal keeps no ended step's signal alive`, async () => {
    const turn = new AbortController();
    const { result, seen } = await runSteps(id, turn.signal);
    expect(result.status).toBe('completed');
    expect(seen).toHaveLength(STEPS);
    // The collector scans the stack conservatively and the SDKs settle their last
    // request a little after the turn: a few collections, and a stray one or two may stay.
    let alive = STEPS;
    for (let attempt = 0; attempt < 5 && alive > 2; attempt++) {
      await Bun.sleep(10);
      Bun.gc(true);
      alive = seen.filter((ref) => ref.deref() !== undefined).length;
    }
    expect(alive).toBeLessThanOrEqual(2);
    expect(turn.signal.aborted).toBe(false);
  });
