import { describe, expect, test } from 'bun:test';
import {
  createToolRegistry,
  executeTool,
  getEnabledToolRuntime,
  ToolAbortedError,
  ToolError,
  ToolTimeoutError,
} from '../../../../src/services/tools';
import type { RegisteredTool, ToolContext } from '../../../../src/services/tools/types';
import { createTestCallContext } from '../../../support/tool-context';
import { waitUntil } from '../../../support/wait-until';

async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected the call to reject with a ToolError');
}

function tool(
  name: string,
  execute: RegisteredTool['execute'],
  settings: Partial<RegisteredTool['settings']> = {},
): RegisteredTool {
  return {
    definition: { name, description: 'Test tool.', parameters: { type: 'object', properties: {} } },
    settings: {
      title: name,
      description: 'Test tool.',
      category: 'system',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {},
      parameterDescriptors: [],
      ...settings,
    },
    execute,
  };
}

/** A tool with a `timeoutSeconds` setting whose minimum is tiny, so a test can run out of budget fast. */
function slowTool(
  name: string,
  observed: { signal?: AbortSignal; finished?: boolean },
): RegisteredTool {
  return tool(
    name,
    (_args, context) =>
      new Promise((resolve) => {
        observed.signal = context.signal;
        const timer = setTimeout(() => {
          observed.finished = true;
          resolve('late');
        }, 5_000);
        context.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
      }),
    {
      defaultParameters: { timeoutSeconds: 30 },
      parameterDescriptors: [
        {
          name: 'timeoutSeconds',
          label: 'Timeout',
          description: '',
          type: 'number',
          min: 0.05,
          max: 600,
          defaultValue: 30,
        },
      ],
    },
  );
}

describe('executeTool', () => {
  test('runs the tool with its effective parameters and returns its result', async () => {
    const registry = createToolRegistry();
    let seen: ToolContext | undefined;
    registry.register(
      tool(
        'echo',
        async (args, context) => {
          seen = context;
          return { args };
        },
        {
          defaultParameters: { prefix: 'a' },
          parameterDescriptors: [
            { name: 'prefix', label: 'Prefix', description: '', type: 'string', defaultValue: 'a' },
          ],
        },
      ),
    );
    const result = await executeTool(
      'echo',
      { x: 1 },
      createTestCallContext({ chatId: 'c1' }),
      { enabled: true, parameters: { prefix: 'saved' } },
      { registry },
    );
    expect(result).toEqual({ args: { x: 1 } });
    expect(seen?.parameters).toEqual({ prefix: 'saved' });
    expect(seen?.chatId).toBe('c1');
    expect(seen?.signal.aborted).toBe(false);
  });

  test('an unknown tool rejects with unknown_tool and lists the available tools', async () => {
    const registry = createToolRegistry();
    registry.register(tool('present', async () => 1));
    const error = await rejection(
      executeTool('absent', {}, createTestCallContext(), undefined, { registry }),
    );
    expect(error.code).toBe('unknown_tool');
    expect(error.message).toContain('present');
  });

  test('a tool the user disabled rejects with tool_disabled and does not run', async () => {
    const registry = createToolRegistry();
    let ran = false;
    registry.register(
      tool('off', async () => {
        ran = true;
      }),
    );
    const error = await rejection(
      executeTool('off', {}, createTestCallContext(), { enabled: false }, { registry }),
    );
    expect(error.code).toBe('tool_disabled');
    expect(ran).toBe(false);
  });

  test('a tool disabled by default is disabled without a saved row', async () => {
    const registry = createToolRegistry();
    registry.register(tool('shell_like', async () => 1, { enabledByDefault: false }));
    const error = await rejection(
      executeTool('shell_like', {}, createTestCallContext(), undefined, { registry }),
    );
    expect(error.code).toBe('tool_disabled');
  });

  test('a corrupt saved row still runs the tool on defaults and keeps enabled', async () => {
    const registry = createToolRegistry();
    registry.register(slowTool('slow', {}));
    registry.register(tool('quick', async (_args, context) => context.parameters));
    // Out-of-range timeout is clamped to the descriptor's bound, the call still works.
    await expect(
      executeTool(
        'quick',
        {},
        createTestCallContext(),
        { enabled: true, parameters: '{broken' },
        { registry },
      ),
    ).resolves.toEqual({});
    const disabled = await rejection(
      executeTool(
        'quick',
        {},
        createTestCallContext(),
        { enabled: false, parameters: 'x' },
        { registry },
      ),
    );
    expect(disabled.code).toBe('tool_disabled');
  });

  test('running out of the timeoutSeconds budget rejects with timeout and aborts the tool', async () => {
    const registry = createToolRegistry();
    const observed: { signal?: AbortSignal; finished?: boolean } = {};
    registry.register(slowTool('slow', observed));
    const error = await rejection(
      executeTool(
        'slow',
        {},
        createTestCallContext(),
        { parameters: { timeoutSeconds: 0.05 } },
        { registry },
      ),
    );
    expect(error).toBeInstanceOf(ToolTimeoutError);
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('0.05 s');
    expect(observed.signal?.aborted).toBe(true);
    expect(observed.signal?.reason).toBeInstanceOf(ToolTimeoutError);
    expect(observed.finished).toBeUndefined();
  });

  test('a parent abort rejects with aborted, never timeout, and reaches the tool', async () => {
    const registry = createToolRegistry();
    const observed: { signal?: AbortSignal } = {};
    registry.register(slowTool('slow', observed));
    const parent = new AbortController();
    const call = executeTool(
      'slow',
      {},
      createTestCallContext({ signal: parent.signal }),
      undefined,
      { registry },
    );
    // Abort once the tool runs, so the abort reaches it rather than stopping it from starting.
    expect(await waitUntil(() => observed.signal !== undefined)).toBe(true);
    parent.abort();
    const error = await rejection(call);
    expect(error).toBeInstanceOf(ToolAbortedError);
    expect(error.code).toBe('aborted');
    expect(observed.signal?.reason).toBeInstanceOf(ToolAbortedError);
  });

  test('a tool that settles on abort answers with its partial result, on the budget and on cancel', async () => {
    const registry = createToolRegistry();
    const settling = slowTool('settling', {});
    let started = 0;
    registry.register({
      ...settling,
      settlesOnAbort: true,
      execute: (_args, context) =>
        new Promise((resolve) => {
          started += 1;
          context.signal.addEventListener(
            'abort',
            () => resolve({ partial: true, reason: (context.signal.reason as ToolError).code }),
            { once: true },
          );
        }),
    });
    const budget = await executeTool(
      'settling',
      {},
      createTestCallContext(),
      { parameters: { timeoutSeconds: 0.05 } },
      { registry },
    );
    expect(budget).toEqual({ partial: true, reason: 'timeout' });
    const parent = new AbortController();
    const cancelled = executeTool(
      'settling',
      {},
      createTestCallContext({ signal: parent.signal }),
      undefined,
      { registry },
    );
    expect(await waitUntil(() => started === 2)).toBe(true);
    parent.abort();
    expect(await cancelled).toEqual({ partial: true, reason: 'aborted' });
  });

  test('an already-aborted parent does not start the tool', async () => {
    const registry = createToolRegistry();
    let ran = false;
    registry.register(
      tool('never', async () => {
        ran = true;
      }),
    );
    const parent = new AbortController();
    parent.abort();
    const error = await rejection(
      executeTool('never', {}, createTestCallContext({ signal: parent.signal }), undefined, {
        registry,
      }),
    );
    expect(error.code).toBe('aborted');
    expect(ran).toBe(false);
  });

  test('a ToolError from the tool keeps its code; any other error becomes execution_failed', async () => {
    const registry = createToolRegistry();
    registry.register(
      tool('picky', async () => {
        throw new ToolError('not_found', 'No such thing.');
      }),
    );
    registry.register(
      tool('broken', async () => {
        throw new TypeError('boom');
      }),
    );
    registry.register(
      tool('sync_throw', () => {
        throw new Error('thrown synchronously');
      }),
    );
    const picky = await rejection(
      executeTool('picky', {}, createTestCallContext(), undefined, { registry }),
    );
    expect(picky.code).toBe('not_found');
    const broken = await rejection(
      executeTool('broken', {}, createTestCallContext(), undefined, { registry }),
    );
    expect(broken.code).toBe('execution_failed');
    expect(broken.message).toContain('boom');
    const sync = await rejection(
      executeTool('sync_throw', {}, createTestCallContext(), undefined, { registry }),
    );
    expect(sync.code).toBe('execution_failed');
  });
});

describe('getEnabledToolRuntime', () => {
  test('produces the enabled definitions and every tool’s effective settings', () => {
    const registry = createToolRegistry();
    registry.register(tool('on_by_default', async () => 1));
    registry.register(tool('off_by_default', async () => 1, { enabledByDefault: false }));
    registry.register(tool('switched_off', async () => 1));
    const runtime = getEnabledToolRuntime(
      { off_by_default: { enabled: true }, switched_off: { enabled: false } },
      registry,
    );
    expect(runtime.definitions.map((definition) => definition.name)).toEqual([
      'on_by_default',
      'off_by_default',
    ]);
    expect(runtime.tools).toHaveLength(2);
    expect(runtime.settings.get('switched_off')?.enabled).toBe(false);
  });

  test('accepts saved settings as a Map', () => {
    const registry = createToolRegistry();
    registry.register(tool('one', async () => 1));
    const runtime = getEnabledToolRuntime(new Map([['one', { enabled: false }]]), registry);
    expect(runtime.definitions).toEqual([]);
  });
});
