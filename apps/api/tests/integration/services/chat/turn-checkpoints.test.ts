/**
 * When the turn loop checkpoints a step (run-chat-turn.ts): a step whose
 * tools finish within the grace is stored once, model message and results
 * together; a step whose tools are still running then has its model message
 * stored while they run; a grace of 0 stores it before they start; a step's
 * results are stored while the next model call runs; and a checkpoint that
 * fails still ends the turn (aborting the model call running beside it).
 */
import { expect, test } from 'bun:test';
import type { ConversationMessage, ToolCallPart, TurnStreamEvent } from '@mango/shared';
import { runChatTurn } from '../../../../src/services/chat';
import {
  callTool,
  type FakeTurn,
  say,
  useFakeProviderServer,
} from '../../../support/fake-provider';
import { createProviderForFake, MODEL_FOR } from '../../../support/provider-factories';
import { createScenarioRegistry, createScenarioToolset } from '../../../support/scenario-tools';

const fake = useFakeProviderServer();
const id = 'openai-compatible';

/** What a checkpoint was handed: each message's role, and a tool call's status. */
function shape(messages: readonly ConversationMessage[]): string[] {
  return messages.map((message) => {
    const call = message.parts.find((part): part is ToolCallPart => part.type === 'tool_call');
    return call ? `${message.role}:${call.status}` : message.role;
  });
}

async function runWithCheckpoints(options: {
  waitMs: number[];
  checkpointGraceMs?: number;
  checkpoint?: (messages: readonly ConversationMessage[]) => Promise<void>;
  /** The model's last answer (default: "Done." at once). */
  answer?: FakeTurn;
  onEvent?: (event: TurnStreamEvent) => void;
}) {
  const { registry } = createScenarioRegistry();
  const log: string[] = [];
  registry.register({
    definition: {
      name: 'wait',
      description: 'Waits for ms milliseconds.',
      parameters: {
        type: 'object',
        properties: { ms: { type: 'number' } },
        required: ['ms'],
        additionalProperties: false,
      },
    },
    settings: {
      title: 'Wait',
      description: 'Waits.',
      category: 'system',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {},
      parameterDescriptors: [],
    },
    execute: async (args) => {
      const { ms } = args as { ms: number };
      log.push(`start ${ms}`);
      await Bun.sleep(ms);
      log.push(`end ${ms}`);
      return { waited: ms };
    },
  });
  fake.enqueue(
    id,
    ...options.waitMs.map((ms) => callTool('wait', { ms })),
    options.answer ?? say('Done.'),
  );
  const result = await runChatTurn({
    provider: createProviderForFake(id, fake),
    model: MODEL_FOR[id],
    history: [{ role: 'user', parts: [{ type: 'text', text: 'Wait, please.' }] }],
    toolset: await createScenarioToolset(registry),
    onEvent: options.onEvent ?? (() => {}),
    ...(options.checkpointGraceMs === undefined
      ? {}
      : { checkpointGraceMs: options.checkpointGraceMs }),
    checkpoint:
      options.checkpoint ??
      (async (messages) => {
        log.push(`checkpoint ${shape(messages).join(',')}`);
      }),
  });
  return { result, log };
}

test('tools that finish within the grace are checkpointed once, with their results', async () => {
  const { result, log } = await runWithCheckpoints({ waitMs: [1, 1] });
  expect(result.status).toBe('completed');
  expect(log).toEqual([
    'start 1',
    'end 1',
    'checkpoint assistant:succeeded,tool',
    'start 1',
    'end 1',
    'checkpoint assistant:succeeded,tool,assistant:succeeded,tool',
  ]);
});

test('a tool still running after the grace has its call stored while it runs', async () => {
  const { result, log } = await runWithCheckpoints({ waitMs: [300], checkpointGraceMs: 50 });
  expect(result.status).toBe('completed');
  expect(log).toEqual([
    'start 300',
    'checkpoint assistant:running',
    'end 300',
    'checkpoint assistant:succeeded,tool',
  ]);
});

test('with a grace of 0 the model message is stored before its tools start', async () => {
  const { log } = await runWithCheckpoints({ waitMs: [1], checkpointGraceMs: 0 });
  expect(log).toEqual([
    'checkpoint assistant:running',
    'start 1',
    'end 1',
    'checkpoint assistant:succeeded,tool',
  ]);
});

test('a checkpoint written while the tools run that fails ends the turn once they end', async () => {
  let calls = 0;
  const turn = runWithCheckpoints({
    waitMs: [200],
    checkpointGraceMs: 20,
    checkpoint: async () => {
      calls++;
      throw new Error('the database is gone');
    },
  });
  await expect(turn).rejects.toThrow('the database is gone');
  expect(calls).toBe(1);
});

test("a step's results are stored while the next model call runs", async () => {
  const stored: string[] = [];
  const { result } = await runWithCheckpoints({
    waitMs: [1],
    checkpoint: async (messages) => {
      const what = shape(messages).join(',');
      await Bun.sleep(100);
      stored.push(`${what} stored after ${fake.requests(id).length} model calls`);
    },
  });
  expect(result.status).toBe('completed');
  // Waited for before the next call, the save would end after one model call.
  expect(stored).toEqual(['assistant:succeeded,tool stored after 2 model calls']);
});

test("the next step's events wait until the step before it is stored", async () => {
  const stored: string[] = [];
  const { result } = await runWithCheckpoints({
    waitMs: [1],
    onEvent: (event) => {
      if (event.type === 'text_delta') stored.push(`text ${event.delta}`);
    },
    checkpoint: async () => {
      await Bun.sleep(100);
      stored.push(`stored after ${fake.requests(id).length} model calls`);
    },
  });
  expect(result.status).toBe('completed');
  expect(stored).toEqual(['stored after 2 model calls', 'text Done.']);
});

test('a results checkpoint that fails aborts the model call beside it and ends the turn', async () => {
  const started = performance.now();
  const turn = runWithCheckpoints({
    waitMs: [1],
    // Ten frames a second apart: about ten seconds unless the call is aborted.
    answer: {
      content: [{ type: 'text', text: 'a slow answer, word by word' }],
      fragmentSize: 3,
      frameDelayMs: 1000,
    },
    checkpoint: async () => {
      await Bun.sleep(50);
      throw new Error('the database is gone');
    },
  });
  await expect(turn).rejects.toThrow('the database is gone');
  expect(performance.now() - started).toBeLessThan(3000);
  expect(fake.requests(id)).toHaveLength(2);
});
