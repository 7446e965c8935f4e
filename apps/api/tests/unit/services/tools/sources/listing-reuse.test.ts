/**
 * Listings are made per request (every Settings → Tools list, every turn).
 * While nothing a listing depends on changed, a source hands out the same
 * (frozen) array of the same entries and the catalog the same listing; any
 * change (a reason, a saved setting, another source) gives a new one. The
 * catalog lists synchronously when every source answers from memory and the
 * user's own sources are known.
 */
import { describe, expect, test } from 'bun:test';
import { NO_GRANTED_ROOTS_REASON } from '../../../../../src/services/tools/host-access';
import { createToolRegistry } from '../../../../../src/services/tools/registry';
import { createBuiltinToolSource } from '../../../../../src/services/tools/sources/builtin-tool-source';
import {
  createToolCatalog,
  type ToolCatalogListing,
} from '../../../../../src/services/tools/sources/tool-catalog';
import {
  createSourcedToolsReuse,
  type SourcedTool,
  type ToolSource,
} from '../../../../../src/services/tools/sources/tool-source';
import type {
  EffectiveToolSettings,
  RegisteredTool,
} from '../../../../../src/services/tools/types';
import { createEchoTool, createStaticToolSource } from '../../../../support/static-tool-source';

const NONE = new Map();

function frozenSettings(enabled = true): EffectiveToolSettings {
  return Object.freeze({ enabled, parameters: Object.freeze({}) });
}

describe('createSourcedToolsReuse', () => {
  const source = createStaticToolSource([]);
  const alpha = createEchoTool('alpha');
  const beta = createEchoTool('beta');
  const on = frozenSettings();
  const off = frozenSettings(false);
  const settings = [on, off];

  test('the same tools, settings objects and reasons give the same frozen array and entries', () => {
    const reuse = createSourcedToolsReuse(source);
    const first = reuse([alpha, beta], settings, [undefined, undefined]);
    const again = reuse([alpha, beta], [...settings], [undefined, undefined]);
    expect(again).toBe(first);
    expect(first.map((listed) => listed.state)).toEqual(['enabled', 'disabled']);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first[0])).toBe(true);
    expect(() => {
      (first[0] as { state: string }).state = 'disabled';
    }).toThrow(TypeError);
  });

  test('another reason, settings object or tool gives a new array; the old one comes back with its inputs', () => {
    const reuse = createSourcedToolsReuse(source);
    const first = reuse([alpha, beta], settings, [undefined, undefined]);
    const unavailable = reuse([alpha, beta], settings, ['bwrap is not installed', undefined]);
    expect(unavailable).not.toBe(first);
    expect(unavailable[0]).toMatchObject({
      state: 'unavailable',
      reason: 'bwrap is not installed',
    });
    expect(reuse([alpha, beta], [frozenSettings(), off], [undefined, undefined])).not.toBe(first);
    expect(reuse([alpha], [on], [undefined])).not.toBe(first);
    expect(reuse([alpha, beta], settings, [undefined, undefined])).toBe(first);
  });

  test('settings that are not frozen (merged from a saved row) are never remembered', () => {
    const reuse = createSourcedToolsReuse(source);
    const saved = [{ enabled: true, parameters: {} }, off];
    const first = reuse([alpha, beta], saved, [undefined, undefined]);
    expect(reuse([alpha, beta], saved, [undefined, undefined])).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(false);
  });

  test('an array changed in place between two listings is compared, not trusted by identity', () => {
    const reuse = createSourcedToolsReuse(source);
    const frozenTools = Object.freeze([alpha, beta]);
    const frozenSettings = Object.freeze([on, off]);
    const reasons: (string | undefined)[] = [undefined, undefined];
    const first = reuse(frozenTools, frozenSettings, reasons);
    reasons[0] = 'bwrap is not installed';
    const changed = reuse(frozenTools, frozenSettings, reasons);
    expect(changed).not.toBe(first);
    expect(changed[0]?.state).toBe('unavailable');
    // All three frozen: the same arrays give the same listing.
    const noReasons = Object.freeze([undefined, undefined]);
    const shared = reuse(frozenTools, frozenSettings, noReasons);
    expect(reuse(frozenTools, frozenSettings, noReasons)).toBe(shared);
    expect(shared[0]?.state).toBe('enabled');
  });

  test('only the last `keep` listings are remembered', () => {
    const reuse = createSourcedToolsReuse(source, 2);
    const [a, b, c] = ['a', 'b', 'c'].map((reason) => reuse([alpha], [on], [reason]));
    expect(reuse([alpha], [on], ['c'])).toBe(c as SourcedTool[]);
    expect(reuse([alpha], [on], ['b'])).toBe(b as SourcedTool[]);
    expect(reuse([alpha], [on], ['a'])).not.toBe(a as SourcedTool[]);
  });
});

/** A built-in tool whose availability the test switches. */
function switchableTool(name: string) {
  const state = { reason: undefined as string | undefined };
  const tool: RegisteredTool = {
    ...createEchoTool(name),
    unavailableReason: () => state.reason,
  };
  return { tool, state };
}

function builtinsWith(...tools: RegisteredTool[]): ToolSource {
  const registry = createToolRegistry();
  for (const tool of tools) registry.register(tool);
  return createBuiltinToolSource(registry);
}

function known(listing: ReturnType<ReturnType<typeof createToolCatalog>['listKnown']>) {
  // From memory the listing must not be a promise: no timer, no microtask per request.
  expect(listing).toBeDefined();
  expect(listing).not.toBeInstanceOf(Promise);
  return listing as ToolCatalogListing;
}

describe('the catalog hands an unchanged listing out again', () => {
  test('the same listing while nothing changed; a new one when a tool’s reason changes', async () => {
    const { tool, state } = switchableTool('shellish');
    const catalog = createToolCatalog([builtinsWith(createEchoTool('alpha'), tool)]);
    const first = await catalog.list({ userId: 'u', saved: NONE });
    const again = await catalog.list({ userId: 'other', saved: NONE });
    expect(again).toBe(first);
    expect(Object.isFrozen(first.tools)).toBe(true);
    state.reason = 'Not installed here.';
    const changed = await catalog.list({ userId: 'u', saved: NONE });
    expect(changed).not.toBe(first);
    expect(changed.get('shellish')).toMatchObject({
      state: 'unavailable',
      reason: 'Not installed here.',
    });
    state.reason = undefined;
    expect(await catalog.list({ userId: 'u', saved: NONE })).toBe(first);
  });

  test('saved settings give a new listing each time, with the saved values', async () => {
    const catalog = createToolCatalog([builtinsWith(createEchoTool('alpha'))]);
    const saved = new Map([['alpha', { enabled: false }]]);
    const first = await catalog.list({ userId: 'u', saved });
    const again = await catalog.list({ userId: 'u', saved });
    expect(again).not.toBe(first);
    expect(again.get('alpha')?.state).toBe('disabled');
    expect((await catalog.list({ userId: 'u', saved: NONE })).get('alpha')?.state).toBe('enabled');
  });

  test('a listing with a problem is never handed out again', async () => {
    const failing = createStaticToolSource([createEchoTool('x_one')], {
      id: 'mcp:broken',
      failWith: 'spawn ENOENT',
    });
    const catalog = createToolCatalog([builtinsWith(createEchoTool('alpha')), failing]);
    const first = await catalog.list({ userId: 'u', saved: NONE });
    const again = await catalog.list({ userId: 'u', saved: NONE });
    expect(again).not.toBe(first);
    expect(again.problems).toHaveLength(1);
    expect(first.problems).toHaveLength(1);
  });

  test('the user’s own sources are part of the key: another user’s listing is their own', async () => {
    const builtins = builtinsWith(createEchoTool('alpha'));
    const mine = createStaticToolSource([createEchoTool('mcp__mine__search')], { id: 'mcp:mine' });
    const catalog = createToolCatalog([builtins], {
      userSources: async (userId) => (userId === 'me' ? [mine] : []),
    });
    const own = await catalog.list({ userId: 'me', saved: NONE });
    const others = await catalog.list({ userId: 'you', saved: NONE });
    expect(own.tools.map((listed) => listed.tool.definition.name)).toEqual([
      'alpha',
      'mcp__mine__search',
    ]);
    expect(others.tools.map((listed) => listed.tool.definition.name)).toEqual(['alpha']);
  });
});

describe('listKnown: a listing from memory', () => {
  test('is synchronous when every source answers from memory', () => {
    const catalog = createToolCatalog([builtinsWith(createEchoTool('alpha'))]);
    const listing = known(catalog.listKnown({ userId: 'u', saved: NONE, connect: false }));
    expect(listing.tools.map((listed) => listed.tool.definition.name)).toEqual(['alpha']);
  });

  test('is undefined while the user’s own sources are not known, and includes them once they are', async () => {
    const mine = createStaticToolSource([createEchoTool('mcp__mine__search')], { id: 'mcp:mine' });
    let inMemory: readonly ToolSource[] | undefined;
    const catalog = createToolCatalog([builtinsWith(createEchoTool('alpha'))], {
      userSources: async () => [mine],
      knownUserSources: () => inMemory,
    });
    expect(catalog.listKnown({ userId: 'me', saved: NONE })).toBeUndefined();
    inMemory = [mine];
    // The static source answers through a promise: the listing is then a promise too.
    const listing = catalog.listKnown({ userId: 'me', saved: NONE });
    expect(listing).toBeInstanceOf(Promise);
    expect((await listing)?.tools.map((listed) => listed.tool.definition.name)).toEqual([
      'alpha',
      'mcp__mine__search',
    ]);
    const withoutKnown = createToolCatalog([builtinsWith(createEchoTool('alpha'))], {
      userSources: async () => [mine],
    });
    expect(withoutKnown.listKnown({ userId: 'me', saved: NONE })).toBeUndefined();
  });
});

describe('the built-in source', () => {
  test('a tool registered after a listing is in the next one', async () => {
    const registry = createToolRegistry();
    registry.register(createEchoTool('alpha'));
    const builtins = createBuiltinToolSource(registry);
    const request = { userId: 'u', saved: NONE, signal: new AbortController().signal };
    const listOf = async () =>
      (await builtins.listTools({ ...request, budgetMs: 1000, connect: false })).map(
        (listed) => listed.tool.definition.name,
      );
    expect(await listOf()).toEqual(['alpha']);
    registry.register(createEchoTool('beta'));
    expect(await listOf()).toEqual(['alpha', 'beta']);
  });

  test('saved settings as a plain object: an empty one lists the defaults, a row applies', async () => {
    const catalog = createToolCatalog([builtinsWith(createEchoTool('alpha'))]);
    const defaults = await catalog.list({ userId: 'u', saved: NONE });
    expect(await catalog.list({ userId: 'u', saved: {} })).toBe(defaults);
    const off = await catalog.list({ userId: 'u', saved: { alpha: { enabled: false } } });
    expect(off.get('alpha')?.state).toBe('disabled');
  });

  test('a user granted no roots cannot use the tools that reach the host; with a root, every tool is offered', async () => {
    const reaching: RegisteredTool = { ...createEchoTool('reaching'), reachesHost: true };
    const catalog = createToolCatalog([builtinsWith(createEchoTool('alpha'), reaching)]);
    const nowhere = await catalog.list({
      userId: 'u',
      saved: NONE,
      hostAccess: { kind: 'granted', roots: [] },
    });
    expect(nowhere.get('alpha')?.state).toBe('enabled');
    expect(nowhere.get('reaching')).toMatchObject({
      state: 'unavailable',
      reason: NO_GRANTED_ROOTS_REASON,
    });
    for (const hostAccess of [
      { kind: 'granted', roots: ['/srv/work'] },
      { kind: 'admin' },
    ] as const) {
      const listing = await catalog.list({ userId: 'u', saved: NONE, hostAccess });
      expect(listing.tools.map((listed) => listed.state)).toEqual(['enabled', 'enabled']);
    }
  });
});
