import { describe, expect, test } from 'bun:test';
import { executeToolCalls } from '../../../../../src/services/chat/execute-tool-calls';
import { createTurnToolset } from '../../../../../src/services/chat/turn-toolset';
import { createMemoryFreshnessLedger } from '../../../../../src/services/tools/freshness/memory-freshness-ledger';
import { createToolRegistry } from '../../../../../src/services/tools/registry';
import { createBuiltinToolSource } from '../../../../../src/services/tools/sources/builtin-tool-source';
import {
  createToolCatalog,
  ToolCatalogError,
} from '../../../../../src/services/tools/sources/tool-catalog';
import { DISABLED_TOOL_REASON } from '../../../../../src/services/tools/sources/tool-source';
import { createEchoTool, createStaticToolSource } from '../../../../support/static-tool-source';

function builtinSource(...names: string[]) {
  const registry = createToolRegistry();
  for (const name of names) registry.register(createEchoTool(name));
  return createBuiltinToolSource(registry);
}

const context = {
  userId: 'user-1',
  chatId: 'chat-1',
  mode: 'chat' as const,
  restrictToWorkingDirectory: false,
  freshness: createMemoryFreshnessLedger(),
};

describe('the tool catalog', () => {
  test('merges the sources in order, each tool with its source, settings and state', async () => {
    const server = createStaticToolSource([createEchoTool('mcp__notes__search')]);
    const catalog = createToolCatalog([builtinSource('alpha', 'beta'), server]);
    const listing = await catalog.list({
      userId: 'user-1',
      saved: new Map([['beta', { enabled: false }]]),
    });
    expect(
      listing.tools.map((listed) => [
        listed.tool.definition.name,
        listed.source.info.id,
        listed.state,
      ]),
    ).toEqual([
      ['alpha', 'builtin', 'enabled'],
      ['beta', 'builtin', 'disabled'],
      ['mcp__notes__search', 'mcp:test-server', 'enabled'],
    ]);
    expect(listing.get('beta')?.reason).toBe(DISABLED_TOOL_REASON);
    expect(listing.problems).toEqual([]);
    // Every source sees the same user, saved settings and a budget.
    expect(server.listings[0]).toMatchObject({ userId: 'user-1', budgetMs: 10_000 });
  });

  test('a name clash keeps the first source’s tool and reports the second', async () => {
    const server = createStaticToolSource([createEchoTool('alpha'), createEchoTool('gamma')], {
      name: 'Notes server',
    });
    const listing = await createToolCatalog([builtinSource('alpha'), server]).list({
      userId: 'u',
      saved: {},
    });
    expect(listing.tools.map((listed) => listed.tool.definition.name)).toEqual(['alpha', 'gamma']);
    expect(listing.get('alpha')?.source.info.id).toBe('builtin');
    expect(listing.problems).toEqual([
      expect.objectContaining({
        kind: 'name_clash',
        toolName: 'alpha',
        sourceId: 'mcp:test-server',
        message: expect.stringContaining('Notes server'),
      }),
    ]);
  });

  test('a source that fails or is too slow is left out and reported; the others are listed', async () => {
    const failing = createStaticToolSource([createEchoTool('x_one')], {
      id: 'mcp:broken',
      failWith: 'spawn ENOENT',
    });
    const slow = createStaticToolSource([createEchoTool('y_one')], {
      id: 'mcp:slow',
      listDelayMs: 5_000,
    });
    const started = performance.now();
    const listing = await createToolCatalog([builtinSource('alpha'), failing, slow]).list({
      userId: 'u',
      saved: {},
      budgetMs: 50,
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(listing.tools.map((listed) => listed.tool.definition.name)).toEqual(['alpha']);
    expect(listing.problems.map((problem) => [problem.sourceId, problem.kind])).toEqual([
      ['mcp:broken', 'source_failed'],
      ['mcp:slow', 'source_timed_out'],
    ]);
    expect(listing.problems[0]?.message).toContain('spawn ENOENT');
    // The slow source was told to stop.
    expect(slow.listings[0]?.signal.aborted).toBe(true);
  });

  test('a source that throws instead of answering, or answers at once, is handled like any other', async () => {
    const throwing = {
      ...createStaticToolSource([], { id: 'mcp:throws' }),
      listTools: () => {
        throw new Error('not configured');
      },
    };
    const immediate = createStaticToolSource([createEchoTool('z_one')], { id: 'mcp:memory' });
    const answering = { ...immediate, listTools: () => [] };
    const listing = await createToolCatalog([builtinSource('alpha'), throwing, answering]).list({
      userId: 'u',
      saved: {},
    });
    expect(listing.tools.map((listed) => listed.tool.definition.name)).toEqual(['alpha']);
    expect(listing.problems.map((problem) => [problem.sourceId, problem.kind])).toEqual([
      ['mcp:throws', 'source_failed'],
    ]);
    expect(listing.problems[0]?.message).toContain('not configured');
  });

  test("the caller's abort reaches a source that reads its signal, before or after it fired", async () => {
    const slow = createStaticToolSource([createEchoTool('y_one')], {
      id: 'mcp:slow',
      listDelayMs: 5_000,
    });
    const caller = new AbortController();
    const pending = createToolCatalog([slow]).list({
      userId: 'u',
      saved: {},
      signal: caller.signal,
    });
    caller.abort(new Error('the turn was cancelled'));
    expect(slow.listings[0]?.signal.aborted).toBe(true);
    const early = new AbortController();
    early.abort(new Error('already cancelled'));
    const second = createStaticToolSource([createEchoTool('w_one')], {
      id: 'mcp:second',
      listDelayMs: 5_000,
    });
    const listed = createToolCatalog([second]).list({
      userId: 'u',
      saved: {},
      signal: early.signal,
    });
    expect(second.listings[0]?.signal.aborted).toBe(true);
    expect(second.listings[0]?.signal.reason).toEqual(new Error('already cancelled'));
    // Both sources stopped waiting when told, well inside the 10 s budget.
    const [first, again] = await Promise.all([pending, listed]);
    expect(first.tools.map((tool) => tool.tool.definition.name)).toEqual(['y_one']);
    expect(again.tools.map((tool) => tool.tool.definition.name)).toEqual(['w_one']);
  });

  test('an unavailable tool is listed with its reason and is never offered', async () => {
    const registry = createToolRegistry();
    registry.register({
      ...createEchoTool('needs_roots'),
      unavailableReason: (scope) =>
        scope.chat?.mode === 'agent' ? undefined : `not for ${scope.userId} outside agent mode`,
    });
    const catalog = createToolCatalog([createBuiltinToolSource(registry)]);
    const listing = await catalog.list({ userId: 'bob', saved: {} });
    expect(listing.get('needs_roots')).toMatchObject({
      state: 'unavailable',
      reason: 'not for bob outside agent mode',
    });
    const toolset = createTurnToolset(listing, context);
    expect(toolset.definitions).toEqual([]);
    await expect(
      toolset.execute(
        { toolCallId: 'c1', name: 'needs_roots', args: {} },
        new AbortController().signal,
      ),
    ).rejects.toMatchObject({
      code: 'tool_unavailable',
      details: { reason: 'not for bob outside agent mode' },
    });
    const agent = await catalog.list({
      userId: 'bob',
      chat: { id: 'c', mode: 'agent', restrictToWorkingDirectory: true },
      saved: {},
    });
    expect(agent.get('needs_roots')?.state).toBe('enabled');
  });

  test('two sources with one id are refused', () => {
    expect(() => createToolCatalog([builtinSource('a'), builtinSource('b')])).toThrow(
      ToolCatalogError,
    );
  });
});

describe('the turn toolset built from a listing', () => {
  test('calls run through their source; unknown and disabled tools are refused with their codes', async () => {
    const server = createStaticToolSource([createEchoTool('remote_echo')]);
    const listing = await createToolCatalog([builtinSource('alpha', 'beta'), server]).list({
      userId: 'u',
      saved: { beta: { enabled: false } },
    });
    const toolset = createTurnToolset(listing, context);
    expect(toolset.definitions.map((definition) => definition.name)).toEqual([
      'alpha',
      'remote_echo',
    ]);
    const signal = new AbortController().signal;
    expect(
      await toolset.execute(
        { toolCallId: 'c1', name: 'remote_echo', args: { text: 'hi' } },
        signal,
      ),
    ).toEqual({ tool: 'remote_echo', args: { text: 'hi' } });
    expect(server.calls).toEqual([{ name: 'remote_echo', args: { text: 'hi' } }]);
    await expect(
      toolset.execute({ toolCallId: 'c2', name: 'beta', args: {} }, signal),
    ).rejects.toMatchObject({ code: 'tool_disabled' });
    await expect(
      toolset.execute({ toolCallId: 'c3', name: 'nope', args: {} }, signal),
    ).rejects.toMatchObject({
      code: 'unknown_tool',
      message: expect.stringContaining('alpha, remote_echo'),
    });
  });

  test('a source’s call gets the same budget and cancel race as a built-in', async () => {
    const server = createStaticToolSource([createEchoTool('hangs', { waitForAbort: true })]);
    const listing = await createToolCatalog([server]).list({ userId: 'u', saved: {} });
    const toolset = createTurnToolset(listing, context);
    const controller = new AbortController();
    const call = toolset.execute({ toolCallId: 'c1', name: 'hangs', args: {} }, controller.signal);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'aborted' });
  });

  test('"runs alone" is a property of the tool: its calls in one step run one after another', async () => {
    const order: string[] = [];
    const tracked = (name: string, runsAlone: boolean) => ({
      ...createEchoTool(name, { runsAlone }),
      execute: async (args: unknown) => {
        const label = (args as { text: string }).text;
        order.push(`start ${label}`);
        await Bun.sleep(5);
        order.push(`end ${label}`);
        return label;
      },
    });
    const registry = createToolRegistry();
    registry.register(tracked('alone', true));
    registry.register(tracked('together', false));
    const listing = await createToolCatalog([createBuiltinToolSource(registry)]).list({
      userId: 'u',
      saved: {},
    });
    const toolset = createTurnToolset(listing, context);
    expect(toolset.runsAlone?.('alone')).toBe(true);
    expect(toolset.runsAlone?.('together')).toBe(false);
    const part = (toolCallId: string, name: string, text: string) => ({
      type: 'tool_call' as const,
      toolCallId,
      name,
      arguments: JSON.stringify({ text }),
      status: 'running' as const,
      durationMs: 0,
    });
    await executeToolCalls([part('1', 'alone', 'a1'), part('2', 'alone', 'a2')], {
      toolset,
      signal: new AbortController().signal,
      emit: () => {},
      now: () => performance.now(),
    });
    expect(order).toEqual(['start a1', 'end a1', 'start a2', 'end a2']);
    order.length = 0;
    await executeToolCalls([part('3', 'together', 't1'), part('4', 'together', 't2')], {
      toolset,
      signal: new AbortController().signal,
      emit: () => {},
      now: () => performance.now(),
    });
    expect(order.slice(0, 2)).toEqual(['start t1', 'start t2']);
  });
});
