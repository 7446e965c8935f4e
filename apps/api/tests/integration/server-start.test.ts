import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTestPostgres } from '../support/postgres-server';
import { startServerProcess } from '../support/server-process';

test('with no configuration the server creates its SQLite file (WAL) under ./data and binds to 127.0.0.1', async () => {
  const workingDirectory = mkdtempSync(join(tmpdir(), 'mango-start-'));
  try {
    const server = await startServerProcess({}, { cwd: workingDirectory });
    try {
      expect(new URL(server.url).hostname).toBe('127.0.0.1');
      const response = await fetch(`${server.url}/api/health`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: 'ok', database: 'sqlite' });
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
    rmSync(workingDirectory, { recursive: true, force: true });
  }
}, 30_000);

test('DATABASE_URL switches the server to PostgreSQL', async () => {
  const postgres = await getTestPostgres();
  const dataDir = mkdtempSync(join(tmpdir(), 'mango-start-'));
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
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

test('an invalid setting stops the server at start-up with a message naming the variable', async () => {
  await expect(
    startServerProcess({ DATABASE_URL: 'mysql://nope' }, { timeoutMs: 10_000 }),
  ).rejects.toThrow(/DATABASE_URL must be a PostgreSQL URL/);
}, 30_000);
