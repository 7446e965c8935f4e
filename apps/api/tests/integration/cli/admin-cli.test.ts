/**
 * `npm run admin` (docs/security.md#the-command-line) as a real process, on
 * SQLite (a fresh data directory) and on PostgreSQL (DATABASE_URL): a
 * locked-out admin gets a new password, accounts are created, listed,
 * disabled and enabled, and invites made, all seen by a server on the same
 * database.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { SQLITE_FILE_NAME } from '../../../src/config';
import { type AppDatabase, openDatabase } from '../../../src/db/database';
import { createTempTree, type TempTree } from '../../support/temp-tree';
import { startTestApp, TEST_AUTH_SECRET, type TestApp } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const REPOSITORY = join(import.meta.dir, '../../../../..');
const CLI = join(REPOSITORY, 'apps/api/src/cli/admin.ts');

describeEachDatabase('the admin command line', (kind, current) => {
  let tree: TempTree;
  let env: Record<string, string>;
  let database: AppDatabase;
  let app: TestApp;

  const admin = async (...args: string[]) => {
    const child = Bun.spawn([process.execPath, CLI, ...args], {
      cwd: tree.root,
      env,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    return { stdout, stderr, code };
  };
  const signIn = (email: string, password: string) =>
    app.fetch('/api/auth/sign-in/email', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
  const passwordIn = (stdout: string) => stdout.match(/^Password: (\S+)$/m)?.[1] ?? '';

  beforeAll(async () => {
    tree = createTempTree('mango-admin-cli-');
    const config = current().config;
    env = {
      PATH: process.env.PATH ?? '',
      HOME: tree.root,
      MANGO_DATA_DIR: join(tree.root, 'data'),
      BETTER_AUTH_SECRET: TEST_AUTH_SECRET,
      ...(config.kind === 'postgres' ? { DATABASE_URL: config.url } : {}),
    };
    if (kind === 'sqlite') {
      // The command creates and migrates the embedded database, as `npm start` would.
      const created = await admin('list-users');
      expect(created.code).toBe(0);
      database = openDatabase({ kind: 'sqlite', path: join(tree.root, 'data', SQLITE_FILE_NAME) });
    } else {
      database = current().database;
    }
    app = startTestApp(database, { allowSignup: false });
  }, 60_000);
  afterAll(async () => {
    await app.stop();
    if (kind === 'sqlite') await database.close();
    tree.remove();
  });

  test('create-user makes an admin with a generated password; list-users shows it', async () => {
    const created = await admin('create-user', 'Root@Example.test', '--admin', '--name', 'Root');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toContain('Created root@example.test (admin).');
    expect((await signIn('root@example.test', passwordIn(created.stdout))).status).toBe(200);
    const listed = await admin('list-users');
    expect(listed.stdout).toMatch(/^root@example\.test\tadmin\tenabled\t\d{4}-/m);
  });

  test('reset-password lets a locked-out admin in again', async () => {
    const reset = await admin('reset-password', 'root@example.test');
    expect(reset.code).toBe(0);
    const password = passwordIn(reset.stdout);
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect((await signIn('root@example.test', password)).status).toBe(200);
    const chosen = await admin(
      'reset-password',
      'root@example.test',
      '--password',
      'a chosen one!',
    );
    expect(chosen.stdout).not.toContain('Password:');
    expect((await signIn('root@example.test', password)).status).toBe(401);
    expect((await signIn('root@example.test', 'a chosen one!')).status).toBe(200);
  });

  test('disable and enable; the last admin cannot be disabled', async () => {
    const made = await admin('create-user', 'worker@example.test', '--password', 'worker password');
    expect(made.code).toBe(0);
    expect((await admin('disable', 'worker@example.test')).code).toBe(0);
    expect((await signIn('worker@example.test', 'worker password')).status).toBe(403);
    expect((await admin('enable', 'worker@example.test')).code).toBe(0);
    expect((await signIn('worker@example.test', 'worker password')).status).toBe(200);
    const last = await admin('disable', 'root@example.test');
    expect(last.code).toBe(1);
    expect(last.stderr).toContain('last enabled admin');
  });

  test('invite prints a token that admits one sign-up', async () => {
    const made = await admin('invite', '--email', 'guest@example.test');
    const token = made.stdout.match(/^Invite token: (\S+)$/m)?.[1] ?? '';
    expect(token).toStartWith('mango_invite_');
    const signUp = await app.fetch('/api/auth/sign-up/email', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-invite-token': token },
      body: JSON.stringify({
        email: 'guest@example.test',
        password: 'guest password',
        name: 'Guest',
      }),
    });
    expect(signUp.status).toBe(200);
  });

  test('grant-roots grants a user directories the server then applies; roots lists them', async () => {
    tree.add({ 'granted/readme.txt': 'x' });
    const created = await admin('create-user', 'rooted@example.test');
    expect(created.code).toBe(0);
    const granted = await admin('grant-roots', 'rooted@example.test', tree.at('granted'));
    expect(granted).toMatchObject({ code: 0, stderr: '' });
    expect(granted.stdout).toContain(tree.at('granted'));
    const user = (await app.services.roots.hostAccess(
      (
        await database.db
          .selectFrom('users')
          .select('id')
          .where('email', '=', 'rooted@example.test')
          .executeTakeFirstOrThrow()
      ).id,
    )) as { kind: string; roots: string[] };
    expect(user).toEqual({ kind: 'granted', roots: [tree.at('granted')] });
    expect((await admin('roots', 'rooted@example.test')).stdout).toContain(tree.at('granted'));
    // A directory that does not exist is refused; nothing changes.
    const refused = await admin('grant-roots', 'rooted@example.test', tree.at('missing'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('does not exist');
    const revoked = await admin('grant-roots', 'rooted@example.test');
    expect(revoked.stdout).toContain('has no granted root');
  });

  test('mistakes answer with the usage and a non-zero exit', async () => {
    const unknown = await admin('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "frobnicate"');
    expect(unknown.stderr).toContain('reset-password <email>');
    const missing = await admin('reset-password', 'nobody@example.test');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('There is no user "nobody@example.test"');
  });

  if (kind === 'sqlite') {
    test('npm run admin -- reset-password runs the same command', async () => {
      const child = Bun.spawn(
        ['npm', 'run', '--silent', 'admin', '--', 'reset-password', 'root@example.test'],
        {
          cwd: REPOSITORY,
          env: { ...env, PATH: `${join(REPOSITORY, 'node_modules/.bin')}:${env.PATH}` },
          stdout: 'pipe',
          stderr: 'pipe',
        },
      );
      const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      expect(code).toBe(0);
      expect((await signIn('root@example.test', passwordIn(stdout))).status).toBe(200);
    }, 30_000);
  }
});
