import { afterAll, beforeAll, expect, test } from 'bun:test';
import { getMigrations as getBetterAuthMigrations } from 'better-auth/db/migration';
import { buildAuthOptions } from '../../../src/auth/create-auth';
import {
  cookieFrom,
  startTestApp,
  TEST_AUTH_SECRET,
  TEST_PASSWORD,
  type TestApp,
} from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const json = { 'content-type': 'application/json' };

describeEachDatabase('accounts', (_kind, current) => {
  let app: TestApp;
  beforeAll(() => {
    app = startTestApp(current().database, { allowSignup: false });
  });
  afterAll(() => app.stop());

  test("the migrated schema is exactly what better-auth's own planner expects", async () => {
    const { database } = current();
    const plan = await getBetterAuthMigrations(
      buildAuthOptions({ database, secret: TEST_AUTH_SECRET, allowSignup: false }),
    );
    expect(plan.toBeCreated).toEqual([]);
    expect(plan.toBeAdded).toEqual([]);
    expect(plan.schemaProblems).toEqual([]);
  });

  test('the first account signs up even with sign-up closed, and is the admin', async () => {
    const admin = await app.signUp('admin@example.test');
    const row = await current()
      .database.db.selectFrom('users')
      .select(['role', 'email'])
      .where('id', '=', admin.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ role: 'admin', email: 'admin@example.test' });
  });

  test('with sign-up closed, a second account is refused with a message saying why', async () => {
    const response = await app.fetch('/api/auth/sign-up/email', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        email: 'second@example.test',
        password: TEST_PASSWORD,
        name: 'Second',
      }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: {
        code: 'signup_disabled',
        message: expect.stringContaining('MANGO_ALLOW_SIGNUP'),
        retryable: false,
      },
    });
  });

  test('signing in with the password gives a session that routes accept', async () => {
    const response = await app.fetch('/api/auth/sign-in/email', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'admin@example.test', password: TEST_PASSWORD }),
    });
    expect(response.status).toBe(200);
    const cookie = cookieFrom(response);
    expect(cookie).toContain('session_token=');
    const session = await app.fetch('/api/auth/get-session', { headers: { cookie } });
    expect((await session.json()).user.email).toBe('admin@example.test');
    const wrong = await app.fetch('/api/auth/sign-in/email', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'admin@example.test', password: 'not the password' }),
    });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).error.code).toBe('invalid_email_or_password');
  });

  test('an API key created by a signed-in user works as a bearer token; a wrong one does not', async () => {
    const signIn = await app.fetch('/api/auth/sign-in/email', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'admin@example.test', password: TEST_PASSWORD }),
    });
    const cookie = cookieFrom(signIn);
    const created = await app.fetch('/api/auth/api-key/create', {
      method: 'POST',
      headers: { ...json, cookie },
      body: JSON.stringify({ name: 'script' }),
    });
    expect(created.status).toBe(200);
    const { key } = (await created.json()) as { key: string };
    expect(key.startsWith('mango_')).toBe(true);

    const user = await app.auth.authenticate(new Headers({ authorization: `Bearer ${key}` }));
    expect(user).toMatchObject({ email: 'admin@example.test', role: 'admin' });
    expect(
      await app.auth.authenticate(new Headers({ authorization: 'Bearer mango_wrong' })),
    ).toBeNull();
    expect(await app.auth.authenticate(new Headers())).toBeNull();
  });

  test('requests that miss the credential cache together share one verification of the key', async () => {
    const signIn = await app.fetch('/api/auth/sign-in/email', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'admin@example.test', password: TEST_PASSWORD }),
    });
    const created = await app.fetch('/api/auth/api-key/create', {
      method: 'POST',
      headers: { ...json, cookie: cookieFrom(signIn) },
      body: JSON.stringify({ name: 'burst' }),
    });
    const { key } = (await created.json()) as { key: string };
    // Counts better-auth's verifications (each a read of the key and two updates of it).
    const api = app.auth.api as unknown as { verifyApiKey: (...args: unknown[]) => unknown };
    const verifyApiKey = api.verifyApiKey;
    let verifications = 0;
    api.verifyApiKey = (...args) => {
      verifications += 1;
      return verifyApiKey(...args);
    };
    try {
      const burst = await Promise.all(
        Array.from({ length: 20 }, () =>
          app.auth.authenticate(new Headers({ authorization: `Bearer ${key}` })),
        ),
      );
      expect(burst.map((user) => user?.email)).toEqual(
        Array.from({ length: 20 }, () => 'admin@example.test'),
      );
      expect(verifications).toBe(1);
    } finally {
      api.verifyApiKey = verifyApiKey;
    }
  });

  test('after signing out, the old session cookie is refused at once', async () => {
    const signIn = await app.fetch('/api/auth/sign-in/email', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'admin@example.test', password: TEST_PASSWORD }),
    });
    const cookie = cookieFrom(signIn);
    // Verified (and remembered) once...
    expect((await app.fetch('/api/settings/tools', { headers: { cookie } })).status).not.toBe(401);
    const signOut = await app.fetch('/api/auth/sign-out', {
      method: 'POST',
      headers: { ...json, cookie, origin: app.url },
      body: '{}',
    });
    expect(signOut.status).toBe(200);
    // ...and forgotten when the session ends.
    expect((await app.fetch('/api/settings/tools', { headers: { cookie } })).status).toBe(401);
  });

  test('every other /api route answers 401 in the error format without a user', async () => {
    for (const path of ['/api/settings/tools', '/api/chats', '/api/openapi', '/api/anything']) {
      const response = await app.fetch(path);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: {
          code: 'unauthorized',
          message: expect.stringContaining('Authorization: Bearer'),
          retryable: false,
        },
      });
    }
    const badKey = await app.fetch('/api/settings/tools', {
      headers: { authorization: 'Bearer mango_not_a_key' },
    });
    expect(badKey.status).toBe(401);
  });
});

describeEachDatabase('accounts with sign-up open', (_kind, current) => {
  test('later accounts sign up as plain users', async () => {
    const app = startTestApp(current().database, { allowSignup: true });
    try {
      const first = await app.signUp();
      const second = await app.signUp();
      const roles = await current()
        .database.db.selectFrom('users')
        .select(['id', 'role'])
        .where('id', 'in', [first.id, second.id])
        .execute();
      expect(Object.fromEntries(roles.map((row) => [row.id, row.role]))).toEqual({
        [first.id]: 'admin',
        [second.id]: 'user',
      });
    } finally {
      await app.stop();
    }
  });

  test('concurrent sign-ups on an empty server produce exactly one admin', async () => {
    const { database } = current();
    await database.db.deleteFrom('users').execute();
    const app = startTestApp(database, { allowSignup: true });
    try {
      await Promise.all(Array.from({ length: 5 }, () => app.signUp()));
      const admins = await database.db
        .selectFrom('users')
        .select('id')
        .where('role', '=', 'admin')
        .execute();
      expect(admins).toHaveLength(1);
    } finally {
      await app.stop();
    }
  });
});
