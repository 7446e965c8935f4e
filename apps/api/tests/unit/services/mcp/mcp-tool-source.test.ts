/**
 * An MCP server's tool source listing from memory (Settings → Tools, made per
 * request): it answers synchronously, hands out the same tool objects for the
 * same configuration and listing, and new ones once the server is changed.
 * No server is started: a listing that does not connect never reaches one.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { createMcpConnectionManager } from '../../../../src/services/mcp/mcp-connection-manager';
import { createMcpFetch } from '../../../../src/services/mcp/mcp-fetch';
import type { McpListedTool } from '../../../../src/services/mcp/mcp-server-record';
import { createMcpToolSources } from '../../../../src/services/mcp/mcp-tool-source';
import type {
  SourcedTool,
  ToolListingRequest,
} from '../../../../src/services/tools/sources/tool-source';
import { serverRecord } from '../../../support/mcp/mcp-fixtures';

const manager = createMcpConnectionManager({
  fetch: createMcpFetch({ allowPrivateUrls: false }),
  connectTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
});
afterAll(() => manager.closeAll());

const sources = createMcpToolSources({ manager, defaultCallTimeoutSeconds: 60, stdioAllow: [] });

const listing: McpListedTool[] = [
  {
    name: 'echo',
    description: 'Echoes its text.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: { type: 'object', properties: {} },
  },
];

function fromMemory(saved: ToolListingRequest['saved'] = new Map()): ToolListingRequest {
  return {
    userId: 'user_1',
    saved,
    signal: new AbortController().signal,
    budgetMs: 1_000,
    connect: false,
  };
}

function listedNow(tools: SourcedTool[] | Promise<SourcedTool[]>): SourcedTool[] {
  // A listing from memory must not be a promise: the catalog would then race it against a timer.
  expect(tools).toBeArray();
  return tools as SourcedTool[];
}

describe('an MCP tool source listing from memory', () => {
  test('answers synchronously with the last known tools', () => {
    const record = serverRecord({ toolListing: listing });
    const tools = listedNow(sources.sourceFor('user_1', record).listTools(fromMemory()));
    expect(tools.map((listed) => listed.tool.definition.name)).toEqual([
      `mcp__${record.slug}__echo`,
      `mcp__${record.slug}__add`,
    ]);
    expect(tools.map((listed) => listed.state)).toEqual(['enabled', 'enabled']);
  });

  test('a disabled server answers synchronously too, each tool unavailable', () => {
    const record = serverRecord({ toolListing: listing, enabled: false });
    const tools = listedNow(sources.sourceFor('user_1', record).listTools(fromMemory()));
    expect(tools.map((listed) => listed.state)).toEqual(['unavailable', 'unavailable']);
  });

  test('the same configuration and listing give the same tool objects, listing after listing', () => {
    const record = serverRecord({ toolListing: listing });
    const first = listedNow(sources.sourceFor('user_1', record).listTools(fromMemory()));
    const again = listedNow(sources.sourceFor('user_1', record).listTools(fromMemory()));
    const copied = listedNow(
      sources
        .sourceFor('user_1', { ...record, toolListing: structuredClone(listing) })
        .listTools(fromMemory()),
    );
    for (const tools of [again, copied])
      expect(tools.map((listed) => listed.tool)).toEqual(first.map((listed) => listed.tool));
    expect(again[0]?.tool).toBe(first[0]?.tool);
    expect(copied[1]?.tool).toBe(first[1]?.tool);
  });

  test('a changed server gets new tool objects even for the very same listing array', () => {
    const record = serverRecord({ toolListing: listing });
    const before = listedNow(sources.sourceFor('user_1', record).listTools(fromMemory()));
    const renamed = {
      ...record,
      name: 'Renamed',
      updatedAt: new Date(Date.UTC(2027, 0, 1)).toISOString(),
    };
    const after = listedNow(sources.sourceFor('user_1', renamed).listTools(fromMemory()));
    expect(after[0]?.tool).not.toBe(before[0]?.tool);
    expect(after[0]?.tool.definition.description).toBe('[Renamed] Echoes its text.');
    expect(before[0]?.tool.definition.description).toBe(`[${record.name}] Echoes its text.`);
  });

  test('saved settings apply; a tool without them gets its defaults, shared and frozen', () => {
    const record = serverRecord({ toolListing: listing });
    const echo = `mcp__${record.slug}__echo`;
    const saved = new Map([[echo, { enabled: false, parameters: { timeoutSeconds: 5 } }]]);
    const tools = listedNow(sources.sourceFor('user_1', record).listTools(fromMemory(saved)));
    expect(tools[0]?.state).toBe('disabled');
    expect(tools[0]?.settings.parameters).toEqual({ timeoutSeconds: 5 });
    expect(tools[1]?.settings).toEqual({ enabled: true, parameters: { timeoutSeconds: 60 } });
    const other = listedNow(sources.sourceFor('user_2', record).listTools(fromMemory()));
    expect(other[1]?.settings).toBe(tools[1]?.settings);
    const defaults = other[1]?.settings as { parameters: Record<string, unknown> };
    expect(Object.isFrozen(defaults)).toBe(true);
    expect(() => {
      defaults.parameters.timeoutSeconds = 1;
    }).toThrow(TypeError);
    expect(other[0]?.settings.parameters).toEqual({ timeoutSeconds: 60 });
  });

  test('one source per user and server record; an unchanged listing is the same frozen array', () => {
    const record = serverRecord({ toolListing: listing });
    const source = sources.sourceFor('user_1', record);
    expect(sources.sourceFor('user_1', record)).toBe(source);
    expect(sources.sourceFor('user_2', record)).not.toBe(source);
    expect(sources.sourceFor('user_1', { ...record })).not.toBe(source);
    const first = listedNow(source.listTools(fromMemory()));
    expect(listedNow(source.listTools(fromMemory()))).toBe(first);
    // Nothing saved, as an empty map or an empty object: the same defaults, the same listing.
    expect(listedNow(source.listTools(fromMemory({})))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    // A saved setting is merged afresh: that listing is new, and the plain one comes back after it.
    const saved = new Map([[`mcp__${record.slug}__add`, { enabled: false }]]);
    expect(listedNow(source.listTools(fromMemory(saved)))).not.toBe(first);
    expect(listedNow(source.listTools(fromMemory()))).toBe(first);
  });
});
