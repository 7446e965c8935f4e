import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { getTestPostgres } from '../support/postgres-server';
import { startServerProcess } from '../support/server-process';
import { createTempTree } from '../support/temp-tree';

test('with no configuration the server creates its SQLite file (WAL) under ./data and binds to 127.0.0.1', async () => {
  const tree = createTempTree('mango-start');
  const workingDirectory = tree.root;
  try {
    const server = await startServerProcess({}, { cwd: workingDirectory });
    try {
      expect(new URL(server.url).hostname).toBe('127.0.0.1');
      const response = await fetch(`${server.url}/api/health`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: 'ok', database: 'sqlite' });
      // The database and its WAL are owner-only while the server runs.
      for (const name of ['mango.db', 'mango.db-wal'])
        expect(statSync(join(workingDirectory, 'data', name)).mode & 0o777).toBe(0o600);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const file = join(workingDirectory, 'data', 'mango.db');
    expect(existsSync(file)).toBe(true);
    const sqlite = new Database(file, { readonly: true });
    const mode = sqlite.query('PRAGMA journal_mode').get() as { journal_mode: string };
    sqlite.close();
    expect(mode.journal_mode).toBe('wal');
  } finally {
    tree.remove();
  }
}, 30_000);

test('DATABASE_URL switches the server to PostgreSQL', async () => {
  const postgres = await getTestPostgres();
  const tree = createTempTree('mango-start');
  const dataDir = tree.root;
  try {
    const server = await startServerProcess({
      DATABASE_URL: await postgres.createDatabase(),
      MANGO_DATA_DIR: dataDir,
    });
    try {
      const health = await (await fetch(`${server.url}/api/health`)).json();
      expect(health).toMatchObject({ status: 'ok', database: 'postgres' });
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(existsSync(join(dataDir, 'mango.db'))).toBe(false);
  } finally {
    tree.remove();
  }
}, 60_000);

test('an invalid setting stops the server at start-up with a message naming the variable', async () => {
  await expect(
    startServerProcess({ DATABASE_URL: 'mysql://nope' }, { timeoutMs: 10_000 }),
  ).rejects.toThrow(/DATABASE_URL must be a PostgreSQL URL/);
}, 30_000);

test('a restart keeps accounts, sessions (the generated secret is kept, owner-only) and settings', async () => {
  const tree = createTempTree('mango-restart');
  const workingDirectory = tree.root;
  try {
    const first = await startServerProcess({}, { cwd: workingDirectory });
    let cookie = '';
    try {
      const signUp = await fetch(`${first.url}/api/auth/sign-up/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'R', email: 'r@example.test', password: 'a long passphrase' }),
      });
      expect(signUp.status).toBe(200);
      cookie = signUp.headers
        .getSetCookie()
        .map((value) => value.split(';')[0])
        .join('; ');
      const put = await fetch(`${first.url}/api/settings/tools/get_current_datetime`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ enabled: false, parameters: { defaultLocale: 'pt-BR' } }),
      });
      expect(put.status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const secretFile = join(workingDirectory, 'data', 'auth-secret');
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    const secret = readFileSync(secretFile, 'utf8');

    const second = await startServerProcess({}, { cwd: workingDirectory });
    try {
      const response = await fetch(`${second.url}/api/settings/tools`, { headers: { cookie } });
      expect(response.status).toBe(200);
      const { tools } = (await response.json()) as {
        tools: { name: string; enabled: boolean; parameters: Record<string, unknown> }[];
      };
      expect(tools.find((tool) => tool.name === 'get_current_datetime')).toMatchObject({
        enabled: false,
        parameters: { defaultLocale: 'pt-BR' },
      });
    } finally {
      expect(await second.stop()).toBe(0);
    }
    expect(readFileSync(secretFile, 'utf8')).toBe(secret);
  } finally {
    tree.remove();
  }
}, 60_000);

test('settings are read from a .env file in the directory the server starts in', async () => {
  const tree = createTempTree('mango-dotenv');
  const workingDirectory = tree.root;
  try {
    tree.add({ '.env': 'MANGO_DATA_DIR=./from-dotenv\n' });
    const server = await startServerProcess({}, { cwd: workingDirectory });
    expect(await server.stop()).toBe(0);
    expect(existsSync(join(workingDirectory, 'from-dotenv', 'mango.db'))).toBe(true);
    expect(existsSync(join(workingDirectory, 'data'))).toBe(false);
  } finally {
    tree.remove();
  }
}, 30_000);
