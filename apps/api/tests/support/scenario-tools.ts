/**
 * Tools for the turn-loop scenarios (test support): registered into a fresh
 * registry per test, so nothing leaks into the default one.
 */
import { createTurnToolset, type TurnToolset } from '../../src/services/chat/turn-toolset';
import { ToolExecutionError } from '../../src/services/tools/errors';
import { createMemoryFreshnessLedger } from '../../src/services/tools/freshness/memory-freshness-ledger';
import { createToolRegistry, type ToolRegistry } from '../../src/services/tools/registry';
import { createBuiltinToolSource } from '../../src/services/tools/sources/builtin-tool-source';
import { createToolCatalog } from '../../src/services/tools/sources/tool-catalog';
import type {
  JsonSchema,
  RegisteredTool,
  StoredToolSettings,
} from '../../src/services/tools/types';

export interface ScenarioToolProbe {
  echoCalls: unknown[];
  /** Resolves when the `slow` tool has started. */
  slowStarted: Promise<void>;
  /** Set when `slow` saw its signal fire. */
  slowAbortReason?: unknown;
}

const settings = (extra: Partial<RegisteredTool['settings']> = {}): RegisteredTool['settings'] => ({
  title: 'Scenario tool',
  description: 'A tool used by the turn-loop scenarios.',
  category: 'system',
  enabledByDefault: true,
  canDisable: true,
  defaultParameters: {},
  parameterDescriptors: [],
  ...extra,
});

const textParameters: JsonSchema = {
  type: 'object',
  properties: { text: { type: 'string', description: 'Any text.' } },
  required: ['text'],
  additionalProperties: false,
};

export function createScenarioRegistry(): { registry: ToolRegistry; probe: ScenarioToolProbe } {
  const registry = createToolRegistry();
  let markSlowStarted: () => void = () => {};
  const probe: ScenarioToolProbe = {
    echoCalls: [],
    slowStarted: new Promise<void>((resolve) => {
      markSlowStarted = resolve;
    }),
  };
  let barrierArrivals = 0;
  let releaseBarrier: () => void = () => {};
  const barrier = new Promise<void>((resolve) => {
    releaseBarrier = resolve;
  });

  registry.register({
    definition: {
      name: 'echo',
      description: 'Echoes the text back.',
      parameters: { ...textParameters },
    },
    settings: settings(),
    execute: async (args) => {
      probe.echoCalls.push(args);
      return { echo: (args as { text: string }).text };
    },
  });
  registry.register({
    definition: {
      name: 'no_args',
      description: 'Takes no arguments and answers "pong".',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
    settings: settings(),
    execute: async (args) => ({ pong: true, received: args }),
  });
  registry.register({
    definition: {
      name: 'fail_always',
      description: 'Always fails.',
      parameters: { ...textParameters },
    },
    settings: settings(),
    execute: async () => {
      throw new ToolExecutionError('The disk is on fire; try another tool.');
    },
  });
  registry.register({
    definition: {
      name: 'bad_result',
      description: 'Returns what JSON cannot hold.',
      parameters: { ...textParameters },
    },
    settings: settings(),
    execute: async () => ({ big: 10n }),
  });
  registry.register({
    definition: {
      name: 'secret_tool',
      description: 'A tool the user switched off.',
      parameters: { ...textParameters },
    },
    settings: settings(),
    execute: async () => ({ secret: 'should never run' }),
  });
  registry.register({
    definition: {
      name: 'slow',
      description: 'Runs until cancelled.',
      parameters: { ...textParameters },
    },
    settings: settings(),
    execute: (_args, context) =>
      new Promise((_resolve, reject) => {
        markSlowStarted();
        context.signal.addEventListener('abort', () => {
          probe.slowAbortReason = context.signal.reason;
          reject(context.signal.reason);
        });
      }),
  });
  registry.register({
    definition: {
      name: 'barrier',
      description: 'Finishes once two calls run at the same time.',
      parameters: { ...textParameters },
    },
    settings: settings({
      defaultParameters: { timeoutSeconds: 5 },
      parameterDescriptors: [
        {
          name: 'timeoutSeconds',
          label: 'Timeout',
          description: 'Budget.',
          type: 'number',
          integer: true,
          min: 1,
          max: 600,
          defaultValue: 5,
        },
      ],
    }),
    execute: async (args) => {
      barrierArrivals++;
      if (barrierArrivals >= 2) releaseBarrier();
      await barrier;
      return { met: (args as { text: string }).text };
    },
  });
  return { registry, probe };
}

/** The toolset of a scenario turn: the registry's tools in a chat-mode chat without a directory. */
export async function createScenarioToolset(
  registry: ToolRegistry,
  savedSettings: Record<string, StoredToolSettings> = {},
): Promise<TurnToolset> {
  const catalog = createToolCatalog([createBuiltinToolSource(registry)]);
  const listing = await catalog.list({ userId: 'user-1', saved: savedSettings });
  return createTurnToolset(listing, {
    userId: 'user-1',
    chatId: 'chat-1',
    mode: 'chat',
    restrictToWorkingDirectory: false,
    freshness: createMemoryFreshnessLedger(),
  });
}
