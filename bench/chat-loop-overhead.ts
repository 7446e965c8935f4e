/**
 * The turn loop's own overhead. A fake provider (loopback HTTP, real wire
 * format, official SDKs) answers instantly: one trivial tool call per step
 * until the 20th step, which answers in text. The same provider requests are
 * then made directly (adapter + SDK, no loop) in the same run, interleaved with
 * the loop runs so both see the same machine load. Prints, per provider, the
 * loop's added time per iteration (target: under 2 ms) — also with every
 * event recorded for replay into a real SQLite turn log (target: under
 * 0.5 ms).
 *
 * Then the load bench (bench/load/load-bench.ts, also `npm run bench:load`):
 * turns over HTTP through the real server, with the fake provider, the server
 * and the load client each in a process of its own, against the same
 * provider requests sent directly; one turn at a time, then 200 at once
 * (target: p99 added ≤ 20 ms), and the server's memory per running turn.
 *
 *   npm run bench:chat          (ROUNDS=30 npm run bench:chat; and the load bench's variables)
 */
import type { ConversationMessage, DoneEvent, TurnStreamEvent } from '@mango/shared';
import { createTurnToolset, runChatTurn } from '../apps/api/src/services/chat';
import { createTurnEventLog } from '../apps/api/src/services/chat/turn-events/turn-event-log';
import { createTurnEventStore } from '../apps/api/src/services/chat/turn-events/turn-event-store';
import { PROVIDER_IDS } from '../apps/api/src/services/providers/provider-registry';
import type {
  LanguageModelProvider,
  ProviderId,
  ProviderRequest,
} from '../apps/api/src/services/providers/spec';
import { createMemoryFreshnessLedger } from '../apps/api/src/services/tools/freshness/memory-freshness-ledger';
import { createToolRegistry } from '../apps/api/src/services/tools/registry';
import { createBuiltinToolSource } from '../apps/api/src/services/tools/sources/builtin-tool-source';
import { createToolCatalog } from '../apps/api/src/services/tools/sources/tool-catalog';
import {
  answeredToolSteps,
  startFakeProviderServer,
} from '../apps/api/tests/support/fake-provider';
import { createProviderForFake, MODEL_FOR } from '../apps/api/tests/support/provider-factories';
import { createTestDatabase } from '../apps/api/tests/support/test-databases';
import { insertTestChat, insertTestUser } from '../apps/api/tests/support/test-rows';
import { numberFromEnv } from './env-options';
import { loadBenchOptionsFromEnv, printLoadBench, runLoadBench } from './load/load-bench';

const ROUNDS = numberFromEnv('ROUNDS', 15);
const ITERATIONS = 20;

const registry = createToolRegistry();
registry.register({
  definition: {
    name: 'noop',
    description: 'Does nothing and says so.',
    parameters: {
      type: 'object',
      properties: { step: { type: 'integer' } },
      required: ['step'],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'No-op',
    description: 'Benchmark tool.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  execute: async (args) => ({ ok: true, step: (args as { step: number }).step }),
});

const fake = await startFakeProviderServer();
for (const id of PROVIDER_IDS)
  fake.respondWith(id, (request) => {
    const done = answeredToolSteps(request);
    return done + 1 >= ITERATIONS
      ? { content: [{ type: 'text', text: 'All steps done.' }], fragmentSize: 64 }
      : {
          content: [{ type: 'tool_call', name: 'noop', arguments: { step: done + 1 } }],
          fragmentSize: 64,
        };
  });

/** Wraps an adapter to keep a copy of every request the loop makes. */
function recording(
  provider: LanguageModelProvider,
  into: ProviderRequest[],
): LanguageModelProvider {
  return {
    id: provider.id,
    toolRequestFields: provider.toolRequestFields,
    streamTurn(request) {
      into.push({ ...request, messages: [...request.messages], signal: undefined });
      return provider.streamTurn(request);
    },
  };
}

// Recording every event for replay (docs/chat-turns.md#re-attaching), as a server-owned turn does.
const recordingDatabase = await createTestDatabase('sqlite');
const benchUser = await insertTestUser(recordingDatabase.database);
const benchChat = await insertTestChat(recordingDatabase.database, benchUser);
const turnStore = createTurnEventStore(recordingDatabase.database);
const turnEvents = createTurnEventLog({
  store: turnStore,
  changes: recordingDatabase.database.changes,
  isRunning: async () => true,
});

async function loopTurn(
  provider: LanguageModelProvider,
  id: ProviderId,
  iterations: number,
  record = false,
): Promise<number> {
  const history: ConversationMessage[] = [
    { role: 'user', parts: [{ type: 'text', text: 'Run the steps.' }] },
  ];
  const listing = await createToolCatalog([createBuiltinToolSource(registry)]).list({
    userId: 'bench',
    saved: {},
  });
  const toolset = createTurnToolset(listing, {
    userId: 'bench',
    chatId: 'bench',
    mode: 'chat',
    restrictToWorkingDirectory: false,
    freshness: createMemoryFreshnessLedger(),
  });
  const started = performance.now();
  let onEvent: (event: TurnStreamEvent) => void = () => {};
  let finish = async () => {};
  if (record) {
    const turn = await turnStore.create({
      id: `turn_${crypto.randomUUID()}`,
      chatId: benchChat,
      userMessageId: 'user',
      assistantMessageId: 'assistant',
      model: MODEL_FOR[id],
    });
    const recorder = turnEvents.open(turn);
    let done: DoneEvent = { type: 'done', status: 'error', iterations: 0 };
    onEvent = (event) => {
      if (event.type === 'done') done = event;
      else recorder.append(event);
    };
    finish = () => recorder.end(done, async () => {});
  }
  const result = await runChatTurn({
    provider,
    model: MODEL_FOR[id],
    history,
    toolset,
    maxIterations: iterations + 5,
    onEvent,
  });
  await finish();
  const elapsed = performance.now() - started;
  if (result.status !== 'completed' || result.iterations !== iterations)
    throw new Error(`bench turn ended ${result.status} after ${result.iterations} model calls`);
  return elapsed;
}

async function direct(
  provider: LanguageModelProvider,
  requests: ProviderRequest[],
): Promise<number> {
  const started = performance.now();
  for (const request of requests) for await (const _event of provider.streamTurn(request));
  return performance.now() - started;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
console.log(`Loop overhead: ${ITERATIONS} iterations per turn, ${ROUNDS} rounds, medians (ms)`);
console.log(
  'provider            loop turn   direct requests   added per iteration   recorded turn   added per iteration',
);
for (const id of PROVIDER_IDS) {
  const provider = createProviderForFake(id, fake);
  const captured: ProviderRequest[] = [];
  await loopTurn(recording(provider, captured), id, ITERATIONS); // warm-up, and the requests to replay
  const requests = captured.slice(0, ITERATIONS);
  await direct(provider, requests);
  await loopTurn(provider, id, ITERATIONS, true);
  const loops: number[] = [];
  const recorded: number[] = [];
  const directs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    loops.push(await loopTurn(provider, id, ITERATIONS));
    recorded.push(await loopTurn(provider, id, ITERATIONS, true));
    directs.push(await direct(provider, requests));
  }
  const added = (median(loops) - median(directs)) / ITERATIONS;
  const addedRecorded = (median(recorded) - median(directs)) / ITERATIONS;
  console.log(
    `${id.padEnd(18)}  ${median(loops).toFixed(1).padStart(9)}   ${median(directs).toFixed(1).padStart(15)}   ${added.toFixed(3).padStart(8)} ms ${added < 2 ? '(< 2 ms)' : '(OVER 2 ms)'}   ${median(recorded).toFixed(1).padStart(13)}   ${addedRecorded.toFixed(3).padStart(8)} ms ${addedRecorded < 0.5 ? '(< 0.5 ms)' : '(OVER 0.5 ms)'}`,
  );
}

await fake.close();
await recordingDatabase.dispose();

// ---- Over HTTP, in processes of their own (bench/load/) ----
const loadOptions = loadBenchOptionsFromEnv();
printLoadBench(loadOptions, await runLoadBench(loadOptions));
