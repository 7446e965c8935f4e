/**
 * Opening a SQLite file that another process is using at that moment: the
 * switch to WAL needs the file to itself, and SQLite refuses it at once
 * (SQLITE_BUSY, without waiting through the busy timeout) while another
 * connection is in a write transaction. `openDatabase` waits instead.
 */
import { expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../../../src/db/database';
import { createTestDatabaseConfig } from '../../support/test-databases';

const HOLD_SQLITE_WRITE = join(import.meta.dir, '../../support/fixtures/hold-sqlite-write.ts');
const HOLD_MS = 300;

/** Resolves once `child` has printed `line`. */
async function waitForLine(child: Bun.Subprocess<'ignore', 'pipe', 'pipe'>, line: string) {
  const decoder = new TextDecoder();
  let seen = '';
  for await (const chunk of child.stdout) {
    seen += decoder.decode(chunk, { stream: true });
    if (seen.split('\n').includes(line)) return;
  }
  throw new Error(
    `The child ended without printing "${line}": ${seen}${await new Response(child.stderr).text()}`,
  );
}

test('opening a new SQLite file while another process writes to it waits for the write, then switches to WAL', async () => {
  const { config, cleanup } = await createTestDatabaseConfig('sqlite');
  if (config.kind !== 'sqlite') throw new Error('expected a SQLite config');
  const signal = join(dirname(config.path), 'opening');
  const child = Bun.spawn(
    [process.execPath, HOLD_SQLITE_WRITE, config.path, signal, `${HOLD_MS}`],
    {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    },
  );
  try {
    await waitForLine(child, 'holding');
    // The writer commits HOLD_MS after this, so the open below starts while it holds the file.
    writeFileSync(signal, '');
    const started = performance.now();
    const database = openDatabase(config);
    const waited = performance.now() - started;
    try {
      expect(waited).toBeGreaterThanOrEqual(HOLD_MS * 0.9);
      const mode = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(database.db);
      expect(mode.rows[0]?.journal_mode).toBe('wal');
      const written = await sql<{ value: string }>`SELECT value FROM written_while_held`.execute(
        database.db,
      );
      expect(written.rows).toEqual([{ value: 'committed' }]);
    } finally {
      await database.close();
    }
    expect(await child.exited).toBe(0);
  } finally {
    child.kill('SIGKILL');
    cleanup();
  }
}, 30_000);
