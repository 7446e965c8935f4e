/**
 * The reference MCP servers from the npm registry, run for real:
 * server-everything over stdio, Streamable HTTP and the older SSE transport
 * (reached through the fallback), and server-filesystem over stdio.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpConnectionManager } from '../../../../src/services/mcp/mcp-connection-manager';
import { createMcpFetch } from '../../../../src/services/mcp/mcp-fetch';
import { referenceServerEntry, serverRecord } from '../../../support/mcp/mcp-fixtures';

const manager = createMcpConnectionManager({
  fetch: createMcpFetch({ allowPrivateUrls: true }),
  connectTimeoutMs: 20_000,
  idleTimeoutMs: 60_000,
});
const cleanups: (() => unknown)[] = [() => manager.closeAll()];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

const everything = referenceServerEntry('@modelcontextprotocol/server-everything');
const signal = () => new AbortController().signal;
const textOf = (result: { content: { type: string; text?: string }[] }) =>
  result.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');

/** A port the kernel has just handed out and taken back: free unless someone else takes it first. */
function freePort(): number {
  const probe = Bun.listen({ hostname: '0.0.0.0', port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/**
 * Starts server-everything in an HTTP mode on a free port; resolves once it
 * listens. The server takes its port from PORT and cannot be given port 0, so
 * a port is asked of the kernel first; if another process takes it in between
 * (the server says so and exits), the start is tried again on a new one.
 */
async function startEverythingHttp(mode: 'streamableHttp' | 'sse'): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = freePort();
    const child = Bun.spawn([process.execPath, everything, mode], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port) },
      stdout: 'ignore',
      stderr: 'pipe',
    });
    cleanups.push(() => child.kill('SIGKILL'));
    const reader = child.stderr.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const deadline = Date.now() + 15_000;
    let exited = false;
    while (!/listening on port|running on port/i.test(seen)) {
      if (Date.now() > deadline) throw new Error(`server-everything did not start: ${seen}`);
      const { value, done } = await reader.read();
      if (done) {
        exited = true;
        break;
      }
      seen += decoder.decode(value, { stream: true });
    }
    reader.releaseLock();
    if (!exited) return port;
    if (!/already in use|EADDRINUSE/.test(seen) || attempt === 5) {
      throw new Error(`server-everything exited: ${seen}`);
    }
  }
}

describe('server-everything', () => {
  test('over stdio: lists its tools and answers a call', async () => {
    const record = serverRecord({ name: 'Everything', args: [everything, 'stdio'] });
    const connection = manager.acquire('user_1', record);
    const tools = await connection.ready();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    const result = await connection.call(
      'echo',
      { message: 'hello' },
      { signal: signal(), timeoutMs: 10_000 },
    );
    expect(textOf(result)).toContain('hello');
    expect(connection.serverInfo?.name).toBeTruthy();
  });

  test('over Streamable HTTP', async () => {
    const port = await startEverythingHttp('streamableHttp');
    const record = serverRecord({
      type: 'http',
      command: null,
      args: [],
      url: `http://127.0.0.1:${port}/mcp`,
    });
    const connection = manager.acquire('user_1', record);
    expect((await connection.ready()).map((tool) => tool.name)).toContain('echo');
    expect(connection.httpTransport).toBe('streamable');
    const result = await connection.call(
      'echo',
      { message: 'over http' },
      { signal: signal(), timeoutMs: 10_000 },
    );
    expect(textOf(result)).toContain('over http');
  });

  test('over the older SSE transport, reached by falling back', async () => {
    const port = await startEverythingHttp('sse');
    const record = serverRecord({
      type: 'http',
      command: null,
      args: [],
      url: `http://127.0.0.1:${port}/sse`,
    });
    const connection = manager.acquire('user_1', record);
    expect((await connection.ready()).map((tool) => tool.name)).toContain('echo');
    expect(connection.httpTransport).toBe('sse');
    const result = await connection.call(
      'echo',
      { message: 'over sse' },
      { signal: signal(), timeoutMs: 10_000 },
    );
    expect(textOf(result)).toContain('over sse');
  });
});

describe('server-filesystem', () => {
  test('over stdio: reads a file inside its root and refuses one outside', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mango-mcp-fs-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    writeFileSync(join(root, 'note.txt'), 'from the filesystem server\n');
    const record = serverRecord({
      name: 'Files',
      args: [referenceServerEntry('@modelcontextprotocol/server-filesystem'), root],
    });
    const connection = manager.acquire('user_1', record);
    const tools = (await connection.ready()).map((tool) => tool.name);
    expect(tools).toContain('read_text_file');
    const read = await connection.call(
      'read_text_file',
      { path: join(root, 'note.txt') },
      { signal: signal(), timeoutMs: 10_000 },
    );
    expect(textOf(read)).toContain('from the filesystem server');
    const outside = await connection.call(
      'read_text_file',
      { path: '/etc/hostname' },
      { signal: signal(), timeoutMs: 10_000 },
    );
    expect(outside.isError).toBe(true);
  });
});
