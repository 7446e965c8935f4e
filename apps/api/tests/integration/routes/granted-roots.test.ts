/**
 * System tools are granted, not assumed (docs/security.md#system-tools-are-granted), over real
 * HTTP on both databases: a non-admin has no file tools until an admin grants
 * a root, and then reaches only inside it (symbolic links followed); an agent
 * chat needs a working directory inside the user's roots and outside the data
 * directory; the admin reaches anywhere but the data directory; the roots
 * routes are the admins' alone.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { realpathSync } from 'node:fs';
import type {
  Chat,
  ChatCapabilities,
  GrantedRoots,
  ToolSettingsListResponse,
  TurnStreamEvent,
} from '@mango/shared';
import { openDatabase } from '../../../src/db/database';
import { createGrantedRoots } from '../../../src/services/admin/granted-roots';
import '../../../src/services/tools';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import { NO_GRANTED_ROOTS_REASON } from '../../../src/services/tools/host-access';
import { callTool, say, useFakeProviderServer } from '../../support/fake-provider';
import { readTurnEvents } from '../../support/sse-client';
import { createTempTree, type TempTree } from '../../support/temp-tree';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';
import { waitUntil } from '../../support/wait-until';

const fake = useFakeProviderServer();
let tree: TempTree;
beforeAll(() => {
  tree = createTempTree('mango-granted-roots', {
    'granted/notes.txt': 'inside the grant\n',
    'granted/sub/deep.txt': 'deep\n',
    'granted/link-out': { link: '../elsewhere/secret.txt' },
    'elsewhere/secret.txt': 'not granted\n',
    'data/mango.db': 'the database\n',
  });
});
afterAll(() => tree.remove());

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describeEachDatabase('granted roots', (_kind, current) => {
  let app: TestApp;
  let admin: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    const providers = createProviderRegistry({
      openai: { baseURL: fake.baseUrl('openai'), apiKey: 'test-key', maxRetries: 0 },
    });
    app = startTestApp(current().database, { providers, protectedPaths: [tree.at('data')] });
    // The first account is the admin; the second is an ordinary user.
    admin = await app.signUp();
    bob = await app.signUp();
  });
  afterAll(() => app.stop());

  const grant = async (user: TestUser, roots: string[]) => {
    const response = await app.fetch(`/api/admin/users/${user.id}/roots`, {
      ...json('PUT', { roots }),
      user: admin,
    });
    expect(response.status).toBe(200);
    return (await response.json()) as GrantedRoots;
  };
  const createChat = (user: TestUser, body: Record<string, unknown>) =>
    app.fetch('/api/chats', { ...json('POST', body), user });
  const errorOf = async (response: Response) =>
    ((await response.json()) as { error: { code: string; message: string } }).error;
  const toolState = async (user: TestUser, name: string) => {
    const response = await app.fetch('/api/settings/tools', { user });
    const { tools } = (await response.json()) as ToolSettingsListResponse;
    return tools.find((tool) => tool.name === name);
  };
  /** Runs one turn in which the model calls `tool` (read_file on `path` by default); returns the tool result. */
  const readThroughTurn = async (
    user: TestUser,
    chat: Chat,
    path: string,
    call: [string, Record<string, unknown>] = ['read_file', { path }],
  ) => {
    fake.enqueue('openai', callTool(...call), say('done'));
    const response = await app.fetch(`/api/chats/${chat.id}/turns`, {
      ...json('POST', { content: 'read it' }),
      user,
    });
    expect(response.status).toBe(200);
    const events = await readTurnEvents(response);
    fake.requests('openai');
    const result = events.find(
      (event): event is Extract<TurnStreamEvent, { type: 'tool_result' }> =>
        event.type === 'tool_result',
    );
    expect(result).toBeDefined();
    return result as Extract<TurnStreamEvent, { type: 'tool_result' }>;
  };

  test('the roots routes are for admins: others get 403, bad roots 422, unknown users 404', async () => {
    expect((await app.fetch(`/api/admin/users/${bob.id}/roots`, { user: bob })).status).toBe(403);
    expect(
      (
        await app.fetch(`/api/admin/users/${bob.id}/roots`, {
          ...json('PUT', { roots: [tree.root] }),
          user: bob,
        })
      ).status,
    ).toBe(403);
    const none = await app.fetch(`/api/admin/users/${bob.id}/roots`, { user: admin });
    expect(await none.json()).toEqual({ roots: [] });
    for (const root of [
      'relative/dir',
      tree.at('missing'),
      tree.at('granted/notes.txt'),
      tree.at('data'),
    ]) {
      const refused = await app.fetch(`/api/admin/users/${bob.id}/roots`, {
        ...json('PUT', { roots: [root] }),
        user: admin,
      });
      expect(refused.status).toBe(422);
      expect((await errorOf(refused)).code).toBe('validation_failed');
    }
    const unknown = await app.fetch('/api/admin/users/no-such-user/roots', { user: admin });
    expect(unknown.status).toBe(404);
    // Nothing was stored by the refused calls.
    expect(
      await (await app.fetch(`/api/admin/users/${bob.id}/roots`, { user: admin })).json(),
    ).toEqual({
      roots: [],
    });
  });

  test('without a granted root a non-admin has no system tools: listed unavailable with the reason, and refused in a turn', async () => {
    await grant(bob, []);
    const read = await toolState(bob, 'read_file');
    expect(read?.unavailableReason).toBe(NO_GRANTED_ROOTS_REASON);
    expect((await toolState(bob, 'write_file'))?.unavailableReason).toBe(NO_GRANTED_ROOTS_REASON);
    // A tool that does not touch the machine stays.
    expect((await toolState(bob, 'get_current_datetime'))?.unavailableReason).toBeUndefined();
    // The admin needs no grant.
    expect((await toolState(admin, 'read_file'))?.unavailableReason).toBeUndefined();

    const created = await createChat(bob, { model: 'openai:gpt-5' });
    expect(created.status).toBe(201);
    const chat = (await created.json()) as Chat;
    // The chat says what applies: no containment in chat mode.
    expect(chat.restrictToWorkingDirectory).toBe(false);
    const inspector = await app.fetch(`/api/chats/${chat.id}/capabilities`, { user: bob });
    const capabilities = (await inspector.json()) as ChatCapabilities;
    expect(capabilities.tools.find((tool) => tool.name === 'read_file')).toMatchObject({
      state: 'unavailable',
      reason: NO_GRANTED_ROOTS_REASON,
    });

    const result = await readThroughTurn(bob, chat, '/etc/hostname');
    expect(result.isError).toBe(true);
    expect(result.content).toContain('tool_unavailable');
  });

  test('with a granted root a non-admin reads inside it only; a link out of it is refused', async () => {
    expect(await grant(bob, [tree.at('granted')])).toEqual({ roots: [tree.at('granted')] });
    expect((await toolState(bob, 'read_file'))?.unavailableReason).toBeUndefined();
    const chat = (await (await createChat(bob, { model: 'openai:gpt-5' })).json()) as Chat;

    const inside = await readThroughTurn(bob, chat, tree.at('granted/notes.txt'));
    expect(inside.isError).toBe(false);
    expect(inside.content).toContain('inside the grant');

    // A walk without a directory starts in the first granted root, and stays inside it.
    const globbed = await readThroughTurn(bob, chat, '', ['glob', { pattern: '**/*.txt' }]);
    expect(globbed.isError).toBe(false);
    expect(JSON.parse(globbed.content).matches.sort()).toEqual([
      tree.at('granted/notes.txt'),
      tree.at('granted/sub/deep.txt'),
    ]);

    for (const path of [
      '/etc/hostname',
      tree.at('elsewhere/secret.txt'),
      tree.at('granted/link-out'),
    ]) {
      const outside = await readThroughTurn(bob, chat, path);
      expect(outside.isError).toBe(true);
      expect(outside.content).toContain('permission_denied');
      expect(outside.content).not.toContain('not granted');
    }
  });

  test('an agent chat needs a working directory inside the roots and outside the data directory', async () => {
    await grant(bob, [tree.at('granted')]);
    const missing = await createChat(bob, { mode: 'agent' });
    expect(missing.status).toBe(422);
    expect(await errorOf(missing)).toMatchObject({ code: 'validation_failed' });

    const outside = await createChat(bob, {
      mode: 'agent',
      workingDirectory: tree.at('elsewhere'),
    });
    expect(outside.status).toBe(403);
    expect((await errorOf(outside)).code).toBe('forbidden');

    // The data directory is refused to everyone, the admin too.
    const data = await createChat(admin, { mode: 'agent', workingDirectory: tree.at('data') });
    expect(data.status).toBe(403);

    const inside = await createChat(bob, {
      mode: 'agent',
      workingDirectory: tree.at('granted/sub'),
    });
    expect(inside.status).toBe(201);
    const chat = (await inside.json()) as Chat;
    expect(chat).toMatchObject({ mode: 'agent', restrictToWorkingDirectory: true });

    // Changing a chat follows the same rules.
    const plain = (await (await createChat(bob, {})).json()) as Chat;
    const toAgent = await app.fetch(`/api/chats/${plain.id}`, {
      ...json('PATCH', { mode: 'agent' }),
      user: bob,
    });
    expect(toAgent.status).toBe(422);
    const unbind = await app.fetch(`/api/chats/${chat.id}`, {
      ...json('PATCH', { workingDirectory: null }),
      user: bob,
    });
    expect(unbind.status).toBe(422);
    const moveOut = await app.fetch(`/api/chats/${chat.id}`, {
      ...json('PATCH', { workingDirectory: tree.at('elsewhere') }),
      user: bob,
    });
    expect(moveOut.status).toBe(403);

    // The admin may bind any directory but the data directory.
    const anywhere = await createChat(admin, {
      mode: 'agent',
      workingDirectory: tree.at('elsewhere'),
    });
    expect(anywhere.status).toBe(201);
  });

  test('revoking the roots takes the tools away at once, here and on another instance', async () => {
    const thereDatabase = openDatabase(current().config);
    const there = startTestApp(thereDatabase, { protectedPaths: [tree.at('data')] });
    try {
      expect(await waitUntil(async () => thereDatabase.changes.isLive())).toBe(true);
      const stateThere = async () => {
        const response = await there.fetch('/api/settings/tools', { user: bob });
        const { tools } = (await response.json()) as ToolSettingsListResponse;
        return tools.find((tool) => tool.name === 'read_file')?.unavailableReason;
      };
      await grant(bob, [tree.at('granted')]);
      expect((await toolState(bob, 'read_file'))?.unavailableReason).toBeUndefined();
      expect(await waitUntil(async () => (await stateThere()) === undefined)).toBe(true);
      await grant(bob, []);
      expect((await toolState(bob, 'read_file'))?.unavailableReason).toBe(NO_GRANTED_ROOTS_REASON);
      expect(
        await waitUntil(async () => (await stateThere()) === NO_GRANTED_ROOTS_REASON, 5_000),
      ).toBe(true);
    } finally {
      await there.stop();
      await thereDatabase.close();
    }
  });

  test('a role change moves the boundary at once: an admin needs no root, a user again does', async () => {
    await grant(bob, []);
    const promote = (role: 'admin' | 'user') =>
      app.fetch(`/api/admin/users/${bob.id}`, { ...json('PATCH', { role }), user: admin });
    expect((await promote('admin')).status).toBe(200);
    expect((await toolState(bob, 'read_file'))?.unavailableReason).toBeUndefined();
    expect((await promote('user')).status).toBe(200);
    expect((await toolState(bob, 'read_file'))?.unavailableReason).toBe(NO_GRANTED_ROOTS_REASON);
  });

  test("a user's host access is known in memory once read, and forgotten when the roots change", async () => {
    const roots = createGrantedRoots({ database: current().database });
    expect(await waitUntil(() => current().database.changes.isLive(), 5_000)).toBe(true);
    expect(roots.knownHostAccess(bob.id)).toBeUndefined();
    const read = await roots.hostAccess(bob.id);
    expect(roots.knownHostAccess(bob.id)).toBe(read);
    await roots.replace(bob.id, [tree.at('granted')]);
    expect(roots.knownHostAccess(bob.id)).toBeUndefined();
    expect(await roots.hostAccess(bob.id)).toEqual({
      kind: 'granted',
      roots: [realpathSync(tree.at('granted'))],
    });
    await roots.replace(bob.id, []);
  });
});
