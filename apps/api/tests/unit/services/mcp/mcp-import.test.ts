import { describe, expect, test } from 'bun:test';
import { ApiError } from '../../../../src/errors';
import { parseImportEntry } from '../../../../src/services/mcp/mcp-import';

describe('importing an mcpServers entry', () => {
  test('a Claude Desktop stdio entry', () => {
    expect(
      parseImportEntry('Filesystem', {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
        env: { DEBUG: '1' },
      }),
    ).toEqual({
      name: 'Filesystem',
      slug: 'filesystem',
      type: 'stdio',
      enabled: true,
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      env: { DEBUG: '1' },
    });
  });

  test('a remote entry, with or without a type, and disabled', () => {
    expect(
      parseImportEntry('remote', { url: 'https://mcp.example.com/mcp', headers: { A: 'b' } }),
    ).toMatchObject({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { A: 'b' },
    });
    expect(
      parseImportEntry('Old', { type: 'sse', url: 'https://x.example/sse', disabled: true }),
    ).toMatchObject({
      type: 'http',
      enabled: false,
    });
  });

  test.each([
    [{}, /needs "command"/],
    [{ command: 'a', url: 'https://x' }, /both/],
    [{ type: 'websocket', url: 'wss://x' }, /type "websocket"/],
    [{ type: 'stdio', url: 'https://x' }, /stdio/],
    [{ command: 'a', env: { N: 1 } }, /env/],
    [{ command: 'a', args: 'not a list' }, /args/],
  ])('%p is refused with the reason', (entry, message) => {
    let thrown: unknown;
    try {
      parseImportEntry('bad', entry as Record<string, unknown>);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe('validation_failed');
    expect((thrown as ApiError).message).toMatch(message);
  });
});
