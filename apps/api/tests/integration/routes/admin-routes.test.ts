/**
 * The admin API (docs/http-api.md#administration) over HTTP, on two instances
 * sharing one database with sign-up closed: only admins get in, accounts are
 * created, disabled (sessions and keys refused on every instance), enabled
 * and given new passwords, and an invite lets exactly one person sign up.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { AdminUser, AdminUserWithPassword, CreatedInvite } from '@mango/shared';
import { type AppDatabase, openDatabase } from '../../../src/db/database';
import {
  cookieFrom,
  startTestApp,
  TEST_PASSWORD,
  type TestApp,
  type TestUser,
} from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';
import { waitUntil } from '../../support/wait-until';

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describeEachDatabase('admin routes', (_kind, current) => {
  let here: TestApp;
  let there: TestApp;
  let thereDatabase: AppDatabase;
  let admin: TestUser;

  beforeAll(async () => {
    here = startTestApp(current().database, { allowSignup: false });
    thereDatabase = openDatabase(current().config);
    there = startTestApp(thereDatabase, { allowSignup: false });
    admin = await here.signUp();
    expect(
      await waitUntil(
        async () => current().database.changes.isLive() && thereDatabase.changes.isLive(),
      ),
    ).toBe(true);
  });
  afterAll(async () => {
    await there.stop();
    await here.stop();
    await thereDatabase.close();
  });

  const signIn = async (app: TestApp, email: string, password: string) => {
    const response = await app.fetch('/api/auth/sign-in/email', json('POST', { email, password }));
    return { status: response.status, response, cookie: cookieFrom(response) };
  };
  const createUser = async (body: Record<string, unknown>) => {
    const response = await here.fetch('/api/admin/users', { ...json('POST', body), user: admin });
    expect(response.status).toBe(201);
    return (await response.json()) as AdminUserWithPassword;
  };
  const signedIn = async (email: string, password = TEST_PASSWORD): Promise<TestUser> => {
    const { status, response, cookie } = await signIn(here, email, password);
    expect(status).toBe(200);
    const body = (await response.json()) as { user: { id: string } };
    return { id: body.user.id, email, cookie };
  };

  describe('who may', () => {
    test('a non-admin gets 403 on every admin route, no session 401', async () => {
      const { user } = await createUser({ email: 'plain@example.test', password: TEST_PASSWORD });
      const plain = await signedIn(user.email);
      const calls: [string, string, unknown?][] = [
        ['GET', '/api/admin/users'],
        ['POST', '/api/admin/users', { email: 'x@example.test' }],
        ['PATCH', `/api/admin/users/${admin.id}`, { disabled: true }],
        ['POST', `/api/admin/users/${admin.id}/password`, { password: 'taken over!' }],
        ['GET', '/api/admin/invites'],
        ['POST', '/api/admin/invites', {}],
        ['GET', `/api/admin/users/${admin.id}/roots`],
        ['PUT', `/api/admin/users/${plain.id}/roots`, { roots: ['/'] }],
      ];
      for (const [method, path, body] of calls) {
        const init = body === undefined ? { method } : json(method, body);
        const refused = await here.fetch(path, { ...init, user: plain });
        expect(refused.status).toBe(403);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
          'forbidden',
        );
        expect((await here.fetch(path, init)).status).toBe(401);
      }
      // Nothing was done: the admin still signs in with the old password.
      expect((await signIn(here, admin.email, TEST_PASSWORD)).status).toBe(200);
    });
  });

  describe('accounts', () => {
    test('an admin lists accounts and creates one while sign-up is closed, with a generated password', async () => {
      const created = await createUser({ email: 'Carol@Example.test', name: 'Carol' });
      expect(created.user).toMatchObject({
        email: 'carol@example.test',
        name: 'Carol',
        role: 'user',
        disabled: false,
      });
      expect(created.generatedPassword?.length).toBeGreaterThanOrEqual(32);
      // The admin's creation signed nobody in.
      const sessions = await current()
        .database.db.selectFrom('sessions')
        .select('id')
        .where('user_id', '=', created.user.id)
        .execute();
      expect(sessions).toEqual([]);
      expect(
        (await signIn(there, 'carol@example.test', created.generatedPassword ?? '')).status,
      ).toBe(200);

      const list = await here.fetch('/api/admin/users', { user: admin });
      const users = ((await list.json()) as { users: AdminUser[] }).users;
      expect(users[0]).toMatchObject({ id: admin.id, role: 'admin', disabled: false });
      expect(users.map((user) => user.email)).toContain('carol@example.test');

      const again = await here.fetch('/api/admin/users', {
        ...json('POST', { email: 'carol@example.test' }),
        user: admin,
      });
      expect(again.status).toBe(409);
      const short = await here.fetch('/api/admin/users', {
        ...json('POST', { email: 'dan@example.test', password: 'short' }),
        user: admin,
      });
      expect(short.status).toBe(422);
      expect(((await short.json()) as { error: { message: string } }).error.message).toContain(
        '8 to 128 characters',
      );
    });

    test('disabling an account stops its sessions and API keys at once on every instance; enabling brings the keys back', async () => {
      const { user } = await createUser({ email: 'erin@example.test', password: TEST_PASSWORD });
      const erin = await signedIn(user.email);
      const keyResponse = await here.fetch('/api/auth/api-key/create', {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: erin.cookie, origin: here.url },
        body: JSON.stringify({ name: 'script' }),
      });
      const { key } = (await keyResponse.json()) as { key: string };
      const bearer = { authorization: `Bearer ${key}` };
      // Both instances have verified (and cached) both credentials.
      for (const app of [here, there]) {
        expect((await app.fetch('/api/chats', { user: erin })).status).toBe(200);
        expect((await app.fetch('/api/chats', { headers: bearer })).status).toBe(200);
      }

      const disabled = await here.fetch(`/api/admin/users/${user.id}`, {
        ...json('PATCH', { disabled: true }),
        user: admin,
      });
      expect(disabled.status).toBe(200);
      expect(((await disabled.json()) as AdminUser).disabled).toBe(true);
      expect((await here.fetch('/api/chats', { user: erin })).status).toBe(401);
      expect((await here.fetch('/api/chats', { headers: bearer })).status).toBe(401);
      // The other instance hears of it through the change feed, long before its 30 s cache ends.
      expect(
        await waitUntil(
          async () => (await there.fetch('/api/chats', { headers: bearer })).status === 401,
        ),
      ).toBe(true);
      expect((await there.fetch('/api/chats', { user: erin })).status).toBe(401);

      const refused = await signIn(there, user.email, TEST_PASSWORD);
      expect(refused.status).toBe(403);
      expect(((await refused.response.json()) as { error: { code: string } }).error.code).toBe(
        'account_disabled',
      );

      const enabled = await there.fetch(`/api/admin/users/${user.id}`, {
        ...json('PATCH', { disabled: false }),
        user: admin,
      });
      expect(((await enabled.json()) as AdminUser).disabled).toBe(false);
      expect((await here.fetch('/api/chats', { headers: bearer })).status).toBe(200);
      // The sessions were deleted, not suspended: Erin signs in again.
      expect((await here.fetch('/api/chats', { user: erin })).status).toBe(401);
      expect((await signIn(here, user.email, TEST_PASSWORD)).status).toBe(200);
    });

    test('an admin cannot disable themselves, and the last admin cannot be demoted', async () => {
      const self = await here.fetch(`/api/admin/users/${admin.id}`, {
        ...json('PATCH', { disabled: true }),
        user: admin,
      });
      expect(self.status).toBe(409);
      const demote = await here.fetch(`/api/admin/users/${admin.id}`, {
        ...json('PATCH', { role: 'user' }),
        user: admin,
      });
      expect(demote.status).toBe(409);
      expect(((await demote.json()) as { error: { message: string } }).error.message).toContain(
        'last enabled admin',
      );
      // With a second admin, the first may step down.
      const { user } = await createUser({
        email: 'second-admin@example.test',
        password: TEST_PASSWORD,
        role: 'admin',
      });
      const second = await signedIn(user.email);
      expect((await here.fetch('/api/admin/users', { user: second })).status).toBe(200);
      const demoted = await here.fetch(`/api/admin/users/${user.id}`, {
        ...json('PATCH', { role: 'user' }),
        user: admin,
      });
      expect(((await demoted.json()) as AdminUser).role).toBe('user');
      expect((await here.fetch('/api/admin/users', { user: second })).status).toBe(403);
      expect(
        (await here.fetch('/api/admin/users/nope', { ...json('PATCH', {}), user: admin })).status,
      ).toBe(404);
    });

    test('a password reset signs the user out everywhere; the old password stops working', async () => {
      const { user } = await createUser({ email: 'frank@example.test', password: TEST_PASSWORD });
      const frank = await signedIn(user.email);
      expect((await there.fetch('/api/chats', { user: frank })).status).toBe(200);
      const reset = await here.fetch(`/api/admin/users/${user.id}/password`, {
        ...json('POST', {}),
        user: admin,
      });
      expect(reset.status).toBe(200);
      const { generatedPassword } = (await reset.json()) as AdminUserWithPassword;
      expect(generatedPassword).toBeString();
      expect(
        await waitUntil(
          async () => (await there.fetch('/api/chats', { user: frank })).status === 401,
        ),
      ).toBe(true);
      expect((await signIn(here, user.email, TEST_PASSWORD)).status).toBe(401);
      expect((await signIn(here, user.email, generatedPassword ?? '')).status).toBe(200);
      const chosen = await here.fetch(`/api/admin/users/${user.id}/password`, {
        ...json('POST', { password: 'a chosen passphrase' }),
        user: admin,
      });
      expect(((await chosen.json()) as AdminUserWithPassword).generatedPassword).toBeUndefined();
      expect((await signIn(there, user.email, 'a chosen passphrase')).status).toBe(200);
    });
  });

  describe('invites', () => {
    const signUp = (body: Record<string, unknown>, token?: string) =>
      here.fetch('/api/auth/sign-up/email', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { 'x-invite-token': token } : {}),
        },
        body: JSON.stringify({ password: TEST_PASSWORD, name: 'Invited', ...body }),
      });
    const invite = async (body: Record<string, unknown>) => {
      const response = await here.fetch('/api/admin/invites', {
        ...json('POST', body),
        user: admin,
      });
      expect(response.status).toBe(201);
      return (await response.json()) as CreatedInvite;
    };

    test('an invite lets one person sign up while sign-up is closed, once', async () => {
      expect((await signUp({ email: 'gina@example.test' })).status).toBe(403);
      const { token, invite: made } = await invite({ email: 'gina@example.test' });
      expect(made).toMatchObject({ email: 'gina@example.test', createdBy: admin.id, usedAt: null });

      const wrongEmail = await signUp({ email: 'someone-else@example.test' }, token);
      expect(wrongEmail.status).toBe(403);
      expect(((await wrongEmail.json()) as { error: { code: string } }).error.code).toBe(
        'invalid_invite',
      );
      const accepted = await signUp({ email: 'gina@example.test' }, token);
      expect(accepted.status).toBe(200);
      const gina = ((await accepted.json()) as { user: { id: string } }).user;
      const row = await current()
        .database.db.selectFrom('users')
        .select('role')
        .where('id', '=', gina.id)
        .executeTakeFirstOrThrow();
      expect(row.role).toBe('user');

      const reused = await signUp({ email: 'gina2@example.test' }, token);
      expect(reused.status).toBe(403);
      expect(((await reused.json()) as { error: { message: string } }).error.message).toContain(
        'used already',
      );
      const list = await here.fetch('/api/admin/invites', { user: admin });
      const listed = ((await list.json()) as { invites: CreatedInvite['invite'][] }).invites;
      expect(listed.find((entry) => entry.id === made.id)).toMatchObject({ usedBy: gina.id });
      // The token is stored only as its hash.
      const stored = await current()
        .database.db.selectFrom('invites')
        .select('token_hash')
        .where('id', '=', made.id)
        .executeTakeFirstOrThrow();
      expect(stored.token_hash).not.toContain(token);
    });

    test('an unbound invite takes any address; an expired or unknown one is refused', async () => {
      const { token } = await invite({});
      expect((await signUp({ email: 'hank@example.test' }, token)).status).toBe(200);
      const { token: late, invite: lateInvite } = await invite({ expiresInHours: 1 });
      await current()
        .database.db.updateTable('invites')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', lateInvite.id)
        .execute();
      const expired = await signUp({ email: 'ivy@example.test' }, late);
      expect(expired.status).toBe(403);
      expect(((await expired.json()) as { error: { message: string } }).error.message).toContain(
        'expired',
      );
      expect((await signUp({ email: 'ivy@example.test' }, 'mango_invite_guess')).status).toBe(403);
    });
  });
});
