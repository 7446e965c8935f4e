import { afterAll, beforeAll, expect, test } from 'bun:test';
import { ToolSettingsError, ToolSettingsListResponse } from '@mango/shared';
import { Value } from '@sinclair/typebox/value';
import { sql } from 'kysely';
import { openDatabase } from '../../../src/db/database';
import { getCurrentDateTimeTool } from '../../../src/services/tools/builtin/get-current-datetime';
import { executeTool } from '../../../src/services/tools/execute';
import { createMemoryFreshnessLedger } from '../../../src/services/tools/freshness/memory-freshness-ledger';
import { createToolRegistry } from '../../../src/services/tools/registry';
import { alwaysOnProbeTool, switchableProbeTool } from '../../support/probe-tools';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

function freshRegistry() {
  const registry = createToolRegistry();
  registry.register(getCurrentDateTimeTool);
  registry.register(switchableProbeTool);
  registry.register(alwaysOnProbeTool);
  return registry;
}

const jsonHeaders = { 'content-type': 'application/json' };

describeEachDatabase('tool settings routes', (kind, current) => {
  const registry = freshRegistry();
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    app = startTestApp(current().database, { toolRegistry: registry });
    alice = await app.signUp();
    bob = await app.signUp();
  }, 30_000);
  afterAll(() => app.stop());

  const put = (user: TestUser | undefined, toolName: string, body: string) =>
    app.fetch(`/api/settings/tools/${toolName}`, {
      method: 'PUT',
      headers: jsonHeaders,
      body,
      ...(user ? { user } : {}),
    });
  const list = async (user: TestUser) => {
    const response = await app.fetch('/api/settings/tools', { user });
    expect(response.status).toBe(200);
    return ((await response.json()) as ToolSettingsListResponse).tools;
  };
  const toolOf = async (user: TestUser, name: string) =>
    (await list(user)).find((tool) => tool.name === name);

  test('without a session both routes answer 401', async () => {
    expect((await app.fetch('/api/settings/tools')).status).toBe(401);
    const response = await put(undefined, 'switchable_probe', '{"enabled":false}');
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe('unauthorized');
  });

  test('GET lists every registered tool with effective settings, metadata and descriptors', async () => {
    const response = await app.fetch('/api/settings/tools', { user: alice });
    const body = await response.json();
    expect(Value.Check(ToolSettingsListResponse, body)).toBe(true);
    const tools = (body as ToolSettingsListResponse).tools;
    expect(tools.map((tool) => tool.name)).toEqual(
      registry.list().map((tool) => tool.definition.name),
    );
    expect(tools.find((tool) => tool.name === 'always_on_probe')).toEqual({
      name: 'always_on_probe',
      title: 'Always-on probe',
      description: 'Reports the settings it runs with.',
      category: 'system',
      enabledByDefault: true,
      canDisable: false,
      enabled: true,
      parameters: { limit: 10, mode: 'fast' },
      defaultParameters: { limit: 10, mode: 'fast' },
      parameterDescriptors: alwaysOnProbeTool.settings.parameterDescriptors,
      updatedAt: null,
      source: 'builtin',
    });
  });

  test('PUT changes settings and the switch, merging over what was saved', async () => {
    const first = await put(alice, 'switchable_probe', '{"parameters":{"limit":42}}');
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({
      enabled: true,
      parameters: { limit: 42, mode: 'fast' },
    });
    const second = await put(
      alice,
      'switchable_probe',
      '{"enabled":false,"parameters":{"mode":"thorough"}}',
    );
    expect(await second.json()).toMatchObject({
      enabled: false,
      parameters: { limit: 42, mode: 'thorough' },
      updatedAt: expect.any(String),
    });
    expect(await toolOf(alice, 'switchable_probe')).toMatchObject({
      enabled: false,
      parameters: { limit: 42, mode: 'thorough' },
    });
    const datetime = await put(alice, 'get_current_datetime', '{"enabled":false}');
    expect(datetime.status).toBe(200);
    const runtime = await app.services.toolSettings.getEnabledToolRuntime(alice.id);
    expect(runtime.definitions.map((definition) => definition.name)).toEqual(['always_on_probe']);
  });

  test.each([
    ['an out-of-range number', 'switchable_probe', '{"parameters":{"limit":101}}', 'limit'],
    [
      'a fractional number for a whole-number setting',
      'switchable_probe',
      '{"parameters":{"limit":2.5}}',
      'limit',
    ],
    ['an unknown setting', 'switchable_probe', '{"parameters":{"depth":3}}', 'depth'],
    ['a wrong type', 'switchable_probe', '{"parameters":{"limit":"20"}}', 'limit'],
    ['a value outside the options', 'switchable_probe', '{"parameters":{"mode":"slow"}}', 'mode'],
    ['disabling a tool that cannot be disabled', 'always_on_probe', '{"enabled":false}', 'enabled'],
    [
      'a default timezone that is not an IANA zone',
      'get_current_datetime',
      '{"parameters":{"defaultTimezone":"Mars/Olympus"}}',
      'defaultTimezone',
    ],
  ])('422 ToolSettingsError for %s, and nothing is saved', async (_case, toolName, body, key) => {
    const before = await toolOf(bob, toolName);
    const response = await put(bob, toolName, body);
    expect(response.status).toBe(422);
    const error = await response.json();
    expect(Value.Check(ToolSettingsError, error)).toBe(true);
    expect(error.error).toMatchObject({ code: 'invalid_tool_settings', toolName, key });
    expect(error.error.message).toContain(key === 'enabled' ? 'cannot be disabled' : `"${key}"`);
    expect(await toolOf(bob, toolName)).toEqual(before);
  });

  test('404 for an unknown tool', async () => {
    const response = await put(bob, 'no_such_tool', '{"enabled":true}');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        code: 'unknown_tool',
        message: expect.stringContaining('"no_such_tool"'),
        retryable: false,
      },
    });
  });

  test.each([
    ['invalid JSON', '{"enabled": tru'],
    ['an array', '[1]'],
    ['enabled that is not a boolean', '{"enabled":"yes"}'],
    ['parameters that are not an object', '{"parameters":[1,2]}'],
    ['an unknown field', '{"enabled":true,"reset":true}'],
  ])('400 for a body of the wrong shape: %s', async (_case, body) => {
    const response = await put(bob, 'switchable_probe', body);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('invalid_request');
  });

  test("user B never sees or changes user A's settings", async () => {
    await put(alice, 'switchable_probe', '{"parameters":{"limit":7}}');
    expect(await toolOf(bob, 'switchable_probe')).toMatchObject({
      enabled: true,
      parameters: { limit: 10 },
      updatedAt: null,
    });
    await put(bob, 'switchable_probe', '{"parameters":{"limit":99}}');
    expect((await toolOf(alice, 'switchable_probe'))?.parameters.limit).toBe(7);
    expect((await toolOf(bob, 'switchable_probe'))?.parameters.limit).toBe(99);
  });

  test('a corrupt stored row still runs the tool on defaults and keeps the enabled choice', async () => {
    const { database } = current();
    const carol = await app.signUp();
    await put(carol, 'switchable_probe', '{"enabled":false}');
    await put(carol, 'always_on_probe', '{"parameters":{"limit":5}}');
    // PostgreSQL's jsonb cannot hold malformed JSON; there the worst case is a
    // document of the wrong shape.
    const broken = kind === 'sqlite' ? '{"limit": 5' : '["limit", 5]';
    await sql`update user_tool_settings set parameters = ${broken} where user_id = ${carol.id} and tool_name = 'switchable_probe'`.execute(
      database.db,
    );
    const outOfRange = '{"limit": 100000, "mode": "slow"}';
    await sql`update user_tool_settings set parameters = ${outOfRange} where user_id = ${carol.id} and tool_name = 'always_on_probe'`.execute(
      database.db,
    );

    const tools = await list(carol);
    expect(tools.find((tool) => tool.name === 'switchable_probe')).toMatchObject({
      enabled: false,
      parameters: { limit: 10, mode: 'fast' },
    });
    // Out of range is clamped; a value outside the options falls back to the default.
    expect(tools.find((tool) => tool.name === 'always_on_probe')).toMatchObject({
      enabled: true,
      parameters: { limit: 100, mode: 'fast' },
    });

    const saved = await app.services.toolSettings.loadSavedToolSettings(carol.id);
    const context = {
      userId: carol.id,
      chatId: 'chat',
      mode: 'chat' as const,
      restrictToWorkingDirectory: false,
      freshness: createMemoryFreshnessLedger(),
    };
    expect(
      await executeTool('always_on_probe', {}, context, saved.get('always_on_probe'), {
        registry,
      }),
    ).toEqual({ parameters: { limit: 100, mode: 'fast' } });
    await expect(
      executeTool('switchable_probe', {}, context, saved.get('switchable_probe'), { registry }),
    ).rejects.toMatchObject({ code: 'tool_disabled' });

    // A later valid change repairs the row.
    const repaired = await put(
      carol,
      'switchable_probe',
      '{"enabled":true,"parameters":{"limit":3}}',
    );
    expect(await repaired.json()).toMatchObject({
      enabled: true,
      parameters: { limit: 3, mode: 'fast' },
    });
  });

  test('50 concurrent PUTs: no error, one row, holding one of the values', async () => {
    const dave = await app.signUp();
    const values = Array.from({ length: 50 }, (_, index) => index + 1);
    const responses = await Promise.all(
      values.map((limit) =>
        put(dave, 'switchable_probe', JSON.stringify({ parameters: { limit } })),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(values.map(() => 200));
    const rows = await current()
      .database.db.selectFrom('user_tool_settings')
      .select('tool_name')
      .where('user_id', '=', dave.id)
      .execute();
    expect(rows).toHaveLength(1);
    const final = (await toolOf(dave, 'switchable_probe'))?.parameters.limit;
    expect(values).toContain(final as number);
  });

  test('a restart keeps every setting', async () => {
    const erin = await app.signUp();
    await put(
      erin,
      'switchable_probe',
      '{"enabled":false,"parameters":{"limit":64,"mode":"thorough"}}',
    );
    await put(erin, 'get_current_datetime', '{"parameters":{"defaultTimezone":"Asia/Tokyo"}}');
    const before = await list(erin);

    const reopened = openDatabase(current().config);
    const restarted = startTestApp(reopened, { toolRegistry: registry });
    try {
      const response = await restarted.fetch('/api/settings/tools', { user: erin });
      expect(response.status).toBe(200);
      expect(((await response.json()) as ToolSettingsListResponse).tools).toEqual(before);
    } finally {
      await restarted.stop();
      await reopened.close();
    }
  });
});
