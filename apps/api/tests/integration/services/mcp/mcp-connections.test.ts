/**
 * The connection manager against real MCP servers, one scenario list run over
 * stdio (a real process per connection) and over Streamable HTTP (a real
 * loopback server): laziness, single-flight, paging, list changes, progress,
 * cancel reaching the server, crashes and expired sessions with the next use
 * reconnecting, a server that hangs on initialize, idle close and close on change.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { McpConnectionError } from '../../../../src/services/mcp';
import {
  createMcpConnectionManager,
  type McpConnectionManager,
} from '../../../../src/services/mcp/mcp-connection-manager';
import { createMcpFetch } from '../../../../src/services/mcp/mcp-fetch';
import type { McpServerRecord } from '../../../../src/services/mcp/mcp-server-record';
import { createMarkerDir, serverRecord } from '../../../support/mcp/mcp-fixtures';
import {
  type ScenarioHttpServer,
  startScenarioHttpServer,
} from '../../../support/mcp/scenario-http';
import { LONG_TOOL_NAME } from '../../../support/mcp/scenario-server';
import { waitUntil } from '../../../support/wait-until';

interface Transport {
  name: 'stdio' | 'http';
  /** A server record (and what counts its starts) for the scenario server with these options. */
  server(options?: { pageSize?: number; hang?: boolean }): {
    record: McpServerRecord;
    starts(): number;
    cancels(): string[];
    /** Ends the server's side abruptly: the process dies (stdio), the sessions are forgotten (http). */
    breakIt(connection: { pid: number | undefined }): void;
  };
}

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const stdio: Transport = {
  name: 'stdio',
  server(options = {}) {
    const marks = createMarkerDir();
    cleanups.push(marks.remove);
    const record = serverRecord({
      env: {
        MCP_MARKER_DIR: marks.path,
        ...(options.pageSize ? { MCP_PAGE_SIZE: String(options.pageSize) } : {}),
        ...(options.hang ? { MCP_HANG_ON_INITIALIZE: '1' } : {}),
      },
    });
    return {
      record,
      starts: () => marks.starts().length,
      cancels: marks.cancels,
      breakIt: (connection) => process.kill(connection.pid as number, 'SIGKILL'),
    };
  },
};

const http: Transport = {
  name: 'http',
  server(options = {}) {
    const server: ScenarioHttpServer = startScenarioHttpServer({
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      ...(options.hang ? { hangOnInitialize: true } : {}),
    });
    cleanups.push(server.stop);
    return {
      record: serverRecord({ type: 'http', command: null, args: [], url: server.url }),
      starts: () => server.sessionsStarted,
      cancels: () => server.cancels,
      breakIt: () => server.expireSessions(),
    };
  },
};

function newManager(overrides: { connectTimeoutMs?: number; idleTimeoutMs?: number } = {}) {
  const manager = createMcpConnectionManager({
    fetch: createMcpFetch({ allowPrivateUrls: true }),
    connectTimeoutMs: overrides.connectTimeoutMs ?? 10_000,
    idleTimeoutMs: overrides.idleTimeoutMs ?? 60_000,
  });
  cleanups.push(() => manager.closeAll());
  return manager;
}

const call = (
  manager: McpConnectionManager,
  record: McpServerRecord,
  name: string,
  args: unknown,
  signal = new AbortController().signal,
) => manager.acquire('user_1', record).call(name, args, { signal, timeoutMs: 10_000 });

const textOf = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((block) => block.text ?? '').join('');

for (const transport of [stdio, http]) {
  describe(`MCP connections over ${transport.name}`, () => {
    test('acquiring starts nothing; ten concurrent first uses start one server', async () => {
      const server = transport.server();
      const manager = newManager();
      const connection = manager.acquire('user_1', server.record);
      expect(connection.status).toBe('idle');
      await Bun.sleep(100);
      expect(server.starts()).toBe(0);
      const listings = await Promise.all(
        Array.from({ length: 10 }, () => manager.acquire('user_1', server.record).ready()),
      );
      expect(server.starts()).toBe(1);
      expect(new Set(listings).size).toBe(1);
      expect(connection.status).toBe('ready');
      expect(connection.serverInfo).toEqual({ name: 'scenario-server', version: '1.2.3' });
      // Another user gets a connection of their own.
      await manager.acquire('user_2', server.record).ready();
      expect(server.starts()).toBe(2);
    });

    test('every page of tools/list is read', async () => {
      const server = transport.server({ pageSize: 3 });
      const tools = await newManager().acquire('user_1', server.record).ready();
      expect(tools.length).toBeGreaterThan(9);
      expect(tools.map((tool) => tool.name)).toContain(LONG_TOOL_NAME);
      expect(tools.map((tool) => tool.name)).toContain('not_an_object');
    });

    test('a changed tool list is read again when the server says so', async () => {
      const server = transport.server({ pageSize: 4 });
      const manager = newManager();
      const connection = manager.acquire('user_1', server.record);
      const before = await connection.ready();
      await call(manager, server.record, 'grow', { name: 'new_tool' });
      expect(
        await waitUntil(() => connection.tools?.some((tool) => tool.name === 'new_tool') ?? false),
      ).toBe(true);
      expect(connection.tools?.length).toBe(before.length + 1);
    });

    test('progress is reported, and a cancel reaches the server', async () => {
      const server = transport.server();
      const manager = newManager();
      const progress: number[] = [];
      const connection = manager.acquire('user_1', server.record);
      const result = await connection.call(
        'slow',
        { ms: 150 },
        {
          signal: new AbortController().signal,
          timeoutMs: 5_000,
          onProgress: (report) => progress.push(report.progress),
        },
      );
      expect(textOf(result)).toBe('waited 150 ms');
      expect(progress.length).toBeGreaterThan(0);

      const controller = new AbortController();
      const running = connection.call(
        'slow',
        { ms: 5_000 },
        { signal: controller.signal, timeoutMs: 10_000 },
      );
      setTimeout(() => controller.abort(new Error('stop')), 200);
      const started = Date.now();
      await expect(running).rejects.toBeDefined();
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(await waitUntil(() => server.cancels().includes('slow'))).toBe(true);
      // The connection stays usable after a cancel.
      expect(textOf(await call(manager, server.record, 'echo', { text: 'still here' }))).toBe(
        'still here',
      );
    });

    test('a server that dies is marked error, and the next use reconnects with a fresh client', async () => {
      const server = transport.server();
      const manager = newManager();
      const connection = manager.acquire('user_1', server.record);
      await connection.ready();
      server.breakIt(connection);
      if (transport.name === 'stdio') {
        expect(await waitUntil(() => connection.status === 'error')).toBe(true);
      } else {
        await expect(call(manager, server.record, 'echo', { text: 'x' })).rejects.toBeDefined();
        expect(connection.status).toBe('error');
        expect(connection.lastError?.message).toMatch(/404|session/i);
      }
      expect(connection.lastError?.code).toBe('connection_failed');
      expect(textOf(await call(manager, server.record, 'echo', { text: 'back' }))).toBe('back');
      expect(connection.status).toBe('ready');
      expect(server.starts()).toBe(2);
    });

    test('a server that hangs on initialize fails within the connect timeout', async () => {
      const server = transport.server({ hang: true });
      const manager = newManager({ connectTimeoutMs: 400 });
      const connection = manager.acquire('user_1', server.record);
      const started = Date.now();
      const failure = await connection.ready().catch((error: unknown) => error);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(failure).toBeInstanceOf(McpConnectionError);
      expect((failure as McpConnectionError).detail.code).toBe('timeout');
      expect(connection.status).toBe('error');
    });

    test('idle connections close; a changed configuration gets a new connection', async () => {
      const server = transport.server();
      const manager = newManager({ idleTimeoutMs: 10 });
      const first = manager.acquire('user_1', server.record);
      await first.ready();
      // The sweep runs at most every second.
      expect(await waitUntil(() => manager.connections().length === 0, 3_000)).toBe(true);
      const changed = { ...server.record, updatedAt: new Date().toISOString() };
      const second = manager.acquire('user_1', changed);
      expect(second).not.toBe(first);
      await second.ready();
      expect(manager.peek('user_1', server.record)).toBeUndefined();
      await manager.closeServer(server.record.id);
      expect(manager.connections()).toHaveLength(0);
    });
  });
}

describe('MCP over stdio only', () => {
  test('a server that exits at start-up fails fast, with its stderr', async () => {
    const marks = createMarkerDir();
    cleanups.push(marks.remove);
    const record = serverRecord({ env: { MCP_EXIT_AT_START: '1', MCP_MARKER_DIR: marks.path } });
    const connection = newManager().acquire('user_1', record);
    const failure = (await connection
      .ready()
      .catch((error: unknown) => error)) as McpConnectionError;
    expect(failure).toBeInstanceOf(McpConnectionError);
    expect(failure.detail.stderrTail).toContain('missing API key');
  });

  test('a command that does not exist is named in the failure', async () => {
    const record = serverRecord({ command: 'mango-no-such-mcp-server', args: [] });
    const failure = (await newManager()
      .acquire('user_1', record)
      .ready()
      .catch((error: unknown) => error)) as McpConnectionError;
    expect(failure.detail.message).toContain('mango-no-such-mcp-server');
  });

  test('repeated failures back off instead of restarting at every use', async () => {
    const marks = createMarkerDir();
    cleanups.push(marks.remove);
    const record = serverRecord({ env: { MCP_EXIT_AT_START: '1', MCP_MARKER_DIR: marks.path } });
    const connection = newManager().acquire('user_1', record);
    for (let attempt = 0; attempt < 5; attempt++) await connection.ready().catch(() => {});
    expect(marks.starts().length).toBe(2);
    const failure = (await connection
      .ready()
      .catch((error: unknown) => error)) as McpConnectionError;
    expect(failure.message).toMatch(/next attempt is in \d+ s/);
  });

  test('the server gets only the environment its config names, plus PATH and HOME', async () => {
    const record = serverRecord({ env: { MY_SETTING: 'on' } });
    const manager = newManager();
    const names = textOf(await call(manager, record, 'env_names', {})).split('\n');
    expect(names).toContain('MY_SETTING');
    expect(names).toContain('PATH');
    for (const name of names)
      expect(['MY_SETTING', 'PATH', 'HOME', 'LOGNAME', 'SHELL', 'TERM', 'USER']).toContain(name);
  });
});
