/**
 * Two API instances on one database, each caching the credentials it
 * verified: a sign-out or a deleted API key handled by one instance is refused
 * by the other as soon as the change feed's signal arrives (in-process on
 * SQLite, LISTEN/NOTIFY on PostgreSQL), not after the cache's 30 s.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { type AppDatabase, openDatabase } from '../../../src/db/database';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';
import { waitUntil } from '../../support/wait-until';

describeEachDatabase('revoking a credential on one instance', (_kind, current) => {
  let here: TestApp;
  let there: TestApp;
  let thereDatabase: AppDatabase;
  let user: TestUser;
  beforeAll(async () => {
    here = startTestApp(current().database, { allowSignup: true });
    // A second instance: its own connections (and, on PostgreSQL, its own LISTEN connection).
    thereDatabase = openDatabase(current().config);
    there = startTestApp(thereDatabase, { allowSignup: true });
    user = await here.signUp();
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

  const statusOn = async (app: TestApp, headers: Record<string, string>) =>
    (await app.fetch('/api/settings/tools', { headers })).status;

  test('a sign-out on one instance ends the session on the other well before the cache would', async () => {
    const cookie = { cookie: user.cookie };
    expect(await statusOn(there, cookie)).toBe(200);
    expect(await statusOn(there, cookie)).toBe(200);
    const signOut = await here.fetch('/api/auth/sign-out', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: user.cookie, origin: here.url },
      body: '{}',
    });
    expect(signOut.status).toBe(200);
    // waitUntil gives up after 3 s, a tenth of the cache's 30 s (CREDENTIAL_CACHE_MS).
    expect(await waitUntil(async () => (await statusOn(there, cookie)) === 401)).toBe(true);
    expect(await statusOn(here, cookie)).toBe(401);
  });

  test('an API key deleted through one instance stops working on the other', async () => {
    const session = await here.signUp();
    const created = await here.fetch('/api/auth/api-key/create', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: session.cookie, origin: here.url },
      body: JSON.stringify({ name: 'script' }),
    });
    expect(created.status).toBe(200);
    const { id, key } = (await created.json()) as { id: string; key: string };
    const bearer = { authorization: `Bearer ${key}` };
    expect(await statusOn(there, bearer)).toBe(200);
    const deleted = await here.fetch('/api/auth/api-key/delete', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: session.cookie, origin: here.url },
      body: JSON.stringify({ keyId: id }),
    });
    expect(deleted.status).toBe(200);
    expect(await waitUntil(async () => (await statusOn(there, bearer)) === 401)).toBe(true);
  });
});
