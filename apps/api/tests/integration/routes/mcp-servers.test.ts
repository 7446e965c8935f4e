/**
 * Settings → MCP over real HTTP on both databases: create, read, change,
 * delete, import and test; the security rules (stdio for admins or allowed
 * commands, URLs refused when they point inside, secrets write-only, another
 * user's server 404, a shared server read-only to others).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type {
  ImportMcpServersResponse,
  McpServer,
  McpServerListResponse,
  McpServerTestResult,
  ToolSettingsListResponse,
} from '@mango/shared';
import { createMarkerDir, SCENARIO_STDIO_ENTRY } from '../../support/mcp/mcp-fixtures';
import { startScenarioHttpServer } from '../../support/mcp/scenario-http';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';
import { waitUntil } from '../../support/wait-until';

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const stdioBody = (fields: Record<string, unknown> = {}) => ({
  name: 'Scenario',
  type: 'stdio',
  command: process.execPath,
  args: [SCENARIO_STDIO_ENTRY],
  ...fields,
});

describeEachDatabase('Settings → MCP', (_kind, current) => {
  let app: TestApp;
  let strictApp: TestApp;
  let admin: TestUser;
  let bob: TestUser;
  const marks = createMarkerDir();
  const http = startScenarioHttpServer();
  beforeAll(async () => {
    app = startTestApp(current().database, {
      mcp: { allowPrivateUrls: true, stdioAllow: ['mango-allowed-command'] },
    });
    admin = await app.signUp();
    bob = await app.signUp();
    // The same database under the production URL rules: private addresses refused.
    strictApp = startTestApp(current().database);
  });
  afterAll(async () => {
    await app.stop();
    await strictApp.stop();
    await http.stop();
    marks.remove();
  });

  const post = (user: TestUser, body: unknown, on: TestApp = app) =>
    on.fetch('/api/mcp/servers', { ...json('POST', body), user });

  test('an admin adds a stdio server: 201, nothing started, secrets masked', async () => {
    const response = await post(
      admin,
      stdioBody({ env: { MCP_MARKER_DIR: marks.path, API_TOKEN: 'tok-secret-1' } }),
    );
    expect(response.status).toBe(201);
    const server = (await response.json()) as McpServer;
    expect(server).toMatchObject({
      name: 'Scenario',
      slug: 'scenario',
      type: 'stdio',
      enabled: true,
      status: 'idle',
      lastError: null,
      toolCount: null,
      editable: true,
    });
    expect(server.env).toEqual({ MCP_MARKER_DIR: '••••••', API_TOKEN: '••••••' });
    expect(JSON.stringify(server)).not.toContain('tok-secret-1');
    await Bun.sleep(200);
    expect(marks.starts()).toHaveLength(0);

    const listed = (await (
      await app.fetch('/api/mcp/servers', { user: admin })
    ).json()) as McpServerListResponse;
    expect(listed.servers.map((item) => item.id)).toContain(server.id);
    expect(JSON.stringify(listed)).not.toContain('tok-secret-1');
  });

  test('the test route connects now: name, version, tool count and time; the tools reach Settings → Tools', async () => {
    const { servers } = (await (
      await app.fetch('/api/mcp/servers', { user: admin })
    ).json()) as McpServerListResponse;
    const server = servers.find((item) => item.slug === 'scenario') as McpServer;
    const tested = (await (
      await app.fetch(`/api/mcp/servers/${server.id}/test`, { method: 'POST', user: admin })
    ).json()) as McpServerTestResult;
    expect(tested).toMatchObject({
      ok: true,
      serverName: 'scenario-server',
      serverVersion: '1.2.3',
    });
    if (!tested.ok) throw new Error('unreachable');
    expect(tested.toolCount).toBeGreaterThan(5);
    expect(tested.durationMs).toBeGreaterThanOrEqual(0);
    expect(marks.starts()).toHaveLength(1);

    const after = (await (
      await app.fetch(`/api/mcp/servers/${server.id}`, { user: admin })
    ).json()) as McpServer;
    expect(after).toMatchObject({ status: 'ready', toolCount: tested.toolCount });
    expect(after.tools).toContain('mcp__scenario__echo');

    const settings = (await (
      await app.fetch('/api/settings/tools', { user: admin })
    ).json()) as ToolSettingsListResponse;
    const echo = settings.tools.find((tool) => tool.name === 'mcp__scenario__echo');
    expect(echo).toMatchObject({
      source: 'server',
      category: 'interaction',
      enabled: true,
      server: { id: server.id, name: 'Scenario' },
    });
    expect(echo?.description).toStartWith('[Scenario]');
    // The 100-character name is cut to 64 with a stable hash; the dotted one sanitised.
    const names = settings.tools.map((tool) => tool.name);
    expect(
      names
        .filter((name) => name.startsWith('mcp__scenario__a_tool_with'))
        .map((name) => name.length),
    ).toEqual([64]);
    expect(names).toContain('mcp__scenario__dotted_name');
    // A tool whose schema no provider can take is listed as unavailable, with the reason.
    expect(
      settings.tools.find((tool) => tool.name === 'mcp__scenario__not_an_object')
        ?.unavailableReason,
    ).toMatch(/type "string"/);

    // Switched off per tool like a built-in.
    const put = await app.fetch('/api/settings/tools/mcp__scenario__add', {
      ...json('PUT', { enabled: false }),
      user: admin,
    });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { enabled: boolean }).enabled).toBe(false);
    // Settings → Tools on the other app (a second instance) shows the kept listing, starting nothing.
    const elsewhere = (await (
      await strictApp.fetch('/api/settings/tools', { user: admin })
    ).json()) as ToolSettingsListResponse;
    expect(elsewhere.tools.map((tool) => tool.name)).toContain('mcp__scenario__echo');
    expect(marks.starts()).toHaveLength(1);
  });

  test('a partial update: {"enabled": false} alone works, stops the server, and its tools go unavailable', async () => {
    const { servers } = (await (
      await app.fetch('/api/mcp/servers', { user: admin })
    ).json()) as McpServerListResponse;
    const server = servers.find((item) => item.slug === 'scenario') as McpServer;
    const [pid] = marks.starts();
    const response = await app.fetch(`/api/mcp/servers/${server.id}`, {
      ...json('PUT', { enabled: false }),
      user: admin,
    });
    expect(response.status).toBe(200);
    expect((await response.json()) as McpServer).toMatchObject({
      enabled: false,
      status: 'disabled',
    });
    const exited = await (async () => {
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid as number, 0);
        } catch {
          return true;
        }
        await Bun.sleep(50);
      }
      return false;
    })();
    expect(exited).toBe(true);
    const tested = await app.fetch(`/api/mcp/servers/${server.id}/test`, {
      method: 'POST',
      user: admin,
    });
    expect(tested.status).toBe(409);
    const settings = (await (
      await app.fetch('/api/settings/tools', { user: admin })
    ).json()) as ToolSettingsListResponse;
    expect(
      settings.tools.find((tool) => tool.name === 'mcp__scenario__echo')?.unavailableReason,
    ).toMatch(/disabled/);

    // A masked value sent back keeps the stored secret; the slug and type cannot change.
    const again = await app.fetch(`/api/mcp/servers/${server.id}`, {
      ...json('PUT', { env: { MCP_MARKER_DIR: '••••••', API_TOKEN: '••••••', EXTRA: 'x' } }),
      user: admin,
    });
    expect(((await again.json()) as McpServer).env).toEqual({
      MCP_MARKER_DIR: '••••••',
      API_TOKEN: '••••••',
      EXTRA: '••••••',
    });
    // Not part of the documented shape: 400.
    const slug = await app.fetch(`/api/mcp/servers/${server.id}`, {
      ...json('PUT', { slug: 'other' }),
      user: admin,
    });
    expect(slug.status).toBe(400);
  });

  test('a slug or name that clashes is 409; bad shapes are 400, unacceptable values 422', async () => {
    const clash = await post(admin, stdioBody({ name: 'Another', slug: 'scenario' }));
    expect(clash.status).toBe(409);
    expect(((await clash.json()) as { error: { code: string } }).error.code).toBe('conflict');
    expect((await post(admin, stdioBody({ slug: 'Bad Slug!' }))).status).toBe(400);
    expect((await post(admin, { name: 'x', type: 'carrier-pigeon' })).status).toBe(400);
    expect((await post(admin, { name: 'x', type: 'stdio' })).status).toBe(422);
    expect(
      (await post(admin, { name: 'x', type: 'http', url: http.url, command: 'ls' })).status,
    ).toBe(422);
    const cwd = await post(admin, { name: 'x', type: 'stdio', command: 'ls', cwd: 'relative/dir' });
    expect(cwd.status).toBe(422);
    expect(
      ((await cwd.json()) as { error: { details: { field: string } } }).error.details.field,
    ).toBe('cwd');
  });

  test('stdio is for admins: 403 for others, unless the command is allowed', async () => {
    const refused = await post(bob, stdioBody({ name: 'Mine' }));
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'MANGO_MCP_STDIO_ALLOW',
    );
    const allowed = await post(bob, {
      name: 'Allowed',
      type: 'stdio',
      command: 'mango-allowed-command',
    });
    expect(allowed.status).toBe(201);
    const server = (await allowed.json()) as McpServer;
    // Changing it to another command is refused too.
    const changed = await app.fetch(`/api/mcp/servers/${server.id}`, {
      ...json('PUT', { command: process.execPath }),
      user: bob,
    });
    expect(changed.status).toBe(403);
    const sharing = await post(bob, {
      name: 'Shared by bob',
      type: 'http',
      url: http.url,
      shared: true,
    });
    expect(sharing.status).toBe(403);
  });

  test('remote URLs: http(s) only, private addresses refused unless allowed', async () => {
    for (const url of [
      'http://127.0.0.1:9/mcp',
      'http://10.1.2.3/mcp',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:8080/mcp',
      'http://192.168.0.10/mcp',
    ]) {
      const response = await post(admin, { name: `Inside ${url}`, type: 'http', url }, strictApp);
      expect({ url, status: response.status }).toEqual({ url, status: 422 });
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
        'MANGO_MCP_ALLOW_PRIVATE_URLS',
      );
    }
    const scheme = await post(
      admin,
      { name: 'File', type: 'http', url: 'file:///etc/passwd' },
      strictApp,
    );
    expect(scheme.status).toBe(422);
  });

  test('an http server with headers: values write-only, sent to the server', async () => {
    const response = await post(admin, {
      name: 'Remote',
      type: 'http',
      url: http.url,
      headers: { Authorization: 'Bearer remote-secret-9' },
    });
    expect(response.status).toBe(201);
    const server = (await response.json()) as McpServer;
    expect(server.headers).toEqual({ Authorization: '••••••' });
    const tested = (await (
      await app.fetch(`/api/mcp/servers/${server.id}/test`, { method: 'POST', user: admin })
    ).json()) as McpServerTestResult;
    expect(tested.ok).toBe(true);
    expect(http.authorizations).toContain('Bearer remote-secret-9');
    const all = await (await app.fetch('/api/mcp/servers', { user: admin })).text();
    expect(all).not.toContain('remote-secret-9');
  });

  test("another user's server is 404; a shared one is visible and read-only", async () => {
    const own = (await (
      await post(admin, { name: 'Private remote', type: 'http', url: http.url })
    ).json()) as McpServer;
    expect((await app.fetch(`/api/mcp/servers/${own.id}`, { user: bob })).status).toBe(404);
    expect(
      (await app.fetch(`/api/mcp/servers/${own.id}`, { method: 'DELETE', user: bob })).status,
    ).toBe(404);
    expect(
      (await app.fetch(`/api/mcp/servers/${own.id}/test`, { method: 'POST', user: bob })).status,
    ).toBe(404);

    const shared = (await (
      await post(admin, {
        name: 'Team remote',
        type: 'http',
        url: http.url,
        shared: true,
        headers: { 'X-Key': 'team-key-77' },
      })
    ).json()) as McpServer;
    const seen = (await (
      await app.fetch(`/api/mcp/servers/${shared.id}`, { user: bob })
    ).json()) as McpServer;
    expect(seen).toMatchObject({ shared: true, editable: false, headers: { 'X-Key': '••••••' } });
    expect(
      (
        await app.fetch(`/api/mcp/servers/${shared.id}`, {
          ...json('PUT', { enabled: false }),
          user: bob,
        })
      ).status,
    ).toBe(403);
    expect(
      (await app.fetch(`/api/mcp/servers/${shared.id}`, { method: 'DELETE', user: bob })).status,
    ).toBe(403);
    // Bob's use has its own connection (its own session).
    const before = http.sessionsStarted;
    const tested = (await (
      await app.fetch(`/api/mcp/servers/${shared.id}/test`, { method: 'POST', user: bob })
    ).json()) as McpServerTestResult;
    expect(tested.ok).toBe(true);
    expect(http.sessionsStarted).toBe(before + 1);
    const bobsTools = (await (
      await app.fetch('/api/settings/tools', { user: bob })
    ).json()) as ToolSettingsListResponse;
    expect(bobsTools.tools.map((tool) => tool.name)).toContain('mcp__team-remote__echo');
  });

  test('import: one server per entry, each created or refused with the reason', async () => {
    const response = await app.fetch('/api/mcp/servers/import', {
      ...json('POST', {
        mcpServers: {
          'From README': { command: 'mango-allowed-command', args: ['--flag'], env: { KEY: 'v' } },
          'Remote one': { url: http.url, headers: { Authorization: 'Bearer x' } },
          'Typed sse': { type: 'sse', url: http.url },
          Broken: { args: ['no command'] },
          'Wrong env': { command: 'mango-allowed-command', env: { N: 1 } },
          'Not allowed': { command: '/bin/sh', args: ['-c', 'id'] },
        },
      }),
      user: bob,
    });
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as ImportMcpServersResponse;
    const byName = Object.fromEntries(results.map((result) => [result.name, result]));
    expect(byName['From README']).toMatchObject({
      created: true,
      server: { type: 'stdio', slug: 'from-readme', args: ['--flag'] },
    });
    expect(byName['Remote one']).toMatchObject({
      created: true,
      server: { type: 'http', headers: { Authorization: '••••••' } },
    });
    expect(byName['Typed sse']).toMatchObject({ created: true, server: { type: 'http' } });
    expect(byName.Broken).toMatchObject({ created: false, error: { code: 'validation_failed' } });
    expect(byName['Wrong env']).toMatchObject({
      created: false,
      error: { code: 'validation_failed' },
    });
    expect(byName['Not allowed']).toMatchObject({ created: false, error: { code: 'forbidden' } });
  });

  test('a failing server: the test answers the classified failure with the tail of its stderr', async () => {
    const response = await post(
      admin,
      stdioBody({ name: 'Exits', env: { MCP_EXIT_AT_START: '1', SECRET_VALUE: 'hunter2-secret' } }),
    );
    const server = (await response.json()) as McpServer;
    const tested = (await (
      await app.fetch(`/api/mcp/servers/${server.id}/test`, { method: 'POST', user: admin })
    ).json()) as McpServerTestResult;
    expect(tested.ok).toBe(false);
    if (tested.ok) throw new Error('unreachable');
    expect(tested.error.code).toBe('connection_failed');
    expect(tested.error.stderrTail).toContain('missing API key');
    const after = (await (
      await app.fetch(`/api/mcp/servers/${server.id}`, { user: admin })
    ).json()) as McpServer;
    expect(after.status).toBe('error');
    expect(after.lastError?.stderrTail).toContain('missing API key');
  });

  test('a change made on one instance closes the connections on another at once', async () => {
    const other = startTestApp(current().database, { mcp: { allowPrivateUrls: true } });
    try {
      const server = (await (
        await post(admin, { name: 'Watched', type: 'http', url: http.url })
      ).json()) as McpServer;
      const tested = (await (
        await other.fetch(`/api/mcp/servers/${server.id}/test`, { method: 'POST', user: admin })
      ).json()) as McpServerTestResult;
      expect(tested.ok).toBe(true);
      const open = () =>
        other.services.mcpConnections.connections().filter((item) => item.record.id === server.id);
      expect(open()).toHaveLength(1);
      const terminated = http.sessionsTerminated;
      const changed = await app.fetch(`/api/mcp/servers/${server.id}`, {
        ...json('PUT', { headers: { 'X-New': 'v' } }),
        user: admin,
      });
      expect(changed.status).toBe(200);
      expect(await waitUntil(() => open().length === 0)).toBe(true);
      expect(await waitUntil(() => http.sessionsTerminated === terminated + 1)).toBe(true);
      // The other instance's next use runs the new configuration.
      const again = (await (
        await other.fetch(`/api/mcp/servers/${server.id}/test`, { method: 'POST', user: admin })
      ).json()) as McpServerTestResult;
      expect(again.ok).toBe(true);
      expect(open()[0]?.record.headers).toEqual({ 'X-New': 'v' });
    } finally {
      await other.stop();
    }
  });

  test('delete: 204, gone from the list and from Settings → Tools', async () => {
    const server = (await (
      await post(admin, { name: 'Short-lived', type: 'http', url: http.url })
    ).json()) as McpServer;
    await app.fetch(`/api/mcp/servers/${server.id}/test`, { method: 'POST', user: admin });
    const deleted = await app.fetch(`/api/mcp/servers/${server.id}`, {
      method: 'DELETE',
      user: admin,
    });
    expect(deleted.status).toBe(204);
    expect((await app.fetch(`/api/mcp/servers/${server.id}`, { user: admin })).status).toBe(404);
    const settings = (await (
      await app.fetch('/api/settings/tools', { user: admin })
    ).json()) as ToolSettingsListResponse;
    expect(settings.tools.some((tool) => tool.name.startsWith('mcp__short-lived__'))).toBe(false);
  });

  test("a user's servers are known in memory once read, and forgotten when one is added", async () => {
    const carol = await app.signUp();
    const { mcp } = app.services;
    expect(await waitUntil(() => current().database.changes.isLive(), 5_000)).toBe(true);
    expect(mcp.knownUserSources(carol.id)).toBeUndefined();
    const read = await mcp.userSources(carol.id);
    const known = mcp.knownUserSources(carol.id);
    expect(known?.map((source) => source.info.id)).toEqual(read.map((source) => source.info.id));
    // The same source objects, so their unchanged listings are handed out again.
    expect(known?.every((source, index) => source === read[index])).toBe(true);
    await post(admin, { name: 'Added later', type: 'http', url: http.url });
    expect(mcp.knownUserSources(carol.id)).toBeUndefined();
  });
});
