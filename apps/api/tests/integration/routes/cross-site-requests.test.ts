/**
 * Cross-site requests (docs/security.md#cross-site-requests): a state-changing
 * request that carries a session cookie and names another site's page in
 * `Origin` is refused with 403 before it changes anything; the server's own
 * pages, configured origins, safe methods and clients that send no `Origin`
 * (scripts) are not concerned.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Chat } from '@mango/shared';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const TRUSTED = 'https://app.example.test';

describeEachDatabase('cross-site requests', (_kind, current) => {
  let app: TestApp;
  let alice: TestUser;
  beforeAll(async () => {
    app = startTestApp(current().database, { trustedOrigins: [TRUSTED] });
    alice = await app.signUp();
  });
  afterAll(() => app.stop());

  const createChat = (origin: string | undefined, title: string) =>
    app.fetch('/api/chats', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(origin === undefined ? {} : { origin }),
      },
      body: JSON.stringify({ title }),
      user: alice,
    });
  const titles = async () => {
    const response = await app.fetch('/api/chats', {
      user: alice,
      headers: { origin: 'https://evil.example' },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { chats: Chat[] }).chats.map((chat) => chat.title);
  };

  test('a cookie-authenticated POST from another site is refused and changes nothing', async () => {
    for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:1`]) {
      const refused = await createChat(origin, `from ${origin}`);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    }
    expect(await titles()).toEqual([]);
  });

  test('the server’s own pages, a configured origin and clients without Origin may', async () => {
    const own = new URL(app.url).origin;
    expect((await createChat(own, 'own page')).status).toBe(201);
    expect((await createChat(TRUSTED, 'trusted page')).status).toBe(201);
    expect((await createChat(undefined, 'script')).status).toBe(201);
    expect((await titles()).sort()).toEqual(['own page', 'script', 'trusted page']);
  });

  test('DELETE and sign-out from another site are refused too; without a cookie the check does not apply', async () => {
    const chat = (await (await createChat(undefined, 'kept')).json()) as Chat;
    const deleted = await app.fetch(`/api/chats/${chat.id}`, {
      method: 'DELETE',
      headers: { origin: 'https://evil.example' },
      user: alice,
    });
    expect(deleted.status).toBe(403);
    expect(await titles()).toContain('kept');
    const signOut = await app.fetch('/api/auth/sign-out', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{}',
      user: alice,
    });
    expect(signOut.status).toBe(403);
    // Still signed in.
    expect((await app.fetch('/api/chats', { user: alice })).status).toBe(200);
    // No cookie: not a browser session, so the usual 401.
    const anonymous = await app.fetch('/api/chats', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(anonymous.status).toBe(401);
  });
});
